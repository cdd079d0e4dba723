package org.lockvisor.scheduler.builtin;

import com.google.auto.service.AutoService;
import java.util.List;
import org.lockvisor.core.plugin.PluginOption;
import org.lockvisor.machine.Scheduler;
import org.lockvisor.scheduler.spi.SchedulerContext;
import org.lockvisor.scheduler.spi.SchedulerFactory;

/** Plugin entry for {@link RoundRobinScheduler}. */
@AutoService(SchedulerFactory.class)
public final class RoundRobinSchedulerFactory implements SchedulerFactory {
  static final long DEFAULT_QUANTUM_NS = 3_000_000;

  @Override
  public String name() {
    return "round-robin";
  }

  @Override
  public String summary() {
    return "Fixed-quantum round robin per CPU (SCHED_RR-like); wakeups never preempt.";
  }

  @Override
  public List<PluginOption> options() {
    return List.of(PluginOption.ofDuration("quantum", DEFAULT_QUANTUM_NS, 1_000, 1_000_000_000,
        "time slice after which the running task yields to a waiting one"));
  }

  @Override
  public Scheduler create(SchedulerContext context) {
    return new RoundRobinScheduler(context.options().durationNs("quantum"));
  }
}
