package org.lockvisor.scheduler.builtin;

import com.google.auto.service.AutoService;
import java.util.List;
import java.util.Locale;
import org.lockvisor.core.plugin.BoundOptions;
import org.lockvisor.core.plugin.PluginOption;
import org.lockvisor.machine.Scheduler;
import org.lockvisor.scheduler.spi.SchedulerContext;
import org.lockvisor.scheduler.spi.SchedulerFactory;

/** Plugin entry for {@link CfsScheduler}. */
@AutoService(SchedulerFactory.class)
public final class CfsSchedulerFactory implements SchedulerFactory {
  static final long DEFAULT_LATENCY_NS = 6_000_000;
  static final long DEFAULT_MIN_GRANULARITY_NS = 750_000;
  static final long DEFAULT_WAKEUP_GRANULARITY_NS = 1_000_000;

  private static final List<PluginOption> OPTIONS = List.of(
      PluginOption.ofDuration("latency", DEFAULT_LATENCY_NS, 100_000, 1_000_000_000,
          "base sysctl_sched_latency (targeted preemption latency), before scaling by the CPU count"),
      PluginOption.ofDuration("min-granularity", DEFAULT_MIN_GRANULARITY_NS, 100_000, 1_000_000_000,
          "base sysctl_sched_min_granularity (shortest slice when more than sched_nr_latency tasks run), before scaling"),
      PluginOption.ofDuration("wakeup-granularity", DEFAULT_WAKEUP_GRANULARITY_NS, 0, 1_000_000_000,
          "base sysctl_sched_wakeup_granularity (vruntime lead a woken task needs to preempt), before scaling"),
      PluginOption.ofEnum("scaling", "log",
          "sysctl_sched_tunable_scaling: factor on the three durations: none = 1, log = 1 + ilog2(min(cpus, 8)),"
              + " linear = min(cpus, 8)", "none", "log", "linear"),
      PluginOption.ofBoolean("hrtick", false,
          "sched_feat HRTICK: preempt at the exact slice expiry with a timer instead of at the next tick"),
      PluginOption.ofBoolean("wake-affine", true,
          "SD_WAKE_AFFINE: wake_affine may pull a wakee to the waker's CPU (false: start from its previous CPU)"),
      PluginOption.ofEnum("era", "3.0",
          "kernel generation of the domains and gates: 3.0 (3.0-3.15, SD_*_INIT, no wake_wide, no overload gate)"
              + " or 4.8 (sd_init, wake_wide, newidle gated by rd->overload)", "3.0", "4.8"),
      PluginOption.ofBoolean("balancing", true,
          "periodic, nohz, newidle (avg_idle-gated) and active load balancing over sched domains; false: only"
              + " the earlier model's newidle pull of the longest-waiting task"));

  @Override
  public String name() {
    return "cfs";
  }

  @Override
  public String summary() {
    return "Linux CFS (pre-EEVDF): vruntime runqueues, latency-derived slices, tick and wakeup preemption,"
        + " sched domains from topology, select_task_rq_fair placement, periodic/nohz/newidle/active balancing.";
  }

  @Override
  public List<PluginOption> options() {
    return OPTIONS;
  }

  @Override
  public Scheduler create(SchedulerContext context) {
    BoundOptions o = context.options();
    CfsScheduler s = new CfsScheduler(
        o.durationNs("latency"),
        o.durationNs("min-granularity"),
        o.durationNs("wakeup-granularity"),
        CfsScheduler.Scaling.valueOf(o.choice("scaling").toUpperCase(Locale.ROOT)),
        o.bool("hrtick"));
    s.era(o.choice("era").equals("4.8") ? CfsEra.LINUX_4_8 : CfsEra.LINUX_3_0);
    if (!o.bool("wake-affine")) {
      s.disableWakeAffine();
    }
    if (!o.bool("balancing")) {
      s.disableBalancing();
    }
    return s;
  }
}
