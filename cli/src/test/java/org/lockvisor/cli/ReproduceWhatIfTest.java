package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.lockvisor.cli.CliFixture.Run;
import org.lockvisor.reproductions.api.Reproduction;
import org.lockvisor.reproductions.api.ReproductionParameter;

/**
 * {@code lockvisor reproduce ... --set KEY=VALUE}: every bad setting is one line and exit status
 * 2 before anything runs or any {@code --out} directory exists, naming the setting, what is wrong
 * and what is allowed; a setting that would change nothing is refused; a what-if's overrides and
 * parameters reach the reproduction through its options, and every output says it is a what-if.
 * (That a cost override reaches the built-in machines is checked on virtio-blk-notify in
 * ReproduceOutputFilesTest, which already runs it.)
 */
class ReproduceWhatIfTest {

  private static final ObjectMapper MAPPER = new ObjectMapper();
  /** The shipped class path: the built-in reproductions are visible (nothing here runs them). */
  private static final ClassLoader BUILT_INS = ReproduceWhatIfTest.class.getClassLoader();

  @TempDir
  Path temp;

  static Stream<Arguments> badSettings() {
    return Stream.of(
        // malformed
        Arguments.of("vcpu-preempted", "groups", List.of("[groups]", "KEY=VALUE", "cost.<profile>.<COST_KEY>=<number>")),
        Arguments.of("vcpu-preempted", "groups=", List.of("[groups=]", "KEY=VALUE")),
        Arguments.of("vcpu-preempted", "=4", List.of("[=4]", "KEY=VALUE")),
        Arguments.of("vcpu-preempted", "cost.x86_64-kvm=4", List.of("[cost.x86_64-kvm=4]", "cost.<profile>.<COST_KEY>")),
        // costs
        Arguments.of("vcpu-preempted", "cost.x86-64-kvm.TTWU_FULL=1",
            List.of("unknown arch profile [x86-64-kvm]", "known: [", "did you mean [x86_64-kvm]")),
        Arguments.of("vhost-wakeup", "cost.x86_64-kvm.TTWU_FUL=1",
            List.of("[TTWU_FUL]", "TTWU_ON_RQ", "did you mean [TTWU_FULL]")),
        Arguments.of("vhost-wakeup", "cost.x86_64-kvm.H_CONFER=1",
            List.of("[H_CONFER]", "does not apply to x86_64-kvm", "applicable: [", "TTWU_FULL")),
        Arguments.of("vhost-wakeup", "cost.x86_64-kvm.TTWU_FULL=-5", List.of("bad value [-5]", "[TTWU_FULL]", "in [0, 1000000000], in ns")),
        Arguments.of("vhost-wakeup", "cost.x86_64-kvm.TTWU_FULL=1e308", List.of("bad value [1e308]", "in [0, 1000000000]")),
        Arguments.of("vhost-wakeup", "cost.x86_64-kvm.TTWU_FULL=1e999", List.of("bad value [1e999]", "in [0, ")),
        Arguments.of("vhost-wakeup", "cost.x86_64-kvm.TTWU_FULL=NaN", List.of("bad value [NaN]", "in [0, ")),
        Arguments.of("vhost-wakeup", "cost.x86_64-kvm.TTWU_FULL=4k", List.of("bad value [4k]", "in [0, ")),
        Arguments.of("vhost-wakeup", "cost.x86_64-kvm.SPIN_THRESHOLD_LOOPS=2.5", List.of("bad value [2.5]", "whole number")),
        Arguments.of("vhost-wakeup", "cost.x86_64-kvm.CPU_CYCLE=0", List.of("bad value [0]", "in (0, ")),
        // a setting that would change nothing
        Arguments.of("vhost-wakeup", "cost.arm64-kvm.EXIT_USERSPACE=20000",
            List.of("[arm64-kvm]", "change nothing", "vhost-wakeup uses [x86_64-kvm]")),
        Arguments.of("all", "cost.s390x-kvm.SYSCALL=100", List.of("[s390x-kvm]", "change nothing")),
        // parameters
        Arguments.of("vcpu-preempted", "grups=400",
            // its parameters beside the top-level keys of its experiment files (paths as in run --set)
            List.of("parameter or experiment key [grups]", "groups, host", "pool-cpus", "wake-affine",
                "did you mean [groups]")),
        Arguments.of("vcpu-preempted", "vms[0].kernel.threads-per-core=3",
            List.of("[vms[0].kernel.threads-per-core=3]", "threads-per-core", "[1, 2, 4, 8]")),
        Arguments.of("vcpu-preempted", "smt=3", List.of("[smt=3]", "bad value [3]", "[1, 2, 4, 8]")),
        Arguments.of("vcpu-preempted", "groups=0", List.of("bad value [0]", "[groups]", "[1, 100000]")),
        Arguments.of("vcpu-preempted", "wake-affine=yes", List.of("bad value [yes]", "true or false")),
        // the LPAR's derived paths: a bad value, and 12 VPs (6 units) over --quick's pool of 4 processors
        Arguments.of("vcpu-preempted", "vps=0", List.of("[vps=0]", "bad value [0]", "[1, 160]")),
        Arguments.of("vcpu-preempted", "pool-cpus=x", List.of("[pool-cpus=x]", "bad value [x]", "whole number")),
        Arguments.of("vcpu-preempted", "vps=12", List.of("[vps=12]", "entitled capacity [6.0]", "[4]",
            "raise pool-cpus or lower vps")),
        Arguments.of("vcpu-preempted", "seeds=1,1", List.of("bad value [1,1]", "distinct")),
        Arguments.of("virtio-blk-notify", "seed=x", List.of("bad value [x]", "[seed]", "whole number")),
        Arguments.of("virtio-blk-notify", "groups=4", List.of("[groups]", "parameter or experiment key",
            "arm64-interrupt-transport, backend-service-us", "queue-policy, seed", "vms, warmup, x86-vmm]")),
        Arguments.of("virtio-blk-notify", "x86-vmm=qemu-9", List.of("bad value [qemu-9]", "[x86-vmm]",
            "qemu-2.0-dataplane")),
        Arguments.of("all", "groups=400", List.of("[groups=400]", "single reproduction", "cost.<profile>")));
  }

  @ParameterizedTest(name = "{0} --set {1}")
  @MethodSource("badSettings")
  void badSetting_exit2OneLine_beforeAnythingRunsOrOutExists(String target, String setting, List<String> fragments) {
    Path out = temp.resolve("out");
    Run run = CliFixture.run(BUILT_INS, "reproduce", target, "--quick", "--set", setting, "--out", out.toString());
    assertOneLineUsageError(run, fragments);
    assertThat(out).doesNotExist();
  }

  @Test
  void sameParameterOrCostTwice_exit2NamingIt() {
    assertOneLineUsageError(CliFixture.run(BUILT_INS, "reproduce", "vcpu-preempted", "--set", "groups=4", "--set",
        "groups=5"), List.of("[groups=5]", "given twice"));
    assertOneLineUsageError(CliFixture.run(BUILT_INS, "reproduce", "all", "--set", "cost.x86_64-kvm.TTWU_FULL=1500",
        "--set", "cost.x86_64-kvm.TTWU_FULL=2000"), List.of("[cost.x86_64-kvm.TTWU_FULL=2000]", "given twice"));
  }

  @Test
  void reproductionWithoutParametersOrProfiles_refusesEverySetting() {
    ClassLoader fakes = CliFixture.withReproductions(temp.resolve("plugins"), FakeReproductions.Reproduces.class);
    assertOneLineUsageError(CliFixture.run(fakes, "reproduce", "fake-ok", "--set", "level=2"),
        List.of("[level=2]", "declares no parameters"));
    assertOneLineUsageError(CliFixture.run(fakes, "reproduce", "fake-ok", "--set", "cost.x86_64-kvm.TTWU_FULL=1500"),
        List.of("change nothing"));
  }

  @Test
  void whatIf_reachesTheReproduction_andEveryOutputSaysWhatIf() throws IOException {
    ClassLoader fakes = CliFixture.withReproductions(temp.resolve("plugins"), FakeReproductions.WithParameter.class,
        FakeReproductions.Reproduces.class);
    Run plain = CliFixture.run(fakes, "reproduce", "fake-param");
    Run text = CliFixture.run(fakes, "reproduce", "fake-param", "--set", "cost.x86_64-kvm.TTWU_FULL=4321",
        "--set", "level=7");
    Run json = CliFixture.run(fakes, "reproduce", "fake-param", "--format", "json", "--set",
        "cost.x86_64-kvm.TTWU_FULL=4321", "--set", "level=7");

    assertThat(plain.exitCode()).isZero();
    assertThat(plain.out()).doesNotContainIgnoringCase("what-if").contains("REPRODUCED: ttwu_full");
    assertThat(plain.out()).doesNotContain("4321.0").doesNotContain("level 7");

    assertThat(text.exitCode()).as(text.err()).isZero(); // the exit status stays the verdict's
    List<String> lines = text.out().lines().toList();
    assertThat(lines.get(0)).startsWith("what-if: cost.x86_64-kvm.TTWU_FULL=4321, level=7");
    assertThat(lines.get(1)).startsWith("== fake-param");
    assertThat(lines).anyMatch(l -> l.startsWith("WHAT-IF — REPRODUCED: ttwu_full 4321.0 level 7"));
    assertThat(lines).noneMatch(l -> l.startsWith("REPRODUCED"));

    JsonNode node = MAPPER.readTree(json.out());
    assertThat(node.get("headline").asText()).isEqualTo("WHAT-IF — ttwu_full 4321.0 level 7");
    assertThat(node.at("/whatIf/costs/x86_64-kvm/TTWU_FULL").isIntegralNumber()).isTrue();
    assertThat(node.at("/whatIf/costs/x86_64-kvm/TTWU_FULL").asLong()).isEqualTo(4321);
    assertThat(node.at("/whatIf/parameters/level").asText()).isEqualTo("7");
    assertThat(node.at("/metrics/ttwu_full_ns").asDouble()).isEqualTo(4321.0);
    assertThat(MAPPER.readTree(CliFixture.run(fakes, "reproduce", "fake-param", "--format", "json").out())
        .has("whatIf")).isFalse();

    // with 'all', a reproduction the what-if does not touch runs as itself, unlabelled
    JsonNode all = MAPPER.readTree(CliFixture.run(fakes, "reproduce", "all", "--format", "json", "--set",
        "cost.x86_64-kvm.TTWU_FULL=4321").out());
    assertThat(all).hasSize(2);
    for (JsonNode r : all) {
      boolean touched = r.get("name").asText().equals("fake-param");
      assertThat(r.has("whatIf")).as(r.get("name").asText()).isEqualTo(touched);
      assertThat(r.get("headline").asText().startsWith("WHAT-IF — ")).isEqualTo(touched);
    }
  }

  @Test
  void help_documentsSet_withEveryParameterOfEveryBuiltInReproduction() {
    Run help = CliFixture.run(BUILT_INS, "reproduce", "--help");
    assertThat(help.out()).contains("--set=KEY=VALUE", "cost.<profile>.<COST_KEY>=<number>", "WHAT-IF");
    List<String> names = new ArrayList<>();
    for (Reproduction r : ServiceLoader.load(Reproduction.class, BUILT_INS)) {
      for (ReproductionParameter<?> p : r.parameters()) {
        names.add(p.name());
      }
    }
    assertThat(names).contains("groups", "smt", "wake-affine", "seeds", "seed");
    String flat = help.out().replaceAll("\\s+", " ");
    for (String name : names) {
      assertThat(flat).contains(" " + name + "=");
    }
  }

  private static void assertOneLineUsageError(Run run, List<String> fragments) {
    assertThat(run.exitCode()).as("exit code; stderr: %s", run.err()).isEqualTo(Lockvisor.EXIT_USAGE);
    assertThat(run.errLines()).as(run.err()).hasSize(1);
    assertThat(run.err()).startsWith("lockvisor: --set [").contains(fragments).doesNotContain("\tat ", "Exception");
    assertThat(run.out()).isEmpty();
  }
}
