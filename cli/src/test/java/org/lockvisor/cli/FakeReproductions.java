package org.lockvisor.cli;

import com.google.common.collect.ImmutableMap;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.lockvisor.arch.spi.CostKey;
import org.lockvisor.experiment.SimulationFailedException;
import org.lockvisor.reproductions.api.Reproduction;
import org.lockvisor.reproductions.api.ReproductionOptions;
import org.lockvisor.reproductions.api.ReproductionParameter;
import org.lockvisor.reproductions.api.ReproductionResult;

/**
 * Test-only reproductions. They are not registered in this module's test resources (so the plain
 * test class path has none, as the shipped jar does); {@link CliFixture} registers them through a
 * separate class loader.
 */
final class FakeReproductions {

  private FakeReproductions() {}

  /** Reproduces; records whether it ran in quick mode and writes an artefact when asked to. */
  public static final class Reproduces implements Reproduction {
    @Override
    public String name() {
      return "fake-ok";
    }

    @Override
    public String summary() {
      return "always reproduces";
    }

    @Override
    public ReproductionResult run(ReproductionOptions options) {
      options.outputDirectory().ifPresent(dir -> {
        try {
          Files.createDirectories(dir);
          Files.writeString(dir.resolve("artefact.txt"), "made by fake-ok");
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
      return ReproductionResult.of(name(), true, "iops 14K -> 34K (published 14K -> 34K)",
          List.of("variant   iops", "baseline  14000", "patched   34000"),
          ImmutableMap.of("iops.baseline", 14000.0, "iops.patched", 34000.0, "quick", options.quick() ? 1.0 : 0.0));
    }
  }

  /** Runs, but the simulated direction disagrees with the published one. */
  public static final class DoesNotReproduce implements Reproduction {
    @Override
    public String name() {
      return "fake-miss";
    }

    @Override
    public String summary() {
      return "never reproduces";
    }

    @Override
    public ReproductionResult run(ReproductionOptions options) {
      return ReproductionResult.of(name(), false, "cpu% went up, published went down", List.of(), ImmutableMap.of());
    }
  }

  /** Its simulation breaks. */
  public static final class Breaks implements Reproduction {
    @Override
    public String name() {
      return "fake-broken";
    }

    @Override
    public String summary() {
      return "simulation fails";
    }

    @Override
    public ReproductionResult run(ReproductionOptions options) {
      throw new SimulationFailedException("lock [ticket]: mutual exclusion violated at t=42ns\nby vcpu1 and vcpu2");
    }
  }

  /** Hits a bug (an unexpected exception). */
  public static final class Buggy implements Reproduction {
    @Override
    public String name() {
      return "fake-buggy";
    }

    @Override
    public String summary() {
      return "throws an unexpected exception";
    }

    @Override
    public ReproductionResult run(ReproductionOptions options) {
      throw new IllegalStateException("queue corrupted");
    }
  }

  /** Recurses until the stack overflows (a real StackOverflowError, as deep input once caused). */
  public static final class OverflowsTheStack implements Reproduction {
    @Override
    public String name() {
      return "fake-deep";
    }

    @Override
    public String summary() {
      return "recurses without bound";
    }

    @Override
    public ReproductionResult run(ReproductionOptions options) {
      return recurse(0);
    }

    private static ReproductionResult recurse(long depth) {
      ReproductionResult r = recurse(depth + 1);
      return depth < 0 ? null : r;
    }
  }

  /** Runs out of heap (thrown, as the JVM would, without filling the test JVM's heap). */
  public static final class RunsOutOfMemory implements Reproduction {
    @Override
    public String name() {
      return "fake-oom";
    }

    @Override
    public String summary() {
      return "runs out of heap";
    }

    @Override
    public ReproductionResult run(ReproductionOptions options) {
      throw new OutOfMemoryError("Java heap space");
    }
  }

  /**
   * Declares a parameter and builds on x86_64-kvm: reports the profile's TTWU_FULL and the
   * parameter as it receives them through its options (a what-if's overrides must reach it).
   */
  public static final class WithParameter implements Reproduction {
    static final ReproductionParameter<Integer> LEVEL =
        ReproductionParameter.integer("level", "how hard the fake tries (default 1)", 1, 9);

    @Override
    public String name() {
      return "fake-param";
    }

    @Override
    public String summary() {
      return "declares a parameter and uses x86_64-kvm";
    }

    @Override
    public List<ReproductionParameter<?>> parameters() {
      return List.of(LEVEL);
    }

    @Override
    public Set<String> archProfiles() {
      return Set.of("x86_64-kvm");
    }

    @Override
    public ReproductionResult run(ReproductionOptions options) {
      double ttwu = options.profile("x86_64-kvm").costs().value(CostKey.TTWU_FULL);
      int level = options.parameter(LEVEL).orElse(1);
      return ReproductionResult.of(name(), true, "ttwu_full " + ttwu + " level " + level,
          List.of("  PASS  band"), ImmutableMap.of("ttwu_full_ns", ttwu, "level", (double) level));
    }
  }

  /**
   * Declares a setup (a whole-number level, a mode, one cost estimate) and judges three bands whose
   * values follow the setting and a little seed noise, in microseconds of test time: an envelope's
   * plumbing without a simulation.
   */
  public static final class WithEnvelope implements Reproduction {
    static final ReproductionParameter<Integer> LEVEL = ReproductionParameter.integer("level", "how hard (default 5)",
        1, 9).declareRange("5", 1, 9, false, "the fake's own range");
    static final ReproductionParameter<String> MODE = ReproductionParameter.of("mode", "a or b (default a)",
        "one of [a, b]", v -> v.equals("a") || v.equals("b") ? v : null).declareChoice("a", List.of("a", "b"),
        "the fake's two modes");
    static final ReproductionParameter<Long> SEED = ReproductionParameter.seed("the seed (default 1)");
    static final ReproductionParameter<Integer> FIXED = ReproductionParameter.integer("fixed", "no domain", 1, 2);

    @Override
    public String name() {
      return "fake-envelope";
    }

    @Override
    public String summary() {
      return "bands that follow a declared setup";
    }

    @Override
    public List<ReproductionParameter<?>> parameters() {
      return List.of(LEVEL, MODE, SEED, FIXED);
    }

    @Override
    public Set<String> archProfiles() {
      return Set.of("x86_64-kvm");
    }

    @Override
    public List<String> envelopeCosts() {
      return List.of("cost.x86_64-kvm.TTWU_FULL");
    }

    @Override
    public ReproductionResult run(ReproductionOptions options) {
      double ttwu = options.profile("x86_64-kvm").costs().value(CostKey.TTWU_FULL);
      int level = options.parameter(LEVEL).orElse(5);
      boolean b = options.parameter(MODE).orElse("a").equals("b");
      long seed = options.parameter(SEED).orElse(1L);
      double baseline = 100 + 10 * level + ttwu / 100 + (seed % 3);
      double patched = baseline * (1 + 0.02 * level) + (b ? 5 : 0);
      List<org.lockvisor.studies.envelope.Band> bands = List.of(
          org.lockvisor.studies.envelope.Band.baseline("baseline.iops", "baseline IOPS", 150, 120, 180, baseline),
          org.lockvisor.studies.envelope.Band.heldOut("patched.iops", "patched IOPS", "patched", 170, 140, 200, patched),
          org.lockvisor.studies.envelope.Band.heldOut("ratio", "patched/baseline", "ratio", 1.1, 1.05, 1.15,
              patched / baseline));
      return ReproductionResult.of(name(), true, "fake envelope " + level, List.of(),
          ImmutableMap.of("baseline", baseline)).withBands(bands);
    }
  }

  /**
   * Calibratable: its baseline figure falls with the x86_64-kvm TTWU_FULL cost it declares for
   * --calibrate; the published baseline is the figure at 1200 ns, the patched column halves the cost.
   */
  public static final class Calibratable implements Reproduction {
    static final ReproductionParameter<Long> SEED = ReproductionParameter.seed("the seed");

    static double figure(double ttwuNs, long seed) {
      return 1e6 / (ttwuNs + 300) * (1 + 0.002 * new java.util.SplittableRandom(seed).nextGaussian());
    }

    @Override
    public String name() {
      return "fake-calibratable";
    }

    @Override
    public String summary() {
      return "a baseline figure set by TTWU_FULL";
    }

    @Override
    public List<ReproductionParameter<?>> parameters() {
      return List.of(SEED);
    }

    @Override
    public Set<String> archProfiles() {
      return Set.of("x86_64-kvm");
    }

    @Override
    public List<String> calibrationParameters() {
      return List.of("cost.x86_64-kvm.TTWU_FULL");
    }

    @Override
    public ReproductionResult run(ReproductionOptions options) {
      double ttwu = options.profile("x86_64-kvm").costs().value(CostKey.TTWU_FULL);
      long seed = options.parameter(SEED).orElse(0L);
      double base = figure(ttwu, seed);
      double patched = figure(ttwu / 2, seed);
      double published = 1e6 / 1500;
      return ReproductionResult.of(name(), true, "fake", List.of(), ImmutableMap.of()).withBands(List.of(
          org.lockvisor.studies.envelope.Band.baseline("base.rate", "baseline rate", published, 0.9 * published,
              1.1 * published, base),
          org.lockvisor.studies.envelope.Band.heldOut("patched.rate", "patched rate", "patched", 1e6 / 900, 1e6 / 1000,
              1e6 / 800, patched)));
    }
  }
}
