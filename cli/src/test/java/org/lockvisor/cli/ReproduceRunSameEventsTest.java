package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.cli.CliFixture.Run;

/**
 * {@code lockvisor reproduce vcpu-preempted} and {@code lockvisor run} of the files {@code
 * reproduce vcpu-preempted --export-experiments} writes, both with the same {@code --set}, build
 * the same machines: for one small point (one group of perf bench, seed 1) every run of the
 * reproduction — both rows, both variants — has the fingerprint of the variant of the exported
 * file {@code run} gives. Both go through the CLI with the built-in plugins and reproductions, so
 * this is the one runner both commands are injected with, not a second assembly path.
 */
class ReproduceRunSameEventsTest {
  static final String SET = "vms[0].workloads[0].options.groups=1";
  static final ObjectMapper MAPPER = new ObjectMapper();
  static final ClassLoader BUILT_INS = ReproduceRunSameEventsTest.class.getClassLoader();

  @TempDir
  Path temp;

  @Test
  void reproduceAndRunOfItsExportedFiles_sameSet_sameFingerprints() throws IOException {
    Path out = temp.resolve("out");
    Run reproduce = CliFixture.run(BUILT_INS, "reproduce", "vcpu-preempted", "--set", SET, "--set", "seeds=1",
        "--out", out.toString(), "--format", "json");
    // one group is far from the published figures: the bands may miss, the runs must have run
    assertThat(reproduce.exitCode()).as(reproduce.err()).isIn(0, 1);
    assertThat(reproduce.err()).doesNotContain("Exception");

    Path files = temp.resolve("files");
    Run export = CliFixture.run(BUILT_INS, "reproduce", "vcpu-preempted", "--export-experiments", files.toString(),
        "--set", SET);
    assertThat(export.exitCode()).as(export.err()).isZero();

    Map<String, String> reproduced = new HashMap<>();
    for (String row : List.of("ppc64-powervm-groups1", "x86_64-kvm-groups1")) {
      for (String variant : List.of("baseline", "patched")) {
        JsonNode doc = MAPPER.readTree(out.resolve("vcpu-preempted").resolve("runs")
            .resolve(row + "-" + variant + "-seed1").resolve("result.json").toFile());
        reproduced.put(row + "/" + variant, doc.at("/runs/0/fingerprint").asText());
      }
    }
    Map<String, String> ran = new HashMap<>();
    for (String[] file : new String[][] {{"vcpu-preempted-powervm.yaml", "ppc64-powervm-groups1"},
        {"vcpu-preempted-kvm.yaml", "x86_64-kvm-groups1"}}) {
      Run run = CliFixture.run(BUILT_INS, "run", files.resolve(file[0]).toString(), "--set", SET, "--format", "json");
      assertThat(run.exitCode()).as(run.err()).isZero();
      for (JsonNode r : MAPPER.readTree(run.out()).get("runs")) {
        String variant = r.get("variant").asText().equals("base") ? "baseline" : r.get("variant").asText();
        ran.put(file[1] + "/" + variant, r.get("fingerprint").asText());
      }
    }
    assertThat(reproduced).hasSize(4).doesNotContainValue("");
    assertThat(ran).isEqualTo(reproduced);
    assertThat(ran.get("ppc64-powervm-groups1/baseline")).as("the check changes the run")
        .isNotEqualTo(ran.get("ppc64-powervm-groups1/patched"));
  }
}
