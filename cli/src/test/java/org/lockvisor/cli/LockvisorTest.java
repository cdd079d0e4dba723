package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.cli.CliFixture.Run;

/**
 * The command line's contract: exit 0 on success; 2 with exactly one stderr line and no stack
 * trace for bad usage or input; 1 when a simulation fails; JSON that parses back with the
 * documented fields.
 */
class LockvisorTest {

  private static final ObjectMapper MAPPER = new ObjectMapper();

  @TempDir
  Path temp;

  private static void assertOneLineUsageError(Run run, String... fragments) {
    assertThat(run.exitCode()).as("exit code; stderr: %s", run.err()).isEqualTo(2);
    assertThat(run.errLines()).hasSize(1);
    assertThat(run.err()).startsWith("lockvisor: ").contains(fragments).doesNotContain("\tat ", "Exception");
  }

  private ClassLoader fakes(Class<?>... reproductions) {
    return CliFixture.withReproductions(temp.resolve("plugins"), reproductions);
  }

  @Test
  void version_printsVersionAndCommit() {
    Run run = CliFixture.run("--version");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out().strip()).matches("lockvisor \\S+ \\(git ([0-9a-f]{7,40}|unknown)\\)");
    assertThat(run.out()).doesNotContain("${");
  }

  @Test
  void noCommand_usageErrorOneLine() {
    assertOneLineUsageError(CliFixture.run(), "missing command", "reproduce");
  }

  @Test
  void unknownOption_usageErrorOneLine() {
    assertOneLineUsageError(CliFixture.run("--bogus"), "Unknown option: '--bogus'");
  }

  @Test
  void mistypedOption_usageErrorWithSuggestion() {
    assertOneLineUsageError(CliFixture.run("reproduce", "all", "--fromat", "json"), "did you mean", "--format");
  }

  @Test
  void plugins_badFormat_usageErrorWithDidYouMean() {
    assertOneLineUsageError(CliFixture.run("plugins", "--format", "jsn"),
        "unknown format [jsn]; known: [json, text]; did you mean [json]?");
  }

  @Test
  void plugins_unknownKind_usageErrorWithDidYouMean() {
    assertOneLineUsageError(CliFixture.run("plugins", "--kind", "reproductoin"),
        "unknown plugin kind [reproductoin]; known: [", "did you mean [reproduction]?");
  }

  @Test
  void plugins_json_everyElementHasTheDocumentedFields() throws IOException {
    Run run = CliFixture.run(fakes(FakeReproductions.Reproduces.class), "plugins", "--format", "json");

    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode plugins = MAPPER.readTree(run.out());
    assertThat(plugins.isArray()).isTrue();
    List<String> kindAndName = new ArrayList<>();
    for (JsonNode plugin : plugins) {
      List<String> fields = new ArrayList<>();
      plugin.fieldNames().forEachRemaining(fields::add);
      // profiles add their cost table, reproductions the what-ifs reproduce --set accepts
      String extra = switch (plugin.get("kind").asText()) {
        case "arch" -> "costs";
        case "reproduction" -> "whatIf";
        default -> null;
      };
      if (extra == null) {
        assertThat(fields).containsExactly("kind", "name", "summary", "version", "jar", "capabilities", "options");
      } else {
        assertThat(fields).containsExactly("kind", "name", "summary", "version", "jar", "capabilities", "options", extra);
      }
      assertThat(plugin.get("capabilities").isArray()).isTrue();
      assertThat(plugin.get("options").isArray()).isTrue();
      kindAndName.add(plugin.get("kind").asText() + "/" + plugin.get("name").asText());
    }
    // A built-in found through @AutoService in its own module, and the test registration.
    assertThat(kindAndName).contains("scheduler/round-robin", "reproduction/fake-ok").isSorted();
  }

  @Test
  void plugins_json_integerOptionBoundsAreWholeNumbers() throws IOException {
    JsonNode plugins = MAPPER.readTree(CliFixture.run("plugins", "--kind", "scheduler", "--format", "json").out());
    JsonNode quantum = null;
    for (JsonNode plugin : plugins) {
      for (JsonNode option : plugin.get("options")) {
        if (option.get("type").asText().equals("duration_ns")) {
          quantum = option;
        }
      }
    }

    assertThat(quantum).as("a duration option among the built-in schedulers").isNotNull();
    assertThat(quantum.get("min").isIntegralNumber()).isTrue();
    assertThat(quantum.get("max").isIntegralNumber()).isTrue();
  }

  @Test
  void plugins_jsonOfOneKind_onlyThatKindSortedByName() throws IOException {
    Run run = CliFixture.run(fakes(FakeReproductions.Reproduces.class, FakeReproductions.Breaks.class),
        "plugins", "--kind", "reproduction", "--format", "json");

    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode plugins = MAPPER.readTree(run.out());
    assertThat(plugins).hasSize(2);
    assertThat(plugins.get(0).get("kind").asText()).isEqualTo("reproduction");
    assertThat(plugins.get(0).get("name").asText()).isEqualTo("fake-broken");
    assertThat(plugins.get(0).get("summary").asText()).isEqualTo("simulation fails");
    assertThat(plugins.get(1).get("name").asText()).isEqualTo("fake-ok");
  }

  @Test
  void plugins_text_alignedTableWithHeader() {
    Run run = CliFixture.run(fakes(FakeReproductions.Reproduces.class, FakeReproductions.DoesNotReproduce.class),
        "plugins", "--kind", "reproduction");

    assertThat(run.exitCode()).isZero();
    List<String> lines = run.out().lines().toList();
    assertThat(lines).hasSize(6); // header, two plugins, blank, the jar [1], the hint for --wide
    assertThat(lines.get(0)).matches("KIND +NAME +VERSION +SUMMARY +JAR");
    assertThat(lines.get(4)).startsWith("[1] ");
    assertThat(lines.get(1)).startsWith("reproduction  fake-miss").contains("never reproduces");
    int summaryColumn = lines.get(0).indexOf("SUMMARY");
    assertThat(lines.get(1).indexOf("never reproduces")).isEqualTo(summaryColumn);
    assertThat(lines.get(2).indexOf("always reproduces")).isEqualTo(summaryColumn);
  }

  @Test
  void plugins_text_wrappedToTheTerminal_wideKeepsOneLinePerPlugin() throws Exception {
    // every built-in: ~250-character lines before (summary and jar path on one line)
    Run wrapped = CliFixture.run(HostileInputsTest.class.getClassLoader(), "plugins");
    Run wide = CliFixture.run(HostileInputsTest.class.getClassLoader(), "plugins", "--wide");

    assertThat(wrapped.exitCode()).as(wrapped.err()).isZero();
    assertThat(wrapped.out().lines()).allSatisfy(line -> assertThat(line.length()).as(line).isLessThanOrEqualTo(100));
    assertThat(wrapped.out()).contains("qspinlock", "[1] ");
    assertThat(wide.exitCode()).as(wide.err()).isZero();
    Run json = CliFixture.run(HostileInputsTest.class.getClassLoader(), "plugins", "--format", "json");
    int plugins = Json.MAPPER.readTree(json.out()).size();
    assertThat(wide.out().lines()).hasSize(1 + plugins); // the header and one line per plugin
    assertThat(PluginsCommand.wrap("aaa bbb ccc ddd", 7)).containsExactly("aaa bbb", "ccc ddd");
  }

  @Test
  void plugins_kindWithNoPlugins_saysSo() {
    Run run = CliFixture.run("plugins", "--kind", "reproduction");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).startsWith("no plugins registered of kind [reproduction]");
  }

  @Test
  void reproduceAll_noneRegistered_saysSoAndSucceeds() {
    Run run = CliFixture.run("reproduce", "all");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).contains("no reproductions are registered");
    assertThat(run.err()).isEmpty();
  }

  @Test
  void reproduce_unknownName_usageErrorWithDidYouMean() {
    Run run = CliFixture.run(fakes(FakeReproductions.Reproduces.class), "reproduce", "fake-k");

    assertOneLineUsageError(run, "unknown reproduction [fake-k]; known: [fake-ok]; did you mean [fake-ok]?");
  }

  @Test
  void reproduce_missingName_usageError() {
    assertOneLineUsageError(CliFixture.run("reproduce"), "Missing required parameter");
  }

  @Test
  void reproduce_json_parsesBackAndFileWrittenAtomically() throws IOException {
    Path out = temp.resolve("out");
    Run run = CliFixture.run(fakes(FakeReproductions.Reproduces.class),
        "reproduce", "fake-ok", "--quick", "--format", "json", "--out", out.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode result = MAPPER.readTree(run.out());
    assertThat(result.isObject()).as("one named reproduction prints one object").isTrue();
    assertThat(result.get("experiment").asText()).isEqualTo("fake-ok");
    assertThat(result.get("name").asText()).isEqualTo("fake-ok");
    assertThat(result.get("reproduced").asBoolean()).isTrue();
    assertThat(result.get("metrics").get("quick").asDouble()).isEqualTo(1.0);
    assertThat(result.get("report")).hasSize(3);

    JsonNode written = MAPPER.readTree(out.resolve("fake-ok.json").toFile());
    assertThat(written).isEqualTo(result);
    assertThat(out.resolve("fake-ok/artefact.txt")).hasContent("made by fake-ok");
    try (var files = Files.list(out)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("fake-ok.json", "fake-ok",
          OutputDirectory.MARKER);
    }
  }

  @Test
  void reproduceAll_oneBreaks_othersStillRunAndExit1NamingIt() throws IOException {
    Run run = CliFixture.run(fakes(FakeReproductions.Reproduces.class, FakeReproductions.Breaks.class),
        "reproduce", "all", "--format", "json");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.errLines()).containsExactly("lockvisor: reproduction [fake-broken] failed: "
        + "lock [ticket]: mutual exclusion violated at t=42ns; by vcpu1 and vcpu2");
    JsonNode results = MAPPER.readTree(run.out());
    assertThat(results).hasSize(2);
    assertThat(results.get(0).get("error").asText()).contains("fake-broken");
    assertThat(results.get(1).get("reproduced").asBoolean()).isTrue();
  }

  @Test
  void reproduce_notReproduced_exit1WithHeadline() {
    Run run = CliFixture.run(fakes(FakeReproductions.DoesNotReproduce.class), "reproduce", "fake-miss");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out()).contains("NOT REPRODUCED: cpu% went up");
    assertThat(run.err()).contains("reproduction [fake-miss] did not reproduce");
  }

  @Test
  void reproduce_bug_exit1OneLineUnlessDebug() {
    ClassLoader loader = fakes(FakeReproductions.Buggy.class);

    Run plain = CliFixture.run(loader, "reproduce", "fake-buggy");
    Run debug = CliFixture.run(loader, "--debug", "reproduce", "fake-buggy");

    assertThat(plain.exitCode()).isEqualTo(1);
    assertThat(plain.errLines()).hasSize(1);
    assertThat(plain.err()).contains("internal error in [lockvisor reproduce]", "queue corrupted", "--debug");
    assertThat(debug.exitCode()).isEqualTo(1);
    assertThat(debug.err())
        .contains("registered Reproduction plugin [fake-buggy]", "test-classes")
        .contains("\tat org.lockvisor.cli.FakeReproductions$Buggy.run");
  }

  @Test
  void oneLine_joinsLines() {
    assertThat(Lockvisor.oneLine(" a\n  b\r\nc ")).isEqualTo("a; b; c");
  }
}
