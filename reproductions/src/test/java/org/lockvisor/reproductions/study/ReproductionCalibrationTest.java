package org.lockvisor.reproductions.study;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.reproductions.api.Reproduction;
import org.lockvisor.reproductions.api.ReproductionOptions;
import org.lockvisor.reproductions.api.ReproductionParameter;
import org.lockvisor.reproductions.api.ReproductionResult;
import org.lockvisor.reproductions.api.ReproductionRuns;
import org.lockvisor.studies.calibrate.CalibrationReport;
import org.lockvisor.studies.calibrate.ParameterRange;
import org.lockvisor.studies.envelope.Band;
import org.lockvisor.studies.envelope.Dimension;

/**
 * {@code reproduce --calibrate} fits to the published baseline column only: a toy reproduction
 * whose baseline figure falls with a declared exit cost recovers the cost planted in its published
 * baseline; the patched column's published figures can not reach the fit (changing them leaves the
 * fitted parameter, its standard error and every prediction unchanged, only the judgement moves);
 * a parameter that is not declared, a choice, or a range outside the declared one is refused
 * before anything runs.
 */
class ReproductionCalibrationTest {

  /** A reproduction with one exit cost: baseline IOPS {@code 1e6/(exit+5)}, patched {@code 1e6/(exit/2+5)}. */
  static final class Toy implements Reproduction {
    static final ReproductionParameter<Double> EXIT = ReproductionParameter.of("exit-us", "exit cost, us",
        "a number in [1, 100]", v -> {
          double d = Double.parseDouble(v);
          return d >= 1 && d <= 100 ? d : null;
        }).declare("10", new Dimension.Continuous("exit-us", 1, 100, true, "toy range"));
    static final ReproductionParameter<Integer> MODE = ReproductionParameter.integer("mode", "a mode", 1, 2)
        .declareChoice("1", List.of("1", "2"), "toy modes");
    static final ReproductionParameter<Long> SEED = ReproductionParameter.seed("the seed");
    /** Published baseline: the figure of exit = 20 us. */
    static final double PUBLISHED_BASELINE = 1e6 / 25;

    final double publishedPatched;
    int runs;

    Toy(double publishedPatched) {
      this.publishedPatched = publishedPatched;
    }

    @Override
    public String name() {
      return "toy";
    }

    @Override
    public String summary() {
      return "toy";
    }

    @Override
    public List<ReproductionParameter<?>> parameters() {
      return List.of(EXIT, MODE, SEED);
    }

    @Override
    public List<String> calibrationParameters() {
      return List.of("exit-us");
    }

    @Override
    public synchronized ReproductionResult run(ReproductionOptions options) {
      runs++;
      double exit = options.parameter(EXIT).orElse(10.0);
      long seed = options.parameter(SEED).orElse(0L);
      double noise = 1 + 0.005 * new SplittableRandom(seed).nextGaussian();
      double base = 1e6 / (exit + 5) * noise;
      double patched = 1e6 / (exit / 2 + 5) * noise;
      List<Band> bands = List.of(
          Band.baseline("base.iops", "baseline IOPS", PUBLISHED_BASELINE, 0.7 * PUBLISHED_BASELINE,
              1.3 * PUBLISHED_BASELINE, base),
          Band.heldOut("patched.iops", "patched IOPS", Band.PATCHED, publishedPatched, 0.8 * publishedPatched,
              1.2 * publishedPatched, patched),
          Band.heldOut("ratio", "patched/baseline", "ratio", publishedPatched / PUBLISHED_BASELINE, 1.2, 2.0,
              patched / base));
      return ReproductionResult.of("toy", true, "toy", List.of(), java.util.Map.of()).withBands(bands);
    }
  }

  private static CalibrationReport calibrate(Toy toy) {
    return new ReproductionCalibration(toy, List.of(), true, 3, 1, 60).run(ReproductionRuns.NONE);
  }

  @Test
  void baselineColumn_plantedCostRecovered_patchedPredictedAndJudged() {
    CalibrationReport r = calibrate(new Toy(1e6 / 15));

    assertThat(r.values().get("exit-us")).isCloseTo(20, within(1.0));
    assertThat(r.target()).containsOnlyKeys("base.iops");
    assertThat(r.predictions()).extracting(p -> p.figure().name()).containsExactly("patched.iops", "ratio");
    CalibrationReport.Predicted patched = r.predictions().get(0);
    assertThat(patched.figure().mean()).isCloseTo(1e6 / 15, within(0.05 * 1e6 / 15));
    assertThat(patched.judged()).get().extracting(CalibrationReport.Judged::met).isEqualTo(true);
    assertThat(patched.figure().low()).isLessThan(patched.figure().mean());
  }

  @Test
  void publishedPatchedFigures_changed_fitAndPredictionsUnchanged() {
    CalibrationReport a = calibrate(new Toy(1e6 / 15));
    CalibrationReport b = calibrate(new Toy(3e6));

    assertThat(b.values()).isEqualTo(a.values());
    assertThat(b.parameters()).isEqualTo(a.parameters());
    assertThat(b.fitted()).isEqualTo(a.fitted());
    assertThat(b.objective()).isEqualTo(a.objective());
    assertThat(b.predictions()).extracting(CalibrationReport.Predicted::figure)
        .isEqualTo(a.predictions().stream().map(CalibrationReport.Predicted::figure).toList());
    // only the judgement of the held-out column moves with its published figure
    assertThat(b.predictions().get(0).judged().get().met()).isFalse();
    assertThat(a.predictions().get(0).judged().get().met()).isTrue();
  }

  @Test
  void baselineTarget_holdsOnlyBaselineOnlyBands() {
    ReproductionCalibration.BaselineTarget t = ReproductionCalibration.BaselineTarget.of(
        new Toy(123).run(new ReproductionOptions(true, Optional.empty())).bands());
    assertThat(t.figures()).containsOnlyKeys("base.iops");
  }

  @Test
  void range_insideTheDeclaredOne_isUsed() {
    ReproductionCalibration c = new ReproductionCalibration(new Toy(1),
        ParameterRange.parseList("--params", "exit-us=10..40", true), true, 2, 1, 40);
    assertThat(c.parameterNames()).containsExactly("exit-us");
    assertThat(c.seeds()).containsExactly(1L, 2L);
  }

  @Test
  void badParameters_refusedByNameBeforeAnyRun() {
    Toy toy = new Toy(1);
    assertThatThrownBy(() -> new ReproductionCalibration(toy, ParameterRange.parseList("--params", "exit-s", true),
        true, 1, 1, 40)).isInstanceOf(UserInputException.class).hasMessageContaining("[exit-s]")
        .hasMessageContaining("exit-us");
    assertThatThrownBy(() -> new ReproductionCalibration(toy, ParameterRange.parseList("--params", "mode", true),
        true, 1, 1, 40)).isInstanceOf(UserInputException.class).hasMessageContaining("is a choice");
    assertThatThrownBy(() -> new ReproductionCalibration(toy, ParameterRange.parseList("--params", "seed", true),
        true, 1, 1, 40)).isInstanceOf(UserInputException.class).hasMessageContaining("declares no range");
    assertThatThrownBy(() -> new ReproductionCalibration(toy,
        ParameterRange.parseList("--params", "exit-us=0.5..40", true), true, 1, 1, 40))
        .isInstanceOf(UserInputException.class).hasMessageContaining("outside the declared");
    assertThatThrownBy(() -> new ReproductionCalibration(toy,
        ParameterRange.parseList("--params", "cost.x86_64-kvm.IRQ_INJECT", true), true, 1, 1, 40))
        .isInstanceOf(UserInputException.class).hasMessageContaining("builds no machine");
    assertThat(toy.runs).isZero();
  }
}
