package org.lockvisor.cli.inject;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import java.util.Map;
import org.lockvisor.arch.spi.ArchProfileFactory;
import org.lockvisor.devices.spi.DeviceFactory;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.runner.ExperimentRunner;
import org.lockvisor.experiment.runner.Runner;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.scheduler.spi.SchedulerFactory;
import org.lockvisor.workloads.spi.WorkloadFactory;

/** Exposes the multibound plugins to the experiment model and runner (which never import Guice). */
public final class ExperimentModule extends AbstractModule {

  @Provides
  @Singleton
  ExperimentPlugins plugins(
      Map<String, ArchProfileFactory> arches,
      Map<String, SchedulerFactory> schedulers,
      Map<String, LockFactory> locks,
      Map<String, DeviceFactory> devices,
      Map<String, WorkloadFactory> workloads) {
    return new ExperimentPlugins(arches, schedulers, locks, devices, workloads);
  }

  @Provides
  @Singleton
  ExperimentRunner runner(ExperimentPlugins plugins) {
    return new ExperimentRunner(plugins);
  }

  /** The same runner, as the commands {@code run}, {@code validate} and {@code sweep} ask for it (a test may bind a mock). */
  @Provides
  Runner commandRunner(ExperimentRunner runner) {
    return runner;
  }
}
