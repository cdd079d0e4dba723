package org.lockvisor.experiment.runner;

import java.util.List;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.machine.Machine;

/**
 * Sees the machine of one run at the two moments reports need it: when measurement starts (after
 * warm-up and the reset of every statistic; attach a trace here) and when it ends (read the
 * machine here). Both run on the run's own thread; the default does nothing.
 */
public interface RunObserver {

  RunObserver NONE = new RunObserver() {};

  /** Warm-up is over and statistics were reset; the measurement window starts now. */
  default void measurementStarted(Machine machine) {}

  /**
   * The measurement window is over; {@code result} is what the run returns and {@code locks} every
   * lock instance the run created (for devices and workloads), in creation order.
   */
  default void finished(Machine machine, ExperimentResult result, List<KernelLock> locks) {}
}
