package org.lockvisor.reproductions.vcpupreempted;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.reproductions.api.ExperimentRun;
import org.lockvisor.reproductions.api.ReproductionOptions;
import org.lockvisor.reproductions.api.ReproductionResult;
import org.lockvisor.reproductions.api.ReproductionRuns;
import org.lockvisor.reproductions.api.WhatIf;
import org.lockvisor.reproductions.report.RunDirectories;
import org.lockvisor.studies.envelope.Band;
import org.lockvisor.workloads.schedmessaging.SchedMessagingConfig;

/**
 * R3 end to end: the vcpu_is_preempted check must make the optimistic-spin symbols collapse in
 * the guest-sampled profile of sched messaging on an overcommitted PowerVM LPAR, raise the
 * hypervisor's share, and move the same way on KVM. Directions and bands, never a number copied
 * from the simulator's own output.
 */
class VcpuPreemptedReproductionTest {

  @Test
  void quick_checkOn_spinSymbolsCollapseAndHypervisorShareRises(@TempDir Path out) throws Exception {
    long t0 = System.nanoTime();
    // Captured, as reproduce --out does, so that the page's pictures can be checked without running again.
    RunDirectories runs = new RunDirectories(out, "test", "test");
    VcpuPreemptedReproduction reproduction = new VcpuPreemptedReproduction();
    ReproductionResult r = reproduction.run(new ReproductionOptions(true, Optional.of(out), runs, WhatIf.NONE));
    assertThat(r.bands()).filteredOn(Band::baselineOnly).extracting(Band::key).containsExactly("baseline.osq_lock",
        "baseline.rwsem_spin_on_owner", "baseline.mutex_spin_on_owner", "baseline.spin_total");
    assertThat(r.bands()).filteredOn(b -> !b.baselineOnly()).hasSize(5);
    assertThat(r.bands()).extracting(Band::key).containsExactlyElementsOf(reproduction.bandKeys());
    assertThat(r.bands()).filteredOn(b -> b.key().startsWith("baseline."))
        .allSatisfy(b -> assertThat(b.simulated()).isEqualTo(r.metrics().get(b.key())));
    double seconds = (System.nanoTime() - t0) / 1e9;
    r.report().forEach(System.out::println);
    System.out.println(r.headline() + " in " + seconds + " s");
    // wall time is reported, not asserted: speed is measured with JMH in benchmarks/, not by timed tests
    perfReportsShowTheJsonShares(out, r);
    VcpuPreemptedPageCheck.check(r, reproduction.summary(), out, runs);
    var m = r.metrics();

    // baseline: the spinners burn a visible share of the guest's samples. At this scale (4
    // processors, 6 groups) the 4.8 guest's placement and balancing (issue 17) leave no OSQ
    // convoy: 6.8-10.4 % per seed, mostly mutex_spin_on_owner, below the seed's 20-45 % band
    // (docs/reproductions/vcpu-preempted.md); the default scale keeps the band checks.
    assertThat(m.get("baseline.spin_total")).isGreaterThan(5);
    assertThat(m.get("baseline.spin_total")).isGreaterThan(10 * m.get("patched.spin_total"));
    // patched: every spin symbol below 1.5 %, mutex_unlock's share not down, [H] in 2-10 %
    for (String s : VcpuPreemptedReproduction.SPIN) {
      assertThat(m.get("patched." + s)).as(s).isLessThan(1.5);
    }
    assertThat(m.get("patched.mutex_unlock")).isGreaterThanOrEqualTo(m.get("baseline.mutex_unlock"));
    assertThat(m.get("patched.[H]")).isBetween(2.0, 10.0);
    // the check removes wasted spinning, so the benchmark finishes sooner
    assertThat(m.get("patched.runtime_s")).isLessThan(m.get("baseline.runtime_s"));
    // KVM 2x overcommit: same direction
    assertThat(m.get("x86_64-kvm.patched.spin_total")).isLessThan(m.get("x86_64-kvm.baseline.spin_total") / 2);

    // the issue's JSON shape and one perf report per variant
    @SuppressWarnings("unchecked")
    Map<String, Object> profiles = (Map<String, Object>) r.data().get("profiles");
    assertThat(profiles).containsKeys("baseline", "patched");
    assertThat((List<?>) profiles.get("baseline")).isNotEmpty();
    assertThat(r.data()).containsKeys("published", "runtimeSeconds", "x86_64-kvm");
    for (String v : List.of("baseline", "patched")) {
      String text = Files.readString(out.resolve(v).resolve("perf-report.txt"));
      assertThat(text).contains("# Overhead  Command").contains("[k] ");
    }
    assertThat(Files.readString(out.resolve("patched").resolve("perf-report.txt"))).contains("[H] ");
  }

  /**
   * The perf-report.txt files show the shares the JSON reports: each JSON share is the mean over
   * the seeds of what the seed's perf-report.txt shows for the symbol (every [H] line together for
   * [H]), read back from the text by its columns.
   */
  private static void perfReportsShowTheJsonShares(Path out, ReproductionResult r) throws Exception {
    // The data is what `reproduce --format json` prints under "profiles" (serialized as is).
    @SuppressWarnings("unchecked")
    Map<String, List<Map<String, Object>>> profiles = (Map<String, List<Map<String, Object>>>) r.data().get("profiles");
    for (String v : List.of("baseline", "patched")) {
      List<List<String[]>> seeds = new java.util.ArrayList<>();
      for (long seed : VcpuPreemptedReproduction.SEEDS) {
        seeds.add(perfLines(Files.readString(out.resolve(v).resolve("seed-" + seed).resolve("perf-report.txt"))));
      }
      assertThat(Files.readString(out.resolve(v).resolve("perf-report.txt")))
          .isEqualTo(Files.readString(out.resolve(v).resolve("seed-" + VcpuPreemptedReproduction.SEEDS.get(0))
              .resolve("perf-report.txt")));
      List<Map<String, Object>> rows = profiles.get(v);
      assertThat(rows.size()).isGreaterThan(5);
      for (Map<String, Object> row : rows) {
        String symbol = (String) row.get("symbol");
        double mean = 0;
        int lines = 0;
        for (List<String[]> seed : seeds) {
          for (String[] l : seed) {
            boolean hypervisor = l[1].equals("H");
            if (symbol.equals("[H]") ? hypervisor : !hypervisor && l[2].equals(symbol)) {
              mean += Double.parseDouble(l[0]) / seeds.size();
              lines++;
            }
          }
        }
        // The text rounds each line to 0.01 %, the JSON the mean to 0.01 %.
        assertThat(mean).as(v + " " + symbol).isCloseTo(((Number) row.get("percent")).doubleValue(),
            org.assertj.core.api.Assertions.within(0.005 + 0.005 * lines / seeds.size() + 1e-9));
      }
      assertThat(((Number) rows.get(0).get("percent")).doubleValue()).isPositive();
    }
  }

  /** perf report lines as {percent, marker, symbol}, by the header's columns. */
  private static List<String[]> perfLines(String text) {
    List<String[]> out = new java.util.ArrayList<>();
    int symAt = -1;
    for (String line : text.split("\n")) {
      if (line.startsWith("# Overhead")) {
        symAt = line.indexOf("Symbol");
      } else if (!line.startsWith("#") && !line.isBlank()) {
        String pct = line.substring(0, line.indexOf('%')).trim();
        String sym = line.substring(symAt);
        assertThat(sym).matches("\\[[k.H]\\] .+");
        out.add(new String[] {pct, sym.substring(1, 2), sym.substring(4)});
      }
    }
    return out;
  }

  @Test
  void noOvercommit_spinnersRarelySpinAndTheCheckChangesLittle() {
    // as many processors in the pool as VPs: no VP waits for a processor, so nobody spins on a
    // preempted owner and the check has nothing to act on
    ReproductionOptions options = new ReproductionOptions(false, Optional.empty(), ReproductionRuns.NONE,
        WhatIf.parse(List.of("vps=8", "pool-cpus=8"), List.of(R3), false));
    var scale = new Scale(8, 4, 4, 4, 30_000_000_000L);
    var lpar = VcpuPreemptedReproduction.powervm(options, scale);
    var runner = options.runner();
    var experiment = lpar.experiment().experiment(runner);
    Outcome off = Outcome.of(runner.run(experiment, "base"), lpar.vm());
    Outcome on = Outcome.of(runner.run(org.lockvisor.experiment.model.ExperimentYaml.variant(experiment, "patched"),
        "patched"), lpar.vm());
    assertThat(off.figures().get("exited").intValue()).isEqualTo(off.figures().get("tasks").intValue());
    assertThat(VcpuPreemptedReproduction.spin(off.report())).isLessThan(5);
    assertThat(on.totalTimeSeconds()).isCloseTo(off.totalTimeSeconds(),
        org.assertj.core.api.Assertions.withinPercentage(10));
  }

  private static final VcpuPreemptedReproduction R3 = new VcpuPreemptedReproduction();

  /** Quick options with the what-if {@code --set} settings, parsed and checked as the CLI does. */
  private static ReproductionOptions whatIf(ReproductionRuns runs, String... settings) {
    return new ReproductionOptions(true, Optional.empty(), runs, WhatIf.parse(List.of(settings), List.of(R3), false,
        true, ReproductionOptions.classPathRunner()));
  }

  @Test
  void groupsParameter_notANumber_userInputErrorNamingTheValueAndTheAllowedRange() {
    assertThatThrownBy(() -> whatIf(ReproductionRuns.NONE, "groups=many"))
        .isInstanceOf(UserInputException.class)
        .hasMessageContaining("[groups=many]")
        .hasMessageContaining("[many]")
        .hasMessageContaining("[1, 100000]");
  }

  @Test
  void smtParameter_notAnSmtMode_userInputErrorWithTheAllowedValues() {
    assertThatThrownBy(() -> whatIf(ReproductionRuns.NONE, "smt=3"))
        .isInstanceOf(UserInputException.class)
        .hasMessageContaining("[3]")
        .hasMessageContaining("[1, 2, 4, 8]");
  }

  @Test
  void lparLargerThanThePoolCanEntitle_refusedBeforeAnySimulation() {
    List<String> started = new ArrayList<>();
    ReproductionRuns runs = new ReproductionRuns() {
      @Override
      public void planned(int n) {
        started.add("planned " + n);
      }
    };
    // 32 VPs at 0.5 units each need 16 processors; a pool with 8 free cannot entitle them
    assertThatThrownBy(() -> R3.run(whatIf(runs, "vps=32", "pool-cpus=8")))
        .isInstanceOf(UserInputException.class)
        .hasMessageContaining("[16.0]")
        .hasMessageContaining("[8]");
    assertThat(started).isEmpty();
  }

  @Test
  void lparSizeAndPoolParameters_reachThePowervmRun() {
    ReproductionResult r = R3.run(whatIf(ReproductionRuns.NONE, "groups=2", "seeds=7", "vps=6", "pool-cpus=3"));
    assertThat(r.report().get(0)).contains("6 VPs on 3 processors, entitlement 3.0 units");
  }

  @Test
  void optionsWithABadParameterValue_refusedBeforeAnySimulation() {
    // options built without WhatIf.parse (a program calling run directly): the reproduction parses
    // every parameter before its first run
    List<String> started = new ArrayList<>();
    ReproductionRuns runs = new ReproductionRuns() {
      @Override
      public void planned(int n) {
        started.add("planned " + n);
      }
    };
    WhatIf bad = new WhatIf(ImmutableList.of("wake-affine=yes"), ImmutableMap.of(), ImmutableMap.of("wake-affine", "yes"));
    assertThatThrownBy(() -> R3.run(new ReproductionOptions(true, Optional.empty(), runs, bad)))
        .isInstanceOf(UserInputException.class)
        .hasMessageContaining("[yes]")
        .hasMessageContaining("true or false");
    assertThat(started).isEmpty();
  }

  @Test
  void groupsAndSeedsParameters_reachEveryRun() {
    List<String> labels = Collections.synchronizedList(new ArrayList<>());
    ReproductionRuns runs = new ReproductionRuns() {
      @Override
      public void done(ExperimentRun run) {
        labels.add(run.label());
      }
    };
    ReproductionResult r = R3.run(whatIf(runs, "groups=2", "seeds=7"));
    // -g 2 on the PowerVM LPAR (the KVM runs keep their own -g), seed 7 for every variant
    String kvm = "x86_64-kvm-groups" + VcpuPreemptedReproduction.QUICK.kvmGroups();
    assertThat(labels).containsExactlyInAnyOrder("ppc64-powervm-groups2-baseline-seed7",
        "ppc64-powervm-groups2-patched-seed7", kvm + "-baseline-seed7", kvm + "-patched-seed7");
    assertThat(r.report().get(0)).startsWith("perf bench sched messaging -p -g 2 (");
    assertThat(r.report()).anyMatch(l -> l.contains("over 1 seeds [7]"));
    assertThat(r.report().get(0)).contains("(" + SchedMessagingConfig.perfDefaults().withGroups(2).tasks() + " tasks)");
  }

    /** The default (non-quick) reproduction; run with -Dlockvisor.fullReproductions=true (about a minute on two cores). */
  @Test
  @EnabledIfSystemProperty(named = "lockvisor.fullReproductions", matches = "true")
  void full_underThreeMinutes() {
    long t0 = System.nanoTime();
    ReproductionResult r = new VcpuPreemptedReproduction().run(ReproductionOptions.defaults());
    double seconds = (System.nanoTime() - t0) / 1e9;
    r.report().forEach(System.out::println);
    System.out.println(r.headline() + " in " + seconds + " s, max heap " + Runtime.getRuntime().maxMemory());
    assertThat(r.metrics().get("patched.spin_total")).isLessThan(r.metrics().get("baseline.spin_total") / 4);
  }

  @Test
  void derivedBindings_atTheFullDefaults_areWhatTheShippedFileHolds() {
    R3.derivedBindings().check(R3);
    // the LPAR of the full scale: 16 VPs of one thread on 8 processors, 0.5 units per VP (the profile's)
    var runner = ReproductionOptions.classPathRunner();
    var shipped = org.lockvisor.reproductions.support.ShippedExperiment
        .load(new VcpuPreemptedReproduction(), VcpuPreemptedReproduction.POWERVM_FILE);
    Map<String, String> defaults = Map.of("vps", "16", "pool-cpus", "8", "smt", "1");
    var derived = shipped;
    for (var e : R3.derivedBindings().paths(VcpuPreemptedReproduction.POWERVM_FILE, defaults, false,
        n -> ReproductionOptions.defaults().profile(n)).entrySet()) {
      derived = derived.with(e.getKey(), e.getValue());
    }
    var a = shipped.experiment(runner);
    var b = derived.experiment(runner);
    assertThat(b.host().cpus()).isEqualTo(a.host().cpus()).isEqualTo(8);
    assertThat(b.vms().get(0).vcpus()).isEqualTo(a.vms().get(0).vcpus()).isEqualTo(16);
    assertThat(Double.parseDouble(b.host().scheduler().options().get("entitlement")))
        .isEqualTo(Double.parseDouble(a.host().scheduler().options().get("entitlement"))).isEqualTo(16 * 0.5);
    assertThat(b.vms().get(0).kernel().threadsPerCore()).isEqualTo(a.vms().get(0).kernel().threadsPerCore())
        .isEqualTo(1);
    assertThat(b.host().scheduler().options().getOrDefault("smt", "1")).isEqualTo("1");
    // and nothing is written at the full scale unless an input is set; --quick writes the quick LPAR
    assertThat(R3.derivedBindings().paths(VcpuPreemptedReproduction.POWERVM_FILE, Map.of(), false,
        n -> ReproductionOptions.defaults().profile(n))).isEmpty();
    assertThat(R3.derivedBindings().paths(VcpuPreemptedReproduction.POWERVM_FILE, Map.of(), true,
        n -> ReproductionOptions.defaults().profile(n))).containsExactly(Map.entry("host.cpus", "4"),
        Map.entry("host.scheduler-options.entitlement", String.valueOf(8 * 0.5)), Map.entry("vms[0].vcpus", "8"));
  }

  @Test
  void lparParameters_badValueOrEntitlementOverThePool_oneLineFromParse() {
    assertThatThrownBy(() -> whatIf(ReproductionRuns.NONE, "vps=0"))
        .isInstanceOf(UserInputException.class).hasMessageContaining("[vps=0]").hasMessageContaining("[1, 160]");
    // --quick: the pool's default is 4 processors, which 12 VPs (6 units) exceed
    assertThatThrownBy(() -> whatIf(ReproductionRuns.NONE, "vps=12"))
        .isInstanceOf(UserInputException.class)
        .hasMessageContaining("[vps=12]")
        .hasMessageContaining("[6.0]")
        .hasMessageContaining("[4]")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    // the full scale's pool (8) entitles them
    WhatIf.parse(List.of("vps=12"), List.of(R3), false);
  }
}
