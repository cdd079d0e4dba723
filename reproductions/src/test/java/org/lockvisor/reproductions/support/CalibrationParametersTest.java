package org.lockvisor.reproductions.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.lockvisor.reproductions.api.Reproduction;
import org.lockvisor.reproductions.study.ReproductionCalibration;
import org.lockvisor.reproductions.vcpupreempted.VcpuPreemptedReproduction;
import org.lockvisor.reproductions.vhost.VhostWakeupReproduction;
import org.lockvisor.reproductions.virtioblk.VirtioBlkNotifyReproduction;

/**
 * Property: every seed reproduction declares calibration parameters that {@code reproduce
 * --calibrate} accepts (declared with a numeric range, or an estimated cost of its own profiles),
 * no more of them than its published baseline column has figures to determine them, and each is a
 * cost its envelope also samples (the same sourced ranges for both). Nothing is run.
 */
class CalibrationParametersTest {

  static Stream<Reproduction> reproductions() {
    return Stream.of(new VhostWakeupReproduction(), new VirtioBlkNotifyReproduction(), new VcpuPreemptedReproduction());
  }

  /** The published baseline figures, per reproduction: R1 8 (4 x throughput, CPU %), R2 2, R3 4. */
  private static int baselineFigures(Reproduction r) {
    return switch (r.name()) {
      case "vhost-wakeup" -> 8;
      case "virtio-blk-notify" -> 2;
      default -> 4;
    };
  }

  @ParameterizedTest
  @MethodSource("reproductions")
  void calibrationParameters_acceptedAndFewerThanTheBaselineFigures(Reproduction r) {
    ReproductionCalibration c = new ReproductionCalibration(r, List.of(), true, 2, 1, 40);
    assertThat(c.parameterNames()).isNotEmpty().hasSizeLessThanOrEqualTo(baselineFigures(r));
    assertThat(r.envelopeCosts()).containsAll(
        r.calibrationParameters().stream().filter(p -> p.startsWith("cost.")).toList());
  }
}
