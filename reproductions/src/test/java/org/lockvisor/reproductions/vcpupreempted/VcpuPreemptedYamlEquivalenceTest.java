package org.lockvisor.reproductions.vcpupreempted;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.model.ExperimentYaml;
import org.lockvisor.experiment.runner.AccountWindow;
import org.lockvisor.experiment.report.PerfReport;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.experiment.runner.ExperimentRunner;
import org.lockvisor.experiment.runner.RunObserver;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.machine.Machine;
import org.lockvisor.workloads.schedmessaging.SchedMessagingConfig;

/**
 * examples/experiments/r3-vcpu-preempted.yaml builds the machine of {@code lockvisor reproduce
 * vcpu-preempted} on ppc64-powervm: at the reproduction's quick platform (4 processors, 8 virtual
 * processors) and a window shorter than the benchmark, each variant processes as many events as
 * {@link SchedMessagingRun} for the same seed and the guest-sampled perf report the runner's
 * measurement window gives is the reproduction's, line for line (command, symbol, nanoseconds),
 * so the headline shares are equal, not merely close. Run to completion as the file says ({@code
 * duration: until-done}, checked every 20 ms like the reproduction), each variant ends at the
 * reproduction's event with its {@code Total time}.
 */
class VcpuPreemptedYamlEquivalenceTest {
  static final Path FILE = Path.of("../examples/experiments/r3-vcpu-preempted.yaml");
  static final int CPUS = VcpuPreemptedReproduction.QUICK.powervmCpus();
  static final int GROUPS = 2;
  /** A multiple of the reproduction's 20 ms step, before the benchmark ends. */
  static final long WINDOW_NS = 40_000_000L;
  static final long SEED = VcpuPreemptedReproduction.SEEDS.get(0);
  static final List<String> HEADLINE = List.of("osq_lock", "rwsem_spin_on_owner", "mutex_spin_on_owner",
      "mutex_unlock", "[H]");

  private static final ExperimentRunner RUNNER =
      new ExperimentRunner(ExperimentPlugins.discover(VcpuPreemptedYamlEquivalenceTest.class.getClassLoader()));

  /** The example file at the quick scale, as {@code --set} would change it. */
  private static Experiment quickExample() throws IOException {
    return quickExample(true);
  }

  /** The example file at the quick scale, with the window of the first test or run to completion. */
  private static Experiment quickExample(boolean window) throws IOException {
    ObjectNode tree = (ObjectNode) ExperimentYaml.parse(FILE.toString(), Files.readAllBytes(FILE));
    Map<String, String> overrides = new LinkedHashMap<>();
    overrides.put("seed", SEED + "");
    if (window) {
      overrides.put("duration", WINDOW_NS + "");
    }
    overrides.put("host.cpus", CPUS + "");
    overrides.put("host.scheduler-options.entitlement", (CPUS * 2 * 0.5) + "");
    overrides.put("vms[0].vcpus", (2 * CPUS) + "");
    overrides.put("vms[0].workloads[0].options.groups", GROUPS + "");
    overrides.forEach((path, value) -> assertThat(ExperimentYaml.set(tree, path, value)).isNull());
    return RUNNER.validateTree(FILE.toString(), tree);
  }

  /** The guest-sampled report over the measurement window, as {@code run --out} writes it. */
  private static final class PerfObserver implements RunObserver {
    AccountWindow window;
    PerfReport report;

    @Override
    public void measurementStarted(Machine machine) {
      window = AccountWindow.open(machine);
    }

    @Override
    public void finished(Machine machine, ExperimentResult result, List<KernelLock> locks) {
      report = PerfReport.guest(machine, window.sinceOpened(), machine.vms().get(0), true, "sched-messaging");
    }
  }

  @Test
  void yamlForm_processesTheReproductionsEvents_sameProfileShares() throws IOException {
    Experiment e = quickExample();
    assertThat(e.vms().get(0).kernel().reschedIpi()).isTrue();
    var platform = new SchedMessagingRun.Platform("ppc64-powervm", CPUS, 2 * CPUS);
    SchedMessagingConfig bench = SchedMessagingConfig.perfDefaults().withGroups(GROUPS);
    String[] variants = {"base", "patched"};
    double[] spin = new double[2];
    for (int v = 0; v < 2; v++) {
      PerfObserver observer = new PerfObserver();
      ExperimentResult yaml = RUNNER.run(v == 0 ? e : ExperimentYaml.variant(e, variants[v]), variants[v], observer);
      SchedMessagingRun.Outcome own = SchedMessagingRun.run(platform, v == 1, bench, SEED, WINDOW_NS);

      assertThat(own.workload().finished()).as("the window ends before the benchmark").isFalse();
      assertThat(yaml.events()).as(variants[v] + " events processed").isEqualTo(own.events());
      assertThat(observer.report.lines()).as(variants[v] + " perf report").isEqualTo(own.report().lines());
      for (String symbol : HEADLINE) {
        assertThat(VcpuPreemptedReproduction.share(observer.report, symbol)).as(variants[v] + " " + symbol)
            .isEqualTo(VcpuPreemptedReproduction.share(own.report(), symbol));
      }
      spin[v] = VcpuPreemptedReproduction.spin(observer.report);
    }
    assertThat(spin[0]).as("baseline spins").isGreaterThan(1);
    assertThat(spin[1]).as("the check cuts the spinning").isLessThan(spin[0]);
  }

  @Test
  void untilDone_endsAtTheReproductionsEvent_sameTotalTime() throws IOException {
    Experiment e = quickExample(false);
    assertThat(e.untilDone()).as("the file runs the benchmark to its end").isTrue();
    var platform = new SchedMessagingRun.Platform("ppc64-powervm", CPUS, 2 * CPUS);
    SchedMessagingConfig bench = SchedMessagingConfig.perfDefaults().withGroups(GROUPS);
    String[] variants = {"base", "patched"};
    double[] total = new double[2];
    for (int v = 0; v < 2; v++) {
      PerfObserver observer = new PerfObserver();
      ExperimentResult yaml = RUNNER.run(v == 0 ? e : ExperimentYaml.variant(e, variants[v]), variants[v], observer);
      SchedMessagingRun.Outcome own = SchedMessagingRun.run(platform, v == 1, bench, SEED, e.maxDurationNs());

      assertThat(own.workload().finished()).as(variants[v] + " reproduction finished").isTrue();
      var figures = yaml.workload("lpar", "sched-messaging").figures();
      total[v] = figures.get("total_time_s").doubleValue();
      assertThat(total[v]).as(variants[v] + " Total time").isPositive()
          .isEqualTo(own.workload().totalTimeNs() / 1e9);
      assertThat(figures.get("exited").intValue()).isEqualTo(own.workload().config().tasks());
      assertThat(yaml.finishedNs()).as(variants[v] + " last finish")
          .isEqualTo(own.workload().startNs() + own.workload().totalTimeNs());
      assertThat(yaml.warmupNs() + yaml.simulatedNs()).as(variants[v] + " end of the run").isEqualTo(own.simulatedNs());
      assertThat(yaml.events()).as(variants[v] + " events processed").isEqualTo(own.events());
      assertThat(observer.report.lines()).as(variants[v] + " perf report").isEqualTo(own.report().lines());
    }
    assertThat(total[1]).as("the patched benchmark ends sooner").isLessThan(total[0]);
  }
}
