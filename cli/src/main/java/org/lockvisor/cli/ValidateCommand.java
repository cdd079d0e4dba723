package org.lockvisor.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.lockvisor.reproductions.api.WhatIf;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.runner.Runner;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code lockvisor validate FILE}: checks an experiment (keys, types, ranges, plugins and their
 * options, contradictions, every variant, and that the machine can be assembled) without running
 * it. Exit 0 when valid; 2 with one line per problem otherwise.
 */
@Command(name = "validate", mixinStandardHelpOptions = true,
    description = "Checks an experiment file without running it; prints every problem with its path.")
public final class ValidateCommand implements Callable<Integer> {

  @ParentCommand
  private Lockvisor lockvisor;

  @Spec
  private CommandSpec spec;

  @Parameters(index = "0", paramLabel = "FILE", description = "Experiment YAML file.")
  private Path file;

  @Option(names = "--set", paramLabel = "PATH=VALUE",
      description = {"Override a value before validating, e.g. vms[0].locks.spinlock=ticket (repeatable).",
          "cost.<profile>.<COST_KEY>=<number> is checked as run takes it (a cost what-if), so a run's command"
              + " line validates as it runs."})
  private List<String> sets = new ArrayList<>();

  @Option(names = "--max-memory", paramLabel = "SIZE",
      description = "Refuse, before building, a machine whose estimated heap exceeds SIZE, e.g. 512m or 2g"
          + " (default and ceiling: three quarters of the JVM's maximum heap).")
  private String maxMemory;

  @Override
  public Integer call() {
    Runner runner = lockvisor.injector().getInstance(Runner.class);
    runner.limitBuilding(Long.MAX_VALUE, "");
    CheckOptions.limitMemory(runner, maxMemory, 1);
    Experiment e = runner.validateTree(file.toString(), ExperimentFiles.load(file, CostSettings.paths(sets), null));
    // the cost what-ifs run accepts (--set cost.<profile>.<KEY>=N), checked by the same code
    WhatIf whatIf = CostSettings.parse(CostSettings.costs(sets), e, runner);
    PrintWriter out = spec.commandLine().getOut();
    out.println(file + ": valid experiment [" + e.name() + "] with " + e.vms().size() + " VM(s)"
        + (e.variants().isEmpty() ? "" : " and variants " + e.variants().keySet())
        + (whatIf.isEmpty() ? "" : "; " + CostSettings.label(whatIf)));
    out.flush();
    return Lockvisor.EXIT_OK;
  }
}
