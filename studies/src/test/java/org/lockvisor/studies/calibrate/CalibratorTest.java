package org.lockvisor.studies.calibrate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.studies.envelope.Dimension;

/**
 * The optimiser recovers parameters planted in a synthetic model (a noisy, monotone, nonlinear map
 * from two costs to two figures, evaluated with common random numbers), one parameter as well as
 * two, within its tolerance; its standard errors grow with the noise of the figures; a target figure the model
 * does not produce is refused by name before any fitting.
 */
class CalibratorTest {

  private static final Dimension.Continuous EXIT = new Dimension.Continuous("exit-us", 1, 100, true, "test");
  private static final Dimension.Continuous EMUL = new Dimension.Continuous("emulation-us", 0.5, 10, false, "test");

  /** IOPS and latency of a toy device: one request costs exit + emulation, plus seeded noise. */
  private static Map<String, Double> toy(Map<String, String> s, long seed) {
    double exit = Double.parseDouble(s.get("exit-us"));
    double emul = s.containsKey("emulation-us") ? Double.parseDouble(s.get("emulation-us")) : 3;
    double noise = 1 + 0.01 * new SplittableRandom(seed).nextGaussian();
    double perRequestUs = exit + 2 * emul;
    return Map.of("iops", 4 * 1e6 / perRequestUs * noise, "lat_us", (exit + emul) * noise, "other", 1.0);
  }

  /** The figures the model gives at {@code setting}, averaged over {@code seeds}: a planted, simulated target. */
  private static Map<String, Double> planted(Map<String, String> setting, List<Long> seeds) {
    Map<String, Double> sum = new java.util.TreeMap<>();
    for (long seed : seeds) {
      toy(setting, seed).forEach((k, v) -> sum.merge(k, v / seeds.size(), Double::sum));
    }
    return sum;
  }

  @Test
  void twoParameters_plantedValuesRecovered() {
    Map<String, Double> planted = planted(Map.of("exit-us", "20", "emulation-us", "4"), List.of(1L, 2L, 3L));
    var target = Map.of("iops", planted.get("iops"), "lat_us", planted.get("lat_us"));
    var fit = new Calibrator(List.of(EXIT, EMUL), target, CalibratorTest::toy, List.of(1L, 2L, 3L), 400).fit();
    assertThat(fit.values().get("exit-us")).isCloseTo(20, within(1.0));
    assertThat(fit.values().get("emulation-us")).isCloseTo(4, within(0.3));
    assertThat(fit.objective()).isLessThan(1e-3);
    assertThat(fit.standardErrors().get("exit-us")).isPositive().isLessThan(2.0);
  }

  @Test
  void oneParameter_brent_recovers() {
    Map<String, Double> planted = planted(Map.of("exit-us", "7"), List.of(1L));
    var fit = new Calibrator(List.of(EXIT), Map.of("lat_us", planted.get("lat_us")), CalibratorTest::toy,
        List.of(1L), 100).fit();
    assertThat(fit.values().get("exit-us")).isCloseTo(7, within(0.3));
  }

  @Test
  void standardErrors_growWithTheNoiseOfTheFigures() {
    List<Long> seeds = List.of(1L, 2L, 3L, 4L);
    Map<String, Double> planted = planted(Map.of("exit-us", "20", "emulation-us", "4"), seeds);
    var target = Map.of("iops", planted.get("iops"), "lat_us", planted.get("lat_us"));
    var quiet = new Calibrator(List.of(EXIT, EMUL), target, CalibratorTest::toy, seeds, 400).fit();
    // the same model with five times the noise around the same mean
    Calibrator.Model noisy = (setting, seed) -> {
      Map<String, Double> clean = toy(setting, 0);
      Map<String, Double> one = toy(setting, seed);
      Map<String, Double> out = new java.util.TreeMap<>();
      one.forEach((k, v) -> out.put(k, clean.get(k) + 5 * (v - clean.get(k))));
      return out;
    };
    var loud = new Calibrator(List.of(EXIT, EMUL), target, noisy, seeds, 400).fit();
    assertThat(loud.standardErrors().get("exit-us")).isGreaterThan(2 * quiet.standardErrors().get("exit-us"));
  }

  @Test
  void targetFigureNotSimulated_refusedByName() {
    assertThatThrownBy(() -> new Calibrator(List.of(EXIT), Map.of("bogus_figure", 3.0), CalibratorTest::toy,
        List.of(1L), 100).fit())
        .isInstanceOf(UserInputException.class)
        .hasMessageStartingWith("target figure [bogus_figure] not produced by the simulation; it produces [");
  }
}
