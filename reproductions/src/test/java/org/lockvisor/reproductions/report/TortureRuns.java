package org.lockvisor.reproductions.report;

import java.util.Map;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.model.ExperimentYaml;
import org.lockvisor.experiment.runner.ExperimentRunner;
import org.lockvisor.reports.RunOutputs;

/** The runs the page tests render: the reports module's {@code RunOutputsTest} experiment, run with its files. */
final class TortureRuns {

  private static final ExperimentPlugins PLUGINS = ExperimentPlugins.discover(TortureRuns.class.getClassLoader());

  private TortureRuns() {}

  /** locktorture, 4 vCPUs on 2 CPUs; variant: ticket spinlock. */
  static Experiment torture() {
    return Experiment.builder("torture").seed(5).warmupNs(500_000).durationNs(4_000_000).host(2, "cfs")
        .vm("vm0", vm -> vm.vcpus(4).pinning(0, 1, 0, 1).spinlock("pv-qspinlock").vcpuIsPreempted(true)
            .workload("torture", "locktorture", Map.of("torture-type", "spin_lock", "nwriters", "6",
                "hold-ns", "2us", "think-ns", "1us", "think-jitter-ns", "2us")))
        .variant("ticket", Map.of("vms[0].locks.spinlock", "ticket"))
        .build();
  }

  static RunOutputs run(Experiment e, String variant, int traceEvents) {
    Experiment v = variant.equals("base") ? e : ExperimentYaml.variant(e, variant);
    RunOutputs o = new RunOutputs(PLUGINS, v.arch(), variant, traceEvents);
    new ExperimentRunner(PLUGINS).run(v, variant, o);
    return o;
  }
}
