package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.lockvisor.experiment.model.HypervisorSettings;
import org.lockvisor.arch.catalog.ArchProfiles;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.cli.CliFixture.Run;
import org.lockvisor.experiment.runner.ResultJson;

/**
 * {@code lockvisor run}, {@code validate} and {@code plugins --options}: the example experiment
 * runs and prints lock_stat; every file under {@code bad-experiments/} makes {@code run} exit 2
 * with exactly the problems its header announces ({@code # expect: N} lines, each containing the
 * {@code # expect-text:} fragments), one line per problem, and never a stack trace.
 */
class ExperimentCommandsTest {

  static final Path EXAMPLE = Path.of("../examples/experiments/locktorture.yaml");
  static final Path BAD = Path.of("src/test/resources/bad-experiments");
  /** Files that cannot carry a header. */
  static final Map<String, String> HEADERLESS = Map.of(
      "05-empty.yaml", "the file is empty",
      "07-binary-garbage.yaml", "not a YAML text file");

  private static final ObjectMapper MAPPER = new ObjectMapper();

  @TempDir
  Path temp;

  static Stream<Path> badExperiments() throws IOException {
    try (Stream<Path> files = Files.list(BAD)) {
      return files.sorted().toList().stream();
    }
  }

  @Test
  void badExperimentDirectory_holdsAtLeastThirtyFiles() throws IOException {
    assertThat(badExperiments().count()).isGreaterThanOrEqualTo(30);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badExperiments")
  void badExperiment_exit2_oneLinePerProblem_noStackTrace(Path file) throws IOException {
    String name = file.getFileName().toString();
    int expected = 1;
    List<String> fragments = new ArrayList<>();
    if (HEADERLESS.containsKey(name)) {
      fragments.add(HEADERLESS.get(name));
    } else {
      for (String line : Files.readAllLines(file)) {
        if (line.startsWith("# expect: ")) {
          expected = Integer.parseInt(line.substring("# expect: ".length()).strip());
        } else if (line.startsWith("# expect-text: ")) {
          fragments.add(line.substring("# expect-text: ".length()).strip());
        }
      }
      assertThat(fragments).as("%s announces what it expects", name).isNotEmpty();
    }

    Run run = CliFixture.run("run", file.toString());

    assertThat(run.exitCode()).as("exit code; stderr: %s", run.err()).isEqualTo(2);
    assertThat(run.out()).isEmpty();
    assertThat(run.errLines()).as("stderr: %s", run.err()).hasSize(expected)
        .allSatisfy(line -> assertThat(line).startsWith("lockvisor: " + file + ": "));
    assertThat(run.err()).contains(fragments).doesNotContain("\tat ", "Exception", "internal error");
  }

  @Test
  void validate_example_isValid() {
    Run run = CliFixture.run("validate", EXAMPLE.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("valid experiment [locktorture-overcommit]", "[tas, ticket]");
  }

  @Test
  void validate_badFile_sameProblemsAsRun() {
    Path file = BAD.resolve("35-several-problems.yaml");
    assertThat(CliFixture.run("validate", file.toString()).err())
        .isEqualTo(CliFixture.run("run", file.toString()).err());
  }

  @Test
  void run_example_printsWorkloadAndLockStatTable_andWritesResults() throws IOException {
    Path out = temp.resolve("out");
    Run run = CliFixture.run("run", EXAMPLE.toString(), "--set", "duration=5ms", "--out", out.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .contains("== locktorture-overcommit [base]", "== locktorture-overcommit [tas]",
            "== locktorture-overcommit [ticket]")
        .contains("-- workload vm0/torture (locktorture)", "Writes:  Total: ")
        .contains("lock_stat version 0.4", "class name    con-bounces    contentions",
            "vm0/torture/torture_lock:", "lock_torture_writer");
    JsonNode result = MAPPER.readTree(out.resolve("result.json").toFile());
    assertThat(result.get("runs")).hasSize(3);
    assertThat(result.at("/runs/0/simulated_ns").asLong()).isEqualTo(5_000_000);
    assertThat(result.at("/runs/0/lock_stat/0/acquisitions").asLong()).isPositive();
    assertThat(Files.readString(out.resolve("lock_stat.txt"))).startsWith("lock_stat version 0.4");
    assertThat(out.resolve("lock_stat-ticket.txt")).exists();
  }

  @Test
  void run_json_seedAndSetOverrides_deterministic() throws IOException {
    String[] args = {"run", EXAMPLE.toString(), "--format", "json", "--seed", "9", "--variant", "ticket",
        "--set", "duration=2ms", "--set", "vms[0].workloads[0].options.nwriters=4"};
    JsonNode first = MAPPER.readTree(CliFixture.run(args).out());
    JsonNode second = MAPPER.readTree(CliFixture.run(args).out());

    assertThat(first.get("runs")).hasSize(1);
    assertThat(first.at("/runs/0/variant").asText()).isEqualTo("ticket");
    assertThat(first.at("/runs/0/seed").asLong()).isEqualTo(9);
    assertThat(first.at("/runs/0/workloads/0/native/nwriters_stress").asInt()).isEqualTo(4);
    assertThat(ResultJson.withoutWallClock((com.fasterxml.jackson.databind.node.ObjectNode) first))
        .isEqualTo(ResultJson.withoutWallClock((com.fasterxml.jackson.databind.node.ObjectNode) second));
  }

  @Test
  void run_untilDone_reportsTheFinish_capFailsWithOneLine() throws IOException {
    Path file = temp.resolve("until-done.yaml");
    Files.writeString(file, """
        name: until-done
        warmup: 0
        duration: until-done
        max-duration: 1s
        host: {cpus: 2}
        vms:
          - name: vm0
            vcpus: 4
            workloads:
              - {name: sm, type: sched-messaging, options: {groups: 1, fds: 4, loops: 20}}
        """);
    Run run = CliFixture.run("run", file.toString(), "--format", "json");
    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode result = MAPPER.readTree(run.out());
    long finished = result.at("/runs/0/finished_ns").asLong();
    assertThat(finished).isPositive().isEqualTo(result.at("/runs/0/workloads/0/finished_ns").asLong());
    assertThat(result.at("/runs/0/simulated_ns").asLong()).isGreaterThanOrEqualTo(finished)
        .isLessThan(finished + 1_000_000);
    assertThat(result.at("/runs/0/workloads/0/figures/total_time_s").asDouble()).isPositive();
    assertThat(CliFixture.run("run", file.toString()).out())
        .contains("until done: the last workload finished at " + finished + "ns", "finished at ");

    Run capped = CliFixture.run("run", file.toString(), "--set", "max-duration=200us", "--set",
        "done-check-interval=100us");
    assertThat(capped.exitCode()).isEqualTo(Lockvisor.EXIT_FAILED);
    assertThat(capped.errLines()).singleElement().asString()
        .contains("duration [until-done]: 1 of 1 workloads still running after max-duration [200us]");
    assertThat(capped.err()).doesNotContain("\tat ", "Exception");
  }

  @Test
  void run_badSet_exit2WithPath() {
    Run run = CliFixture.run("run", EXAMPLE.toString(), "--set", "vms[0].vcpus=many", "--set", "nonsense");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.errLines()).hasSize(2);
    assertThat(run.err()).contains("--set: [nonsense] is not path=value",
        "vms[0].vcpus: expected a whole number, got the text [many]");
  }

  @Test
  void run_missingFile_exit2OneLine() {
    Run run = CliFixture.run("run", temp.resolve("nope.yaml").toString());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.errLines()).singleElement().asString().contains("no such file");
  }

  @Test
  void run_outIsAFile_exit2OneLineNamingThePath_beforeRunning() throws java.io.IOException {
    Path file = Files.writeString(temp.resolve("taken"), "not a directory");

    Run run = CliFixture.run("run", EXAMPLE.toString(), "--out", file.toString());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.errLines()).singleElement().asString().contains("--out", file.toString(), "not a directory");
    assertThat(run.out()).isEmpty();
    assertThat(Files.readString(file)).isEqualTo("not a directory");
  }

  @Test
  void outUnderAFile_orUnwritable_exit2ForRunSweepAndReproduce() throws java.io.IOException {
    Path file = Files.writeString(temp.resolve("plain"), "x");
    Path below = file.resolve("sub");
    for (String[] args : new String[][] {
        {"run", EXAMPLE.toString(), "--out", below.toString()},
        {"sweep", "../examples/experiments/locktorture-sweep.yaml", "--out", below.toString()},
        {"reproduce", "all", "--out", below.toString()}}) {
      Run run = CliFixture.run(args);
      assertThat(run.exitCode()).as("%s: %s", args[0], run.err()).isEqualTo(2);
      assertThat(run.errLines()).as(args[0]).singleElement().asString().contains("--out", below.toString());
    }
    // a command rejected for its other input creates no output directory
    Path never = temp.resolve("never");
    assertThat(CliFixture.run("sweep", "../examples/experiments/locktorture-sweep.yaml", "--shard", "3/2", "--out",
        never.toString()).exitCode()).isEqualTo(2);
    assertThat(CliFixture.run("run", temp.resolve("nope.yaml").toString(), "--out", never.toString()).exitCode())
        .isEqualTo(2);
    assertThat(never).doesNotExist();
    Path locked = Files.createDirectory(temp.resolve("locked"));
    if (locked.toFile().setWritable(false) && !Files.isWritable(locked)) { // not as root
      Run run = CliFixture.run("run", EXAMPLE.toString(), "--out", locked.resolve("x").toString());
      assertThat(run.exitCode()).isEqualTo(2);
      assertThat(run.errLines()).singleElement().asString().contains("cannot be created");
      locked.toFile().setWritable(true);
    }
  }

  @Test
  void pluginsOptions_printsTypesDefaultsAllowedAndDocs() {
    Run run = CliFixture.run("plugins", "--options", "locktorture");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("workload locktorture:", "OPTION", "torture-type", "enum",
        "spin_lock|spin_lock_irq|rw_lock|rw_lock_irq|mutex_lock|rwsem_lock", "nwriters", "[0, 4096]", "hold-ns", "duration_ns");
  }

  @Test
  void pluginsOptions_ofAReproduction_listsItsWhatIfParametersAndProfiles() {
    // the shipped class path, built-in reproductions included
    Run run = CliFixture.run(CliFixture.class.getClassLoader(), "plugins", "--options", "vcpu-preempted");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("reproduction vcpu-preempted:", "--set KEY=VALUE", "PARAMETER", "groups",
        "smt", "one of [1, 2, 4, 8]", "wake-affine", "seeds", "[ppc64-powervm, x86_64-kvm]");
    assertThat(run.out()).doesNotContain("(no options)");
  }

  @Test
  void pluginsJson_reproductionsCarryTheirWhatIfs() throws Exception {
    Run run = CliFixture.run(CliFixture.class.getClassLoader(), "plugins", "--kind", "reproduction", "--format",
        "json");

    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode all = new ObjectMapper().readTree(run.out());
    JsonNode vhost = null;
    for (JsonNode p : all) {
      if (p.path("name").asText().equals("vhost-wakeup")) {
        vhost = p;
      }
    }
    assertThat(vhost).as(run.out()).isNotNull();
    assertThat(vhost.path("whatIf").path("parameters").get(0).path("name").asText()).isEqualTo("seed");
    assertThat(vhost.path("whatIf").path("profiles").get(0).asText()).isEqualTo("x86_64-kvm");
    // path: where a parameter is written; a derived target names the parameters its value comes from
    Map<String, String> paths = new java.util.HashMap<>();
    for (JsonNode p : all) {
      if (p.path("name").asText().equals("vcpu-preempted")) {
        p.path("whatIf").path("parameters").forEach(x -> paths.put(x.path("name").asText(), x.path("path").asText()));
      }
    }
    assertThat(paths.get("wake-affine")).isEqualTo("vms[0].scheduler-options.wake-affine");
    assertThat(paths.get("smt")).contains("vcpu-preempted-powervm.yaml host.cpus (from pool-cpus, smt)",
        "vcpu-preempted-powervm.yaml vms[0].kernel.threads-per-core (from smt)");
    assertThat(paths.get("vps")).contains("host.scheduler-options.entitlement (from vps, pool-cpus)");
    assertThat(paths.get("seeds")).as("applied by the reproduction: no path").isEmpty();
  }

  @Test
  void pluginsOptions_ofAnArchProfile_listsItsCostsWithUnitTagAndSource() throws Exception {
    Run run = CliFixture.run("plugins", "--options", "x86_64-kvm");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("arch x86_64-kvm:", "--set cost.x86_64-kvm.<COST_KEY>=<number>", "COST_KEY",
        "SOURCE");
    // every cost row of the profile's plugin page (itself checked against the code) is printed
    // with the same value and unit; not-applicable keys show "-"
    ArchProfile profile = ArchProfiles.byName("x86_64-kvm");
    Matcher row = Pattern.compile("(?m)^\\| `([A-Z0-9_]+)` \\| ([^|]+) \\| ([^|]+) \\|"
        + " [^|]* \\| (n/a|\\[[VBME]\\]) \\|")
        .matcher(Files.readString(Path.of("../docs/plugins/x86_64-kvm.md")));
    int rows = 0;
    while (row.find()) {
      String value = row.group(4).equals("n/a") ? "-" : row.group(2).trim();
      assertThat(run.out()).containsPattern("(?m)^  " + row.group(1) + " +" + Pattern.quote(value)
          + "  " + Pattern.quote(row.group(3).trim()) + " ");
      rows++;
    }
    assertThat(rows).isEqualTo(profile.costs().costs().size());
    // the hypervisor: keys the experiment accepts on this profile, each on its own line
    for (String key : HypervisorSettings.KNOBS.keySet()) {
      assertThat(run.out()).containsPattern("(?m)^  " + Pattern.quote(key) + " ");
    }
    Run powervm = CliFixture.run("plugins", "--options", "ppc64-powervm");
    assertThat(powervm.out()).containsPattern("(?m)^  ple-window \\S+ \\(not on this profile\\)");

    Run json = CliFixture.run("plugins", "--options", "x86_64-kvm", "--format", "json");
    JsonNode costs = new ObjectMapper()
        .readTree(json.out()).get(0).path("costs");
    assertThat(costs.size()).isEqualTo(profile.costs().costs().size());
    assertThat(costs.get(0).path("source").asText()).isNotBlank();
  }

  @Test
  void pluginsOptions_unknownName_didYouMean() {
    Run run = CliFixture.run("plugins", "--options", "locktortur");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.errLines()).singleElement().asString().contains("unknown plugin [locktortur]",
        "did you mean [locktorture]?");
  }
}
