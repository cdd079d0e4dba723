package org.lockvisor.reproductions.api;

import static com.google.common.base.Preconditions.checkArgument;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.reports.RunOutputs;

/**
 * One internal run of a reproduction made through the experiment runner: a variant of a shipped
 * experiment file with the reproduction's settings, as {@code lockvisor run} would run it.
 *
 * @param reproduction the reproduction's name
 * @param label the run's name, unique within the reproduction (its directory under {@code runs/})
 * @param baselineLabel the label of the run its folded stacks are diffed against, or {@code null}
 * @param source where the experiment came from, e.g. {@code r1-vhost-wakeup.yaml
 *     --set vms[0].workloads[0].options.streams=64 --variant patched}
 * @param tree the experiment tree as run (the shipped file with every setting applied), hashed
 *     into the provenance
 * @param experiment the experiment of {@code tree}, the variant not applied
 * @param plugins the plugins that built the machine (for the provenance)
 * @param result the run's result
 * @param outputs the run's files when the runs are captured, {@code null} otherwise
 */
public record ExperimentRun(String reproduction, String label, String baselineLabel, String source, ObjectNode tree, Experiment experiment,
    ExperimentPlugins plugins, ExperimentResult result, RunOutputs outputs) {

  public ExperimentRun {
    checkArgument(label != null && label.matches("[A-Za-z0-9._=-]+"), "run label must be a file name: [%s]", label);
    checkArgument(reproduction != null && source != null && tree != null && experiment != null && plugins != null && result != null,
        "run [%s]: missing part", label);
  }
}
