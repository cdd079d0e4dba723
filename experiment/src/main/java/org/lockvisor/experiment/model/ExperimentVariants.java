package org.lockvisor.experiment.model;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.lockvisor.core.plugin.DidYouMean;

/**
 * Experiments derived from a base by overrides in the {@code --set} language ({@link
 * OverridePath}): a named variant and one point of a sweep. Each derived experiment is written
 * to the tree form, overridden, and bound again, so it passes the same key, type and structure
 * checks as a file; its problems carry the variant or point as their path prefix.
 */
final class ExperimentVariants {

  private ExperimentVariants() {}

  /** {@code base} with the overrides of variant {@code name} applied (the variants themselves dropped). */
  static Experiment variant(Experiment base, String name) {
    Map<String, String> overrides = base.variants().get(name);
    if (overrides == null) {
      throw new InvalidExperimentException("", List.of(new Problem("variants", DidYouMean.unknownMessage(
          "variant", name, base.variants().keySet()))));
    }
    ObjectNode tree = ExperimentYamlWriter.toTree(base.withoutSweep());
    tree.remove("variants");
    return applied(tree, overrides, "variants." + name);
  }

  /**
   * One point of a sweep: {@code base} without its sweep and replications, with {@code overrides}
   * applied (its variants kept).
   */
  static Experiment point(Experiment base, Map<String, String> overrides, String label) {
    return applied(ExperimentYamlWriter.toTree(base.withoutSweep()), overrides, label);
  }

  private static Experiment applied(ObjectNode tree, Map<String, String> overrides, String prefix) {
    List<Problem> problems = new ArrayList<>();
    overrides.forEach((path, value) -> {
      Problem p = OverridePath.set(tree, path, value);
      if (p != null) {
        problems.add(p);
      }
    });
    if (!problems.isEmpty()) {
      throw new InvalidExperimentException("", prefixed(prefix, problems));
    }
    try {
      return ExperimentBinder.bind("", tree);
    } catch (InvalidExperimentException e) {
      throw new InvalidExperimentException("", prefixed(prefix, e.problems()));
    }
  }

  static List<Problem> prefixed(String prefix, List<Problem> problems) {
    List<Problem> out = new ArrayList<>();
    for (Problem p : problems) {
      out.add(new Problem(p.path().isEmpty() ? prefix : prefix + "." + p.path(), p.message()));
    }
    return out;
  }
}
