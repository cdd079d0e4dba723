package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;
import static org.mockito.Mockito.withSettings;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.common.collect.ImmutableMap;
import com.google.inject.AbstractModule;
import com.google.inject.Injector;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.google.inject.util.Modules;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.cli.CliFixture.Run;
import org.lockvisor.cli.inject.Bootstrap;
import org.lockvisor.cli.inject.ExperimentModule;
import org.lockvisor.cli.inject.PluginKinds;
import org.lockvisor.cli.inject.PluginModule;
import org.lockvisor.cli.inject.ReproductionModule;
import org.lockvisor.experiment.SimulationFailedException;
import org.lockvisor.experiment.runner.ExperimentRunner;
import org.lockvisor.reproductions.api.Reproduction;
import org.lockvisor.reproductions.api.ReproductionOptions;
import org.lockvisor.reproductions.api.ReproductionResult;
import org.mockito.ArgumentCaptor;
import org.mockito.Mockito;
import picocli.CommandLine;

/**
 * {@code lockvisor reproduce} against mocked reproductions (a {@link Reproduction} is the command's
 * runner, an interface): what the command hands a reproduction ({@code --quick}, its own output
 * directory, the application's experiment runner) and what it makes of the verdict (exit status,
 * stderr, the JSON), without a simulation. A reproduction whose simulation breaks does not stop
 * the others. The built-in reproductions are hidden; the rest of the injector is the real one.
 */
class ReproduceCommandMockedTest {

  @TempDir
  Path temp;

  private Injector injector;

  /** A reproduction named {@code name}: its default methods real, {@code run} to be stubbed. */
  private static Reproduction mocked(String name) {
    Reproduction r = mock(Reproduction.class, withSettings().defaultAnswer(Mockito.CALLS_REAL_METHODS));
    when(r.name()).thenReturn(name);
    when(r.summary()).thenReturn(name + " (mocked)");
    return r;
  }

  private static ReproductionResult verdict(String name, boolean reproduced) {
    return ReproductionResult.of(name, reproduced, reproduced ? "up, as published" : "down, published up",
        List.of("variant  figure"), ImmutableMap.of("figure", 1.0));
  }

  /** Runs the command line over the real injector with {@code reproductions} as the only ones registered. */
  private Run run(List<Reproduction> reproductions, String... args) {
    Map<String, Reproduction> byName = new LinkedHashMap<>();
    reproductions.forEach(r -> byName.put(r.name(), r));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine commandLine = Lockvisor.commandLineBootstrappedBy(CliFixture.WITHOUT_BUILT_IN_REPRODUCTIONS,
        loader -> injector = Bootstrap.createInjector(Modules.override(
            PluginModule.discover(PluginKinds.BUILT_IN, loader), new ReproductionModule(), new ExperimentModule())
            .with(new AbstractModule() {
              @Provides
              @Singleton
              org.lockvisor.reproductions.api.Reproductions reproductions() {
                return new org.lockvisor.reproductions.api.Reproductions(byName);
              }
            })));
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    int exit = commandLine.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  @Test
  void reproduce_quickByName_handsItQuickAndTheApplicationRunner_printsItsVerdict() throws Exception {
    Reproduction r = mocked("mocked-ok");
    when(r.run(any())).thenReturn(verdict("mocked-ok", true));

    Run run = run(List.of(r), "reproduce", "mocked-ok", "--quick", "--format", "json");

    assertThat(run.exitCode()).as(run.err()).isZero();
    ArgumentCaptor<ReproductionOptions> options = ArgumentCaptor.forClass(ReproductionOptions.class);
    verify(r, times(1)).run(options.capture());
    assertThat(options.getValue().quick()).isTrue();
    assertThat(options.getValue().outputDirectory()).isEmpty();
    assertThat(options.getValue().whatIf().isEmpty()).isTrue();
    assertThat(options.getValue().runner()).isSameAs(injector.getInstance(ExperimentRunner.class));
    JsonNode json = Json.MAPPER.readTree(run.out());
    assertThat(json.get("name").asText()).isEqualTo("mocked-ok");
    assertThat(json.get("reproduced").asBoolean()).isTrue();
    assertThat(json.get("headline").asText()).isEqualTo("up, as published");
  }

  @Test
  void reproduce_withoutQuick_withOut_handsItItsOwnDirectory() {
    Reproduction r = mocked("mocked-ok");
    when(r.run(any())).thenReturn(verdict("mocked-ok", true));
    Path out = temp.resolve("out");

    Run run = run(List.of(r), "reproduce", "mocked-ok", "--out", out.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    ArgumentCaptor<ReproductionOptions> options = ArgumentCaptor.forClass(ReproductionOptions.class);
    verify(r).run(options.capture());
    assertThat(options.getValue().quick()).isFalse();
    assertThat(options.getValue().outputDirectory()).contains(out.resolve("mocked-ok"));
    assertThat(out.resolve("mocked-ok.json")).exists();
  }

  @Test
  void reproduce_notReproduced_exitsOne_withTheHeadlineOnStderr() {
    Reproduction r = mocked("mocked-miss");
    when(r.run(any())).thenReturn(verdict("mocked-miss", false));

    Run run = run(List.of(r), "reproduce", "mocked-miss", "--quick");

    assertThat(run.exitCode()).isEqualTo(Lockvisor.EXIT_FAILED);
    assertThat(run.errLines()).containsExactly(
        "lockvisor: reproduction [mocked-miss] did not reproduce: down, published up");
  }

  @Test
  void reproduceAll_oneSimulationBreaks_theOthersStillRun_andTheFailureIsInTheJson() throws Exception {
    Reproduction broken = mocked("a-broken");
    when(broken.run(any())).thenThrow(new SimulationFailedException("invariant [mutual-exclusion] at t=5ns"));
    Reproduction ok = mocked("b-ok");
    when(ok.run(any())).thenReturn(verdict("b-ok", true));

    Run run = run(List.of(broken, ok), "reproduce", "all", "--quick", "--format", "json");

    assertThat(run.exitCode()).isEqualTo(Lockvisor.EXIT_FAILED);
    verify(broken).run(any());
    verify(ok).run(any());
    assertThat(run.errLines()).containsExactly(
        "lockvisor: reproduction [a-broken] failed: invariant [mutual-exclusion] at t=5ns");
    JsonNode json = Json.MAPPER.readTree(run.out());
    assertThat(json).hasSize(2);
    assertThat(json.get(0).get("error").asText()).contains("a-broken").contains("mutual-exclusion");
    assertThat(json.get(1).get("reproduced").asBoolean()).isTrue();
  }
}
