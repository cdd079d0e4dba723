package org.lockvisor.workloads.spi;

import java.util.Map;
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
   * A new, not yet started workload called {@code instanceName}, configured by {@code options}
   * (strict: unknown keys and bad values are errors, all reported at once).
   */
  Workload create(String instanceName, Map<String, String> options);
}
