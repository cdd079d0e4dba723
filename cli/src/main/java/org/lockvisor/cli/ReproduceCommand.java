package org.lockvisor.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.google.common.collect.ImmutableList;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Optional;
import org.lockvisor.experiment.Reproduction;
import org.lockvisor.experiment.ReproductionOptions;
import org.lockvisor.experiment.ReproductionResult;
import org.lockvisor.experiment.Reproductions;
import org.lockvisor.experiment.SimulationFailedException;
import org.lockvisor.experiment.io.AtomicFiles;
import org.lockvisor.experiment.report.ReproductionPage;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code lockvisor reproduce <name>|all}: runs registered reproductions and judges them. Exit 0
 * when every one reproduced; 1 when any simulation failed or did not reproduce; 2 for an unknown
 * name.
 */
@Command(name = "reproduce", mixinStandardHelpOptions = true,
    description = "Runs one registered reproduction, or all of them, and prints the verdicts.")
public final class ReproduceCommand implements java.util.concurrent.Callable<Integer> {

  static final String ALL = "all";

  @ParentCommand
  private Lockvisor lockvisor;

  @Spec
  private CommandSpec spec;

  @Parameters(index = "0", paramLabel = "<name>|all", description = "A reproduction name, or 'all'.")
  private String target;

  @Option(names = "--quick", description = "Shorter runs: checks direction, with wider bands.")
  private boolean quick;

  @Option(names = "--format", paramLabel = "text|json", defaultValue = "text",
      converter = OutputFormat.Converter.class, description = "Output format (default: ${DEFAULT-VALUE}).")
  private OutputFormat format;

  @Option(names = "--out", paramLabel = "DIR",
      description = "Write <name>.json per reproduction, and its own artefacts under <name>/, into DIR.")
  private Path out;

  @Override
  public Integer call() {
    OutputDirectory.prepare("--out", out);
    Reproductions registry = lockvisor.injector().getInstance(Reproductions.class);
    ImmutableList<Reproduction> chosen = ALL.equals(target)
        ? registry.all().values().asList()
        : ImmutableList.of(registry.choose(target));
    PrintWriter stdout = spec.commandLine().getOut();
    PrintWriter stderr = spec.commandLine().getErr();
    if (chosen.isEmpty()) {
      stdout.println(format == OutputFormat.JSON ? "[]" : "no reproductions are registered");
      stdout.flush();
      return Lockvisor.EXIT_OK;
    }

    ArrayNode json = Json.MAPPER.createArrayNode();
    boolean allReproduced = true;
    for (Reproduction reproduction : chosen) {
      String name = reproduction.name();
      ReproductionResult result;
      try {
        result = reproduction.run(new ReproductionOptions(quick, Optional.ofNullable(out).map(d -> d.resolve(name))));
      } catch (SimulationFailedException e) {
        // Keep going: one broken reproduction must not hide the verdicts of the others.
        allReproduced = false;
        String error = "reproduction [" + name + "] failed: " + Lockvisor.oneLine(e.getMessage());
        stderr.println("lockvisor: " + error);
        json.add(Json.reproductionFailure(name, error));
        continue;
      }
      if (!result.reproduced()) {
        allReproduced = false;
        stderr.println("lockvisor: reproduction [" + name + "] did not reproduce: " + result.headline());
      }
      json.add(Json.reproduction(result));
      if (format == OutputFormat.TEXT) {
        printText(stdout, reproduction, result);
      }
      if (out != null) {
        write(out.resolve(name + ".json"), Json.write(Json.reproduction(result)));
        Path dir = out.resolve(name);
        write(dir.resolve(ReproductionPage.FILE_NAME), ReproductionPage.render(result, reproduction.summary(), dir));
      }
    }
    if (format == OutputFormat.JSON) {
      // One named reproduction prints its object; "all" prints the array of them.
      stdout.println(Json.write(ALL.equals(target) ? json : json.get(0)));
    }
    stdout.flush();
    stderr.flush();
    return allReproduced ? Lockvisor.EXIT_OK : Lockvisor.EXIT_FAILED;
  }

  private static void printText(PrintWriter stdout, Reproduction reproduction, ReproductionResult result) {
    stdout.println("== " + result.name() + ": " + reproduction.summary());
    result.report().forEach(stdout::println);
    stdout.println((result.reproduced() ? "REPRODUCED" : "NOT REPRODUCED") + ": " + result.headline());
    stdout.println();
  }

  private static void write(Path file, String content) {
    try {
      AtomicFiles.writeString(file, content + System.lineSeparator());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write [" + file + "]", e);
    }
  }
}
