package org.lockvisor.studies.envelope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.collect.ImmutableList;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.experiment.SimulationFailedException;
import org.lockvisor.studies.envelope.Band;
import org.lockvisor.studies.envelope.Dimension;
import org.lockvisor.studies.envelope.EnvelopeSummary;

/**
 * Property: an envelope runs every sample with the same seeds (common random numbers); its summary
 * does not depend on the parallelism or on how the samples were split into shards sharing one
 * directory; a resumed run reruns nothing that is written; a failed run is reported and leaves the
 * other samples' figures.
 */
class EnvelopeRunnerTest {

  private static final EnvelopeRunner.Plan PLAN = new EnvelopeRunner.Plan("reproduction", "fake", true,
      ImmutableList.of(new Dimension.Whole("x", 1, 10, false, "test"),
          new Dimension.Continuous("y", 1, 100, true, "test")), 8, ImmutableList.of(11L, 12L), 5, "",
      ImmutableList.of());

  private static List<Band> bands(Map<String, String> setting, long seed) {
    double x = Double.parseDouble(setting.get("x"));
    double y = Double.parseDouble(setting.get("y"));
    return List.of(Band.baseline("b", "b", 10, 0, 20, x + seed % 2),
        Band.heldOut("r", "r", "ratio", 1, 0.5, 1.5, 1 + x / 10 + y / 1000));
  }

  @Test
  void everySample_runsWithTheSameSeeds() {
    List<String> calls = Collections.synchronizedList(new ArrayList<>());
    EnvelopeRunner.run(PLAN, (s, seed) -> {
      calls.add(s.get("x") + "@" + seed);
      return bands(s, seed);
    }, null, new EnvelopeRunner.Options(3, 0, 1, false), l -> { });
    assertThat(calls).hasSize(16);
    assertThat(calls.stream().filter(c -> c.endsWith("@11")).count()).isEqualTo(8);
    assertThat(calls.stream().filter(c -> c.endsWith("@12")).count()).isEqualTo(8);
  }

  @Test
  void summary_sameForOneOrManyJobs() {
    EnvelopeSummary one = EnvelopeRunner.run(PLAN, EnvelopeRunnerTest::bands, null,
        new EnvelopeRunner.Options(1, 0, 1, false), l -> { }).summary().orElseThrow();
    EnvelopeSummary four = EnvelopeRunner.run(PLAN, EnvelopeRunnerTest::bands, null,
        new EnvelopeRunner.Options(4, 0, 1, false), l -> { }).summary().orElseThrow();
    assertThat(four.json()).isEqualTo(one.json());
    assertThat(one.prcc(one.column("r")).get(0)).isGreaterThan(0.9);
  }

  @Test
  void shardsInOneDirectory_completeTheEnvelope_andResumeRerunsNothing(@TempDir Path dir) {
    EnvelopeRunner.Outcome first = EnvelopeRunner.run(PLAN, EnvelopeRunnerTest::bands, dir,
        new EnvelopeRunner.Options(2, 0, 3, false), l -> { });
    assertThat(first.complete()).isFalse();
    EnvelopeRunner.run(PLAN, EnvelopeRunnerTest::bands, dir, new EnvelopeRunner.Options(2, 1, 3, false), l -> { });
    EnvelopeRunner.Outcome last = EnvelopeRunner.run(PLAN, EnvelopeRunnerTest::bands, dir,
        new EnvelopeRunner.Options(2, 2, 3, false), l -> { });
    EnvelopeSummary whole = EnvelopeRunner.run(PLAN, EnvelopeRunnerTest::bands, null,
        new EnvelopeRunner.Options(2, 0, 1, false), l -> { }).summary().orElseThrow();
    assertThat(last.summary().orElseThrow().json()).isEqualTo(whole.json());

    AtomicInteger reruns = new AtomicInteger();
    EnvelopeRunner.Outcome resumed = EnvelopeRunner.run(PLAN, (s, seed) -> {
      reruns.incrementAndGet();
      return bands(s, seed);
    }, dir, new EnvelopeRunner.Options(2, 0, 1, true), l -> { });
    assertThat(reruns.get()).isZero();
    assertThat(resumed.skipped()).isEqualTo(16);
    assertThat(EnvelopeRunner.read(List.of(dir), false).runs()).hasSize(16);
  }

  @Test
  void failedRun_reported_otherSamplesKept() {
    AtomicInteger first = new AtomicInteger();
    EnvelopeRunner.Outcome o = EnvelopeRunner.run(PLAN, (s, seed) -> {
      if (seed == 11 && first.getAndIncrement() == 0) {
        throw new SimulationFailedException("lock [ticket]: invariant broken");
      }
      return bands(s, seed);
    }, null, new EnvelopeRunner.Options(2, 0, 1, false), l -> { });
    assertThat(o.failed()).hasSize(1).allSatisfy(f -> assertThat(f).contains("invariant broken", "seed 11"));
    assertThat(o.summary().orElseThrow().quantities().get(0).spread().orElseThrow().n()).isEqualTo(8);
  }

  @Test
  void unknownEffect_refusedNamingTheKnownOnes() {
    EnvelopeRunner.Plan plan = new EnvelopeRunner.Plan("reproduction", "fake", true, PLAN.dimensions(), 4,
        PLAN.seeds(), 5, "nope", ImmutableList.of());
    assertThatThrownBy(() -> EnvelopeRunner.run(plan, EnvelopeRunnerTest::bands, null,
        new EnvelopeRunner.Options(1, 0, 1, false), l -> { })).hasMessageContaining("[nope]").hasMessageContaining("[b, r]");
  }
}
