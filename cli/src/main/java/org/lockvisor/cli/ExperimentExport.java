package org.lockvisor.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.collect.ImmutableList;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.experiment.io.AtomicFiles;
import org.lockvisor.experiment.model.ExperimentYaml;
import org.lockvisor.experiment.runner.ExperimentRunner;
import org.lockvisor.reproductions.api.Reproduction;
import org.lockvisor.reproductions.api.Reproductions;
import org.lockvisor.reproductions.api.WhatIf;
import picocli.CommandLine;

/**
 * {@code lockvisor reproduce NAME|all --export-experiments DIR [--quick] [--set ...]}: the shipped
 * experiment files of the chosen reproductions, with the {@code --set} paths, the path-bound
 * parameters and the derived bindings ({@code Reproduction.derivedBindings()}) applied (checked like
 * {@code run --set}, by {@link WhatIf#parse}), written into DIR; nothing runs; a parameter bound to
 * one file ({@code ReproductionParameter.at(file, path)}) is written into that file only. {@code
 * --quick} takes the derived bindings' inputs at their {@code --quick} defaults (refused where no
 * input has one of its own). A setting a file cannot hold (a cost override, a parameter the
 * reproduction applies itself) is refused.
 */
final class ExperimentExport {

  private static final String ALL = ReproduceCommand.ALL;

  private ExperimentExport() {}

  /** Writes the files; the caller has refused the options of a run. */
  static int write(Lockvisor lockvisor, String target, List<String> settings, boolean quick, Path exportDir,
      boolean force, CommandLine commandLine) {
    if (exportDir.toString().isBlank()) {
      throw new UserInputException("--export-experiments [" + exportDir + "] is empty; give a directory");
    }
    Reproductions registry = lockvisor.injector().getInstance(Reproductions.class);
    ImmutableList<Reproduction> chosen = ALL.equals(target)
        ? registry.all().values().asList()
        : ImmutableList.of(registry.choose(target));
    ExperimentRunner runner = lockvisor.injector().getInstance(ExperimentRunner.class);
    if (quick && chosen.stream().allMatch(r -> r.derivedBindings().inputs().values().stream()
        .allMatch(in -> in.quickDefault().equals(in.fullDefault())))) {
      throw new UserInputException("--quick changes nothing in the exported files of " + target + ": only the"
          + " --quick defaults of derived bindings' inputs are written (the shorter runs of --quick are the"
          + " reproduction's)");
    }
    WhatIf whatIf = WhatIf.parse(settings, chosen, ALL.equals(target), quick, runner);
    if (!whatIf.costs().isEmpty()) {
      throw new UserInputException("--set cost.*: a cost override is not part of an experiment file; give it to"
          + " 'lockvisor run FILE --set cost.<profile>.<KEY>=<number>'");
    }
    for (Reproduction r : chosen) {
      for (var p : r.parameters()) {
        if (whatIf.parameters().containsKey(p.name()) && p.targets().isEmpty()
            && !r.derivedBindings().inputs().containsKey(p.name())) {
          throw new UserInputException("--set [" + p.name() + "=" + whatIf.parameters().get(p.name()) + "]: parameter ["
              + p.name() + "] of " + r.name() + " is applied by the reproduction, not as experiment paths, so no"
              + " exported file can hold it");
        }
      }
    }
    List<Exported> files = new ArrayList<>();
    for (Reproduction r : chosen) {
      for (String file : r.experimentFiles()) {
        files.add(exported(r, file, whatIf.pathsOf(r, file, quick, name -> runner.plugins().arches().get(name)
            .create())));
      }
    }
    if (files.isEmpty()) {
      throw new UserInputException((ALL.equals(target) ? "no reproduction" : "reproduction [" + target + "]")
          + " ships no experiment files");
    }
    OutputDirectory.prepare("--export-experiments", exportDir, force, commandLine.getErr());
    PrintWriter stdout = commandLine.getOut();
    for (Exported f : files) {
      Path file = exportDir.resolve(f.name());
      try {
        AtomicFiles.writeString(file, f.content());
      } catch (IOException e) {
        throw new UserInputException("--export-experiments: cannot write [" + file + "]: " + e.getMessage());
      }
      stdout.println("wrote " + file);
    }
    stdout.flush();
    return Lockvisor.EXIT_OK;
  }

  /** A shipped experiment file as exported: its file name and text. */
  private record Exported(String name, String content) {}

  /**
   * Shipped file {@code file} of {@code r}: as shipped (comments kept) without experiment paths,
   * otherwise the tree with the paths {@code paths} applied (already checked by {@link
   * WhatIf#parse}) under a first comment line naming them.
   */
  private static Exported exported(Reproduction r, String file, Map<String, String> paths) {
    byte[] content = r.experimentFile(file);
    if (paths.isEmpty()) {
      return new Exported(file + ".yaml", new String(content, StandardCharsets.UTF_8));
    }
    ObjectNode tree = (ObjectNode) ExperimentYaml.parse(file + ".yaml", content);
    StringBuilder header = new StringBuilder("# " + file + ".yaml of reproduction " + r.name() + ", exported with");
    paths.forEach((path, value) -> {
      ExperimentYaml.set(tree, path, value);
      header.append(" --set ").append(path).append('=').append(value);
    });
    header.append(" (the shipped file's comments: export without --set)").append('\n');
    return new Exported(file + ".yaml", header + ExperimentYaml.writeTree(tree));
  }
}
