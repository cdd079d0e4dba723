package org.lockvisor.scheduler.builtin;

import java.util.Map;
import org.lockvisor.arch.spi.ArchCosts;
import org.lockvisor.core.plugin.OptionBinder;
import org.lockvisor.machine.Scheduler;
import org.lockvisor.scheduler.spi.SchedulerContext;
import org.lockvisor.scheduler.spi.SchedulerFactory;

/** Schedulers made as the framework makes them: options bound by the one binder, no costs read. */
public final class SchedulerContexts {

  private SchedulerContexts() {}

  /** {@code factory}'s scheduler with {@code options} (refused as the framework refuses them). */
  public static Scheduler create(SchedulerFactory factory, Map<String, String> options) {
    return factory.create(SchedulerContext.of("test", OptionBinder.bind(factory, options),
        ArchCosts.unavailable("the built-in schedulers read no costs")));
  }
}
