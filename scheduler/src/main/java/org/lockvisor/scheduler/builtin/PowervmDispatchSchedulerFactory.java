package org.lockvisor.scheduler.builtin;

import com.google.auto.service.AutoService;
import java.util.List;
import org.lockvisor.core.plugin.BoundOptions;
import org.lockvisor.core.plugin.PluginOption;
import org.lockvisor.machine.Scheduler;
import org.lockvisor.scheduler.spi.SchedulerContext;
import org.lockvisor.scheduler.spi.SchedulerFactory;

/** Plugin entry for {@link PowervmDispatchScheduler}. */
@AutoService(SchedulerFactory.class)
public final class PowervmDispatchSchedulerFactory implements SchedulerFactory {
  static final long DEFAULT_WINDOW_NS = 10_000_000;

  private static final List<PluginOption> OPTIONS = List.of(
      PluginOption.ofDuration("window", DEFAULT_WINDOW_NS, 100_000, 1_000_000_000,
          "hypervisor dispatch window; entitlements refill at each boundary"),
      PluginOption.ofDouble("entitlement", 0, 0, 1024,
          "entitled capacity of each LPAR in processor units, shared equally by its virtual processors"
              + " (e.g. 2.0 for 4 VPs = 50% each); 0 entitles every VP to a whole processor"),
      PluginOption.ofBoolean("capped", false,
          "capped LPARs never run beyond their entitlement; uncapped ones use capacity left over by others"),
      PluginOption.ofEnum("smt", "1",
          "hardware threads per virtual processor (POWER8 SMT mode): host CPUs are the threads of"
              + " cpus/smt cores, guest vCPUs form VPs of smt consecutive threads dispatched together",
          "1", "2", "4", "8"));

  @Override
  public String name() {
    return "powervm-dispatch";
  }

  @Override
  public String summary() {
    return "PowerVM shared-processor dispatch of virtual processors: 10 ms window, per-LPAR entitlement,"
        + " cede, capped or uncapped use of leftover capacity.";
  }

  @Override
  public List<PluginOption> options() {
    return OPTIONS;
  }

  @Override
  public Scheduler create(SchedulerContext context) {
    BoundOptions o = context.options();
    return new PowervmDispatchScheduler(o.durationNs("window"), o.real("entitlement"), o.bool("capped"),
        Integer.parseInt(o.choice("smt")));
  }
}
