package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.atLeastOnce;
import static org.mockito.Mockito.inOrder;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.doReturn;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.google.inject.util.Modules;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.cli.CliFixture.Run;
import org.lockvisor.cli.inject.Bootstrap;
import org.lockvisor.cli.inject.ExperimentModule;
import org.lockvisor.cli.inject.PluginKinds;
import org.lockvisor.cli.inject.PluginModule;
import org.lockvisor.cli.inject.ReproductionModule;
import org.lockvisor.experiment.SimulationFailedException;
import org.lockvisor.experiment.check.RunChecks;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.SweepPoints;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.experiment.runner.ExperimentRunner;
import org.lockvisor.experiment.runner.LockStatistics;
import org.lockvisor.experiment.runner.RunObserver;
import org.lockvisor.experiment.runner.Runner;
import org.mockito.ArgumentCaptor;
import org.mockito.InOrder;
import picocli.CommandLine;

/**
 * {@code run}, {@code validate} and {@code sweep} against a mocked {@link Runner} (the interface
 * the commands take from the injector): what each command hands the runner (the experiment as
 * parsed, with {@code --seed} and {@code --set} applied; limits; an observer when {@code --out}
 * is given) and what it makes of the answers (exit 1 on a failed run, exit 2 with one line on a
 * refused setting, no output file from a command that failed). Validation is the real runner's,
 * so a refused setting is refused by the code that refuses it in a real run; only {@code run(...)}
 * is canned, and no figure of a simulation is checked here (those tests run the machine).
 */
class RunCommandsMockedTest {

  private static final Path EXAMPLE = Path.of("../examples/experiments/locktorture.yaml");

  @TempDir
  Path temp;

  /**
   * The default (inline) mock maker, as every other mock in the module: mixing makers in one test
   * JVM trips Mockito's own assertion in {@code MockUtil.getMockHandlerOrNull} for the other
   * classes' mocks when they run after this one in the same fork.
   */
  private final Runner runner = mock(Runner.class);

  /** Runs the command line over the real injector, its {@link Runner} the mock (validation and plugins real). */
  private Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine commandLine = Lockvisor.commandLineBootstrappedBy(CliFixture.WITHOUT_BUILT_IN_REPRODUCTIONS,
        loader -> Bootstrap.createInjector(Modules.override(
            PluginModule.discover(PluginKinds.BUILT_IN, loader), new ReproductionModule(), new ExperimentModule())
            .with(new AbstractModule() {
              @Provides
              @Singleton
              Runner runner(ExperimentRunner real) {
                // doReturn/doAnswer: stubbing again (the next command line) does not call the last stub
                doReturn(real.plugins()).when(runner).plugins();
                doAnswer(call -> real.validateTree(call.getArgument(0), call.getArgument(1)))
                    .when(runner).validateTree(anyString(), any());
                return runner;
              }
            })));
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    int exit = commandLine.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  /** A canned result of {@code e} (no machine ran): figures a reader can recognise in the output. */
  private static ExperimentResult canned(Experiment e, String variant) {
    return new ExperimentResult(e.name(), variant, e.arch(), e.seed(), e.warmupNs(), e.durationNs(), 1_000, 77,
        "fp-" + variant, List.of(new ExperimentResult.WorkloadResult("vm0", "torture", "locktorture",
            Map.of("ops", 1234L), null)), List.of(), LockStatistics.of(List.of()), List.of());
  }

  private static List<String> lockvisorLines(Run run) {
    return run.errLines().stream().filter(l -> l.startsWith("lockvisor:")).toList();
  }

  @Test
  void run_handsTheRunnerTheParsedExperiment_withSeedAndSet_baseThenEachVariant() throws Exception {
    when(runner.run(any(), anyString(), any(), any())).thenAnswer(call -> canned(call.getArgument(0),
        call.getArgument(1)));

    Run run = run("run", EXAMPLE.toString(), "--seed", "7", "--set", "duration=20ms", "--max-wall", "30s",
        "--format", "json");

    assertThat(run.exitCode()).as(run.err()).isZero();
    ArgumentCaptor<Experiment> experiments = ArgumentCaptor.forClass(Experiment.class);
    ArgumentCaptor<String> labels = ArgumentCaptor.forClass(String.class);
    ArgumentCaptor<RunObserver> observers = ArgumentCaptor.forClass(RunObserver.class);
    ArgumentCaptor<RunChecks> checks = ArgumentCaptor.forClass(RunChecks.class);
    InOrder order = inOrder(runner);
    // --max-wall covers validation (it builds every machine), then each run's build is its own
    order.verify(runner).limitBuilding(anyLong(), eq("--max-wall 30s"));
    order.verify(runner).validateTree(eq(EXAMPLE.toString()), any());
    order.verify(runner).limitBuilding(Long.MAX_VALUE, "");
    order.verify(runner, times(3)).run(experiments.capture(), labels.capture(), checks.capture(),
        observers.capture());
    assertThat(checks.getAllValues()).allSatisfy(c -> assertThat(c.wallBudgetNs()).isEqualTo(30_000_000_000L));
    assertThat(labels.getAllValues()).containsExactly("base", "tas", "ticket"); // variants in name order
    assertThat(experiments.getAllValues()).allSatisfy(e -> {
      assertThat(e.seed()).isEqualTo(7);
      assertThat(e.durationNs()).isEqualTo(20_000_000L);
    });
    assertThat(experiments.getAllValues()).extracting(e -> e.vms().get(0).locks().spinlock())
        .containsExactly("pv-qspinlock", "tas", "ticket");
    assertThat(observers.getAllValues()).containsOnly(RunObserver.NONE); // no --out: nothing to collect
    JsonNode json = Json.MAPPER.readTree(run.out());
    assertThat(json.get("runs")).hasSize(3);
    assertThat(json.get("runs").get(2).get("fingerprint").asText()).isEqualTo("fp-ticket");
  }

  @Test
  void run_aVariantFails_exitsOne_withItsLine_andWritesNoResult() throws IOException {
    when(runner.run(any(), anyString(), any(), any())).thenAnswer(call -> {
      if (call.getArgument(1).equals("tas")) {
        throw new SimulationFailedException("invariant [mutual-exclusion] at t=5ns");
      }
      return canned(call.getArgument(0), call.getArgument(1));
    });
    Path out = temp.resolve("out");

    Run run = run("run", EXAMPLE.toString(), "--out", out.toString());

    assertThat(run.exitCode()).as(run.err()).isEqualTo(Lockvisor.EXIT_FAILED);
    assertThat(lockvisorLines(run)).containsExactly("lockvisor: invariant [mutual-exclusion] at t=5ns");
    assertThat(run.out()).isEmpty();
    ArgumentCaptor<RunObserver> observers = ArgumentCaptor.forClass(RunObserver.class);
    verify(runner, times(2)).run(any(), anyString(), any(), observers.capture());
    verify(runner, never()).run(any(), eq("ticket"), any(), any()); // the first failure ends the command
    assertThat(observers.getAllValues()).allSatisfy(o -> assertThat(o).isNotSameAs(RunObserver.NONE));
    try (Stream<Path> files = Files.list(out)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly(OutputDirectory.MARKER);
    }
  }

  @Test
  void run_refusedSettings_exitTwo_withOneLine_nothingRun_noDirectory() {
    for (String set : List.of("cost.x86_64-kvm.NO_SUCH_COST=1", "vms[0].locks.spinlock=no-such-lock")) {
      Path out = temp.resolve("never-" + set.length());

      Run run = run("run", EXAMPLE.toString(), "--set", set, "--out", out.toString());

      assertThat(run.exitCode()).as(set + run.err()).isEqualTo(Lockvisor.EXIT_USAGE);
      assertThat(run.errLines()).as(set).hasSize(1);
      assertThat(run.errLines().get(0)).as(set).startsWith("lockvisor: ").contains(set.substring(0, set.indexOf('=')));
      assertThat(out).as(set).doesNotExist();
    }
    verify(runner, never()).run(any(), anyString(), any(), any());
  }

  @Test
  void run_unknownVariant_exitsTwo_withOneLine_nothingRun_noDirectory() {
    Path out = temp.resolve("never-variant");

    Run run = run("run", EXAMPLE.toString(), "--variant", "no-such-variant", "--out", out.toString());

    assertThat(run.exitCode()).as(run.err()).isEqualTo(Lockvisor.EXIT_USAGE);
    assertThat(run.errLines()).hasSize(1);
    assertThat(run.errLines().get(0)).startsWith("lockvisor: ").contains("no-such-variant");
    assertThat(out).doesNotExist();
    verify(runner, never()).run(any(), anyString(), any(), any());
  }

  @Test
  void validate_handsTheRunnerItsLimitsAndTheSetTree_runsNothing() {
    Run run = run("validate", EXAMPLE.toString(), "--set", "duration=20ms", "--max-memory", "2g");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out().lines().toList()).containsExactly(
        EXAMPLE + ": valid experiment [locktorture-overcommit] with 1 VM(s) and variants [tas, ticket]");
    verify(runner).limitBuilding(Long.MAX_VALUE, "");
    verify(runner).limitMemory(2L << 30, "--max-memory 2g");
    ArgumentCaptor<JsonNode> tree = ArgumentCaptor.forClass(JsonNode.class);
    verify(runner).validateTree(eq(EXAMPLE.toString()), tree.capture());
    assertThat(tree.getValue().at("/duration").asText()).isEqualTo("20ms");
    verify(runner, never()).run(any(), anyString(), any(), any());
    verify(runner, never()).run(any(), anyString());
  }

  @Test
  void sweep_handsEachPointItsSeed_aFailedPointExitsOne_withItsLine() throws IOException {
    Path file = temp.resolve("sweep.yaml");
    Files.writeString(file, """
        name: mocked-sweep
        arch: x86_64-kvm
        seed: 11
        warmup: 1ms
        duration: 4ms
        host: {cpus: 4}
        vms:
          - name: vm0
            vcpus: 2
            locks: {spinlock: ticket}
            workloads:
              - {name: torture, type: locktorture, options: {nwriters: 4}}
        sweep:
          vms[0].locks.spinlock: [ticket, tas]
        """);
    when(runner.run(any(), anyString())).thenAnswer(call -> {
      Experiment e = call.getArgument(0);
      if (e.vms().get(0).locks().spinlock().equals("tas")) {
        throw new SimulationFailedException("invariant [mutual-exclusion] at t=5ns");
      }
      return canned(e, call.getArgument(1));
    });
    Path out = temp.resolve("out");

    Run run = run("sweep", file.toString(), "--seed", "5", "--jobs", "2", "--max-memory", "512m", "--out",
        out.toString());

    assertThat(run.exitCode()).as(run.err()).isEqualTo(Lockvisor.EXIT_FAILED);
    assertThat(lockvisorLines(run)).containsExactly("lockvisor: sweep [mocked-sweep]: point 1"
        + " {vms[0].locks.spinlock=tas}: invariant [mutual-exclusion] at t=5ns");
    verify(runner).limitMemory(256L << 20, "--max-memory 512m / 2 jobs");
    ArgumentCaptor<Experiment> experiments = ArgumentCaptor.forClass(Experiment.class);
    verify(runner, atLeastOnce()).run(experiments.capture(), eq("base"));
    assertThat(experiments.getAllValues()).extracting(e -> e.vms().get(0).locks().spinlock() + "@" + e.seed())
        .containsExactlyInAnyOrder("ticket@" + SweepPoints.seed(5, 0, 0), "tas@" + SweepPoints.seed(5, 1, 0));
    assertThat(out.resolve("points").resolve("point-00000.json")).exists();
    assertThat(Files.readString(out.resolve("points").resolve("point-00001.json"))).contains("mutual-exclusion");
    verify(runner, never()).run(any(), anyString(), any(), any());
  }

  @Test
  void sweep_refusedSetting_exitsTwo_withOneLine_nothingRun_noDirectory() {
    Path out = temp.resolve("never");

    Run run = run("sweep", "../examples/experiments/locktorture-sweep.yaml", "--set",
        "vms[0].locks.spinlock=no-such-lock", "--out", out.toString());

    assertThat(run.exitCode()).isEqualTo(Lockvisor.EXIT_USAGE);
    assertThat(run.errLines()).hasSize(1);
    assertThat(run.errLines().get(0)).startsWith("lockvisor: ").contains("no-such-lock");
    assertThat(out).doesNotExist();
    verify(runner, never()).run(any(), anyString());
  }
}
