package org.lockvisor.reproductions.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.lockvisor.core.plugin.DidYouMean;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.experiment.model.ExperimentYaml;
import org.lockvisor.experiment.model.InvalidExperimentException;
import org.lockvisor.experiment.model.Problem;
import org.lockvisor.experiment.runner.ExperimentRunner;

/**
 * The experiment-path part of {@link WhatIf#parse}: raw paths of a reproduction's shipped files,
 * the targets of path-bound parameters and the derived bindings' paths ({@link DerivedBindings}),
 * each checked by the path language ({@code ExperimentYaml.set}) and every shipped file, with all
 * of them applied, by the runner's validator, before anything runs.
 *
 * <p>Split out of {@link WhatIf}: both refuse a setting through {@link SetErrors}; this class never calls {@code WhatIf}.
 */
final class WhatIfPaths {

  private WhatIfPaths() {}

  /**
   * A raw experiment path of the reproduction's shipped files ({@code vms[0].vcpus=2}): a name
   * without {@code .} or {@code [} must be a parameter or a key the files have at the top, so that
   * a misspelt parameter is named as one.
   */
  static void path(String s, String key, String value, Reproduction r, Set<String> declared,
      Map<String, String> paths, ExperimentRunner runner) {
    List<String> files = r.experimentFiles();
    if (files.isEmpty()) {
      throw SetErrors.bad(s, declared.isEmpty()
          ? "reproduction [" + r.name() + "] declares no parameters; " + SetErrors.FORMS.substring(0, SetErrors.FORMS.indexOf(" or "))
              + " is the only form it takes"
          : DidYouMean.unknownMessage(r.name() + " parameter", key, declared));
    }
    if (key.indexOf('.') < 0 && key.indexOf('[') < 0) {
      Set<String> top = new TreeSet<>();
      for (String file : files) {
        shipped(r, file).fieldNames().forEachRemaining(top::add);
      }
      if (!top.contains(key)) {
        Set<String> known = new TreeSet<>(declared);
        known.addAll(top);
        throw SetErrors.bad(s, DidYouMean.unknownMessage(r.name() + " parameter or experiment key", key, known)
            + "; deeper experiment paths as in run --set, e.g. vms[0].vcpus=2");
      }
    }
    checkPath(s, key, value, r, runner);
    if (paths.put(key, value) != null) {
      throw SetErrors.bad(s, "path [" + key + "] is given twice; give each path once");
    }
  }

  /**
   * {@code path=value} applied to every shipped file of {@code r}: the path language's own checks
   * (segments, indexes, the value's YAML). The experiment validator sees the settings together,
   * once, in {@link #validatePaths}.
   */
  static void checkPath(String s, String path, String value, Reproduction r, ExperimentRunner runner) {
    for (String file : r.experimentFiles()) {
      Problem problem = ExperimentYaml.set(shipped(r, file), path, value);
      if (problem != null) {
        throw SetErrors.bad(s, problem.toString());
      }
    }
  }

  /**
   * Every shipped file of {@code r} with all the experiment paths applied (the derived bindings'
   * paths {@code derived} of the file first, as {@link WhatIf#pathsOf(Reproduction, String,
   * boolean, java.util.function.Function)} applies them), validated by {@code runner} as {@code
   * run --set} is (one validation per file, however many settings). When the file is refused, the
   * first setting refused on its own is named; settings refused only together are named together.
   */
  static void validatePaths(Map<String, String> paths, Map<String, Map<String, String>> filePaths,
      Map<String, Map<String, String>> derived, Map<String, String> parameters, List<String> given, Reproduction r,
      ExperimentRunner runner) {
    for (String file : r.experimentFiles()) {
      ObjectNode all = shipped(r, file);
      Map<String, String> own = derived.getOrDefault(file, Map.of());
      own.forEach((path, value) -> ExperimentYaml.set(all, path, value));
      paths.forEach((path, value) -> ExperimentYaml.set(all, path, value)); // checked by checkPath
      filePaths.getOrDefault(file, Map.of()).forEach((path, value) -> ExperimentYaml.set(all, path, value));
      InvalidExperimentException together = invalid(runner, file, all);
      if (together == null) {
        continue;
      }
      for (String s : given) {
        String path = s.substring(0, s.indexOf('='));
        String value = paths.get(path);
        if (value == null || parameters.containsKey(path)) { // a bound parameter: its targets are tried below
          continue;
        }
        ObjectNode alone = shipped(r, file);
        ExperimentYaml.set(alone, path, value);
        InvalidExperimentException e = invalid(runner, file, alone);
        if (e != null) {
          throw SetErrors.bad(s, "in shipped experiment " + file + ".yaml: " + e.problems().get(0));
        }
      }
      for (ReproductionParameter<?> p : r.parameters()) {
        String value = parameters.get(p.name());
        if (value == null || p.targets().stream().noneMatch(t -> t.appliesTo(file))) {
          continue;
        }
        ObjectNode alone = shipped(r, file);
        p.targets().stream().filter(t -> t.appliesTo(file))
            .forEach(t -> ExperimentYaml.set(alone, t.path(), t.value().apply(value)));
        InvalidExperimentException e = invalid(runner, file, alone);
        if (e != null) {
          throw SetErrors.bad(p.name() + "=" + value, "in shipped experiment " + file + ".yaml: " + e.problems().get(0));
        }
      }
      if (!own.isEmpty()) {
        ObjectNode alone = shipped(r, file);
        own.forEach((path, value) -> ExperimentYaml.set(alone, path, value));
        InvalidExperimentException e = invalid(runner, file, alone);
        if (e != null) {
          throw new UserInputException("--set " + inputsGiven(r, parameters) + ": in shipped experiment " + file
              + ".yaml, the derived paths " + own + ": " + e.problems().get(0));
        }
      }
      throw new UserInputException("--set: the settings " + given + " together: in shipped experiment " + file
          + ".yaml: " + together.problems().get(0));
    }
  }

  /**
   * The derived bindings' paths of every shipped file of {@code r} for the given parameters at this
   * scale, by file (only files with any); a raw path or a parameter's own target that a binding
   * with an input given also writes is refused (the path would be given twice).
   *
   * @throws UserInputException when a binding's function refuses the values, or a path is given twice
   */
  static Map<String, Map<String, String>> derived(Reproduction r, Map<String, String> parameters,
      Map<String, String> paths, Map<String, Map<String, String>> filePaths, boolean quick,
      java.util.function.Function<String, org.lockvisor.arch.spi.ArchProfile> profiles) {
    DerivedBindings bindings = r.derivedBindings();
    bindings.check(r);
    Map<String, Map<String, String>> out = new java.util.LinkedHashMap<>();
    for (String file : r.experimentFiles()) {
      Map<String, String> own;
      try {
        own = bindings.paths(file, parameters, quick, profiles);
      } catch (UserInputException e) {
        throw new UserInputException("--set " + inputsGiven(r, parameters) + ": " + e.getMessage());
      }
      for (DerivedBindings.Binding b : bindings.bindings()) {
        if (!own.containsKey(b.path()) || b.inputs().stream().noneMatch(parameters::containsKey)) {
          continue; // written for the scale only: a raw path given by the user takes precedence
        }
        if (paths.containsKey(b.path()) || filePaths.getOrDefault(file, Map.of()).containsKey(b.path())) {
          throw new UserInputException("--set [" + b.path() + "]: in " + file + ".yaml it is also derived from "
              + b.inputs() + ", given " + inputsGiven(r, parameters) + "; give it once");
        }
      }
      if (!own.isEmpty()) {
        out.put(file, own);
      }
    }
    return out;
  }

  /** {@code [vps=6, smt=2]}: the given parameters that are inputs of derived bindings. */
  private static String inputsGiven(Reproduction r, Map<String, String> parameters) {
    List<String> given = new java.util.ArrayList<>();
    parameters.forEach((name, value) -> {
      if (r.derivedBindings().inputs().containsKey(name)) {
        given.add(name + "=" + value);
      }
    });
    return given.isEmpty() ? "(none: the defaults of the scale)" : given.toString();
  }

  private static InvalidExperimentException invalid(ExperimentRunner runner, String file, ObjectNode tree) {
    try {
      runner.validateTree(file + ".yaml", tree);
      return null;
    } catch (InvalidExperimentException e) {
      return e;
    }
  }

  static ObjectNode shipped(Reproduction r, String file) {
    return (ObjectNode) ExperimentYaml.parse(file + ".yaml", r.experimentFile(file));
  }
}
