package org.lockvisor.scheduler.spi;

import org.lockvisor.core.plugin.Plugin;
import org.lockvisor.machine.Scheduler;

/**
 * Scheduler plugin SPI: creates one {@link Scheduler} per kernel (the host's and each guest's).
 * Implementations are registered with {@code @AutoService(SchedulerFactory.class)}.
 */
public interface SchedulerFactory extends Plugin {

  @Override
  default String kind() {
    return "scheduler";
  }

  /**
   * A new policy instance as {@code context} describes it: the options bound by the framework
   * against {@link #options()}, the arch profile's costs.
   */
  Scheduler create(SchedulerContext context);
}
