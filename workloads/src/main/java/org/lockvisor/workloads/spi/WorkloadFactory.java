package org.lockvisor.workloads.spi;

import org.lockvisor.core.plugin.Plugin;

/**
 * Workload plugin SPI. One small final class per benchmark, registered with
 * {@code @AutoService(WorkloadFactory.class)}; experiments choose it by {@link #name()}
 * ({@code workload: fio}).
 */
public interface WorkloadFactory extends Plugin {

  /**
   * The capability of a workload plugin that can end on its own (some or all of its
   * configurations {@link Workload#finishes()}); listed by {@code lockvisor plugins}.
   */
  String FINISHES = "finishes";

  @Override
  default String kind() {
    return "workload";
  }

  /**
   * A new, not yet started workload as {@code context} describes it: its name (e.g. {@code fio0}),
   * its options bound by the framework against {@link #options()} (strict: unknown keys and bad
   * values were refused before this call, all at once), the arch profile's costs and the kernel
   * locks. The VM is not there yet ({@link WorkloadContext#vm()} is read in {@link Workload#start}).
   */
  Workload create(WorkloadContext context);
}
