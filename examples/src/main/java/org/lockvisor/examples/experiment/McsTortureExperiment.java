package org.lockvisor.examples.experiment;

import java.util.List;
import java.util.Map;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.experiment.runner.ExperimentRunner;
import org.lockvisor.reports.LockStatReport;

/**
 * locktorture on the third-party {@code mcs} spinlock (registered by this jar with AutoService)
 * against the built-in {@code qspinlock}, built with the fluent builder: 4 writers in a 4-vCPU
 * guest on 4 dedicated physical CPUs. Prints each run's locktorture line and lock_stat table.
 *
 * <pre>
 * java -cp lockvisor.jar:lockvisor-examples.jar org.lockvisor.examples.experiment.McsTortureExperiment
 * </pre>
 */
public final class McsTortureExperiment {

  private McsTortureExperiment() {}

  /** The experiment: base on {@code mcs}, variant {@code qspinlock}. */
  public static Experiment experiment() {
    return Experiment.builder("mcs-torture")
        .arch("x86_64-kvm")
        .seed(3)
        .warmupNs(1_000_000)
        .durationNs(10_000_000)
        .host(4, "cfs")
        .vm("vm0", vm -> vm.vcpus(4).pinning(0, 1, 2, 3).spinlock("mcs")
            .workload("torture", "locktorture", Map.of("nwriters", "4", "hold-ns", "1us", "think-ns", "1us",
                "think-jitter-ns", "2us")))
        .variant("qspinlock", Map.of("vms[0].locks.spinlock", "qspinlock"))
        .build();
  }

  /** Runs the base and the variant with every plugin on {@code loader}'s class path. */
  public static List<ExperimentResult> run(ClassLoader loader) {
    ExperimentRunner runner = new ExperimentRunner(ExperimentPlugins.discover(loader));
    return runner.runAll("McsTortureExperiment", experiment());
  }

  public static void main(String[] args) {
    for (ExperimentResult r : run(McsTortureExperiment.class.getClassLoader())) {
      System.out.println("== " + r.variant() + ": " + r.workload("vm0", "torture").nativeReport().get("stats"));
      LockStatReport.of(r.lockStat()).lines().forEach(System.out::println);
    }
  }
}
