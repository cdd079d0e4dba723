package org.lockvisor.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentYaml;
import org.lockvisor.experiment.runner.ExperimentRunner;
import org.lockvisor.experiment.runner.Runner;
import org.lockvisor.reproductions.api.WhatIf;

/**
 * {@code run} and {@code sweep --set cost.<profile>.<COST_KEY>=<number>}: the cost what-ifs of
 * {@code reproduce --set}, parsed and checked by the same code ({@link WhatIf#parseCosts}) and
 * applied to every machine of the experiment built on that profile. Other {@code --set} values
 * are paths into the experiment file.
 */
final class CostSettings {

  private CostSettings() {}

  /** The {@code --set} values that are cost what-ifs. */
  static List<String> costs(List<String> sets) {
    return sets.stream().filter(s -> s.startsWith("cost.")).toList();
  }

  /** The {@code --set} values that are paths into the experiment. */
  static List<String> paths(List<String> sets) {
    return sets.stream().filter(s -> !s.startsWith("cost.")).toList();
  }

  /**
   * The what-if of {@code costs} for {@code e}: each profile must be one the experiment, a variant
   * or a sweep point builds its machine on.
   */
  static WhatIf parse(List<String> costs, Experiment e, Runner runner) {
    if (costs.isEmpty()) {
      return WhatIf.NONE;
    }
    TreeSet<String> used = new TreeSet<>();
    used.add(e.arch());
    for (String variant : e.variants().keySet()) {
      used.add(ExperimentYaml.variant(e, variant).arch());
    }
    List<String> swept = e.sweep().get("arch");
    if (swept != null) {
      used.addAll(swept);
    }
    Map<String, ArchProfile> profiles = new TreeMap<>();
    runner.plugins().arches().forEach((name, f) -> profiles.put(name, f.create()));
    return WhatIf.parseCosts(costs, used, "this experiment (its runs use " + used + ")", profiles);
  }

  /** {@code runner} itself, or one whose profiles carry the what-if's costs. */
  static Runner apply(Runner runner, WhatIf whatIf) {
    // WhatIf#runner's own test: only the plugins of the base reach a what-if's runner
    return whatIf.costs().isEmpty() ? runner : whatIf.runner(new ExperimentRunner(runner.plugins()));
  }

  /**
   * The configuration the provenance hashes: the experiment tree plus, under {@code what-if}, the
   * cost settings, so a what-if run never shares a config hash with the experiment as written.
   */
  static ObjectNode provenanceTree(ObjectNode tree, WhatIf whatIf) {
    if (whatIf.isEmpty()) {
      return tree;
    }
    ObjectNode copy = tree.deepCopy();
    ArrayNode settings = copy.putArray("what-if");
    whatIf.settings().forEach(settings::add);
    return copy;
  }

  /** Text output's first line for a what-if run. */
  static String label(WhatIf whatIf) {
    return WhatIf.LABEL + "costs changed: " + whatIf.describe();
  }
}
