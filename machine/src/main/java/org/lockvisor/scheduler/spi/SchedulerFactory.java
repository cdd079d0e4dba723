package org.lockvisor.scheduler.spi;

import java.util.Map;
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

  /** A new policy instance configured with {@code options} (validated against {@link #options()}). */
  Scheduler create(Map<String, String> options);
}
