package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.cli.CliFixture.Run;

/**
 * {@code sweep --emit slurm|k8s}: the Slurm script is an array of one task per shard, each running
 * {@code --shard $SLURM_ARRAY_TASK_ID/N --resume} into its own directory with the command line's
 * overrides; the Kubernetes manifest binds, field for field, to the batch/v1 Job and v1 ConfigMap
 * of the Kubernetes object model (fabric8 kubernetes-model 8.0.0) with nothing left over, is an
 * Indexed Job of N completions, and its pods run the same arguments with the index the Job
 * controller publishes. Bad combinations are one line and exit 2 with no output directory.
 */
class ClusterJobsTest {

  @TempDir
  Path temp;

  private Run emit(Path out, String... extra) {
    List<String> args = new ArrayList<>(List.of("sweep", SweepCommandsTest.SWEEP.toString(), "--out", out.toString(),
        "--set", "warmup=0", "--set", "duration=1500us"));
    args.addAll(List.of(extra));
    return CliFixture.run(args.toArray(String[]::new));
  }

  @Test
  void slurm_oneArrayTaskPerShard_eachResumesItsShardWithTheOverrides() throws IOException {
    Path out = temp.resolve("out");
    Run run = emit(out, "--emit", "slurm", "--shards", "3", "--jobs", "2", "--seed", "7");
    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("8 points in 3 shards").contains("submit: sbatch ");
    String script = Files.readString(out.resolve("lockvisor-sweep.sbatch"));
    assertThat(script).startsWith("#!/bin/bash\n")
        .contains("#SBATCH --array=0-2\n")
        .contains("#SBATCH --cpus-per-task=2\n")
        .contains("i=\"${SLURM_ARRAY_TASK_ID:?not a Slurm array task}\"")
        .contains(" --shard \"$i/3\"")
        .contains(" --out " + out.toAbsolutePath() + "/shard-\"$i\"")
        .contains(" --resume ")
        .contains(" --seed 7 ")
        .contains(" --set warmup=0 --set duration=1500us")
        .contains(" org.lockvisor.cli.Lockvisor sweep ");
    assertThat(out.resolve("lockvisor-sweep.sbatch").toFile().canExecute()).isTrue();
    assertThat(out.resolve("points")).doesNotExist(); // nothing ran here
  }

  @Test
  void k8s_bindsToTheKubernetesModel_asAnIndexedJobOfOneCompletionPerShard() throws IOException {
    Path out = temp.resolve("out");
    Run run = emit(out, "--emit", "k8s", "--shards", "4", "--image", "registry.example/lockvisor:0.1",
        "--claim", "sweep-results");
    assertThat(run.exitCode()).as(run.err()).isZero();
    List<Object> docs = readAll(out.resolve("lockvisor-sweep-job.yaml"));
    assertThat(docs).hasSize(2);
    ConfigMap config = (ConfigMap) docs.get(0);
    Job job = (Job) docs.get(1);

    assertThat(config.getAdditionalProperties()).isEmpty();
    assertThat(config.getData().get("experiment.yaml"))
        .isEqualTo(Files.readString(SweepCommandsTest.SWEEP));
    assertThat(job.getAdditionalProperties()).isEmpty();
    assertThat(job.getApiVersion()).isEqualTo("batch/v1");
    assertThat(job.getMetadata().getName()).isEqualTo("lockvisor-locktorture-sweep");
    assertThat(job.getSpec().getAdditionalProperties()).isEmpty();
    assertThat(job.getSpec().getCompletionMode()).isEqualTo("Indexed");
    assertThat(job.getSpec().getCompletions()).isEqualTo(4);
    assertThat(job.getSpec().getTemplate().getSpec().getRestartPolicy()).isEqualTo("Never");
    assertThat(job.getSpec().getTemplate().getSpec().getAdditionalProperties()).isEmpty();
    Container c = job.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(c.getAdditionalProperties()).isEmpty();
    assertThat(c.getImage()).isEqualTo("registry.example/lockvisor:0.1");
    assertThat(c.getCommand()).startsWith("lockvisor", "sweep", "/experiment/experiment.yaml")
        .endsWith("--out", "/out/shard-$(JOB_COMPLETION_INDEX)", "--shard", "$(JOB_COMPLETION_INDEX)/4")
        .containsSubsequence("--set", "warmup=0", "--set", "duration=1500us");
    assertThat(c.getEnv().get(0).getName()).isEqualTo("JOB_COMPLETION_INDEX");
    assertThat(c.getEnv().get(0).getValueFrom().getFieldRef().getFieldPath())
        .isEqualTo("metadata.annotations['batch.kubernetes.io/job-completion-index']");
    var volumes = job.getSpec().getTemplate().getSpec().getVolumes();
    assertThat(volumes).extracting(v -> v.getPersistentVolumeClaim() == null ? null
        : v.getPersistentVolumeClaim().getClaimName()).contains("sweep-results");
    assertThat(volumes).extracting(v -> v.getConfigMap() == null ? null : v.getConfigMap().getName())
        .contains(config.getMetadata().getName());
  }

  @Test
  void k8s_reproductionEnvelope_bindsAsAnIndexedJobWithoutAConfigMap() throws IOException {
    Path out = temp.resolve("r2");
    Run run = CliFixture.run(ClusterJobsTest.class.getClassLoader(), "reproduce", "virtio-blk-notify", "--envelope", "--samples", "6", "--seeds", "1",
        "--quick", "--out", out.toString(), "--emit", "k8s", "--shards", "3", "--image",
        "registry.example/lockvisor:0.1", "--claim", "envelopes");
    assertThat(run.exitCode()).as(run.err()).isZero();
    List<Object> docs = readAll(out.resolve("lockvisor-sweep-job.yaml"));
    assertThat(docs).hasSize(1);
    Job job = (Job) docs.get(0);
    assertThat(job.getAdditionalProperties()).isEmpty();
    assertThat(job.getSpec().getAdditionalProperties()).isEmpty();
    assertThat(job.getSpec().getCompletionMode()).isEqualTo("Indexed");
    assertThat(job.getSpec().getCompletions()).isEqualTo(3);
    Container c = job.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(c.getAdditionalProperties()).isEmpty();
    assertThat(c.getCommand()).startsWith("lockvisor", "reproduce", "virtio-blk-notify")
        .containsSubsequence("--envelope", "--samples", "6", "--seeds", "1", "--quick")
        .endsWith("--out", "/out/shard-$(JOB_COMPLETION_INDEX)", "--shard", "$(JOB_COMPLETION_INDEX)/3");
    assertThat(c.getVolumeMounts()).extracting(m -> m.getMountPath()).containsExactly("/out");
    assertThat(job.getSpec().getTemplate().getSpec().getVolumes()).hasSize(1);
  }

  /** Every document of a multi-document manifest, bound to the Kubernetes model by its kind. */
  private static List<Object> readAll(Path file) throws IOException {
    ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
    ObjectMapper json = JsonMapper.builder().build();
    List<Object> docs = new ArrayList<>();
    try (YAMLParser parser = new YAMLFactory().createParser(file.toFile())) {
      var it = yaml.readValues(parser, com.fasterxml.jackson.databind.JsonNode.class);
      while (it.hasNext()) {
        var node = it.next();
        Class<?> type = switch (node.get("kind").asText()) {
          case "Job" -> Job.class;
          case "ConfigMap" -> ConfigMap.class;
          default -> throw new AssertionError("unexpected kind " + node.get("kind"));
        };
        docs.add(json.treeToValue(node, type));
      }
    }
    return docs;
  }

  @Test
  void jobName_isADns1123Label() {
    assertThat(ClusterJobs.jobName("R1 Vhost_Sweep!")).isEqualTo("lockvisor-r1-vhost-sweep");
    assertThat(ClusterJobs.jobName("x".repeat(100))).hasSize(63).matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  }

  @Test
  void shellQuote_keepsSafeWordsAndQuotesTheRest() {
    assertThat(ClusterJobs.shellQuote("duration=1500us")).isEqualTo("duration=1500us");
    assertThat(ClusterJobs.shellQuote("a b")).isEqualTo("'a b'");
    assertThat(ClusterJobs.shellQuote("it's")).isEqualTo("'it'\\''s'");
    assertThat(ClusterJobs.shellQuote("$(rm -rf /)")).isEqualTo("'$(rm -rf /)'");
  }

  @Test
  void badCombinations_exit2OneLine_noOutputDirectory() {
    Path out = temp.resolve("never");
    String[][] bad = {
        {"--emit", "pbs"},
        {"--emit", "k8s"},
        {"--emit", "k8s", "--image", "i"},
        {"--emit", "slurm", "--image", "i"},
        {"--emit", "slurm", "--shard", "0/2"},
        {"--emit", "slurm", "--resume"},
        {"--emit", "slurm", "--shards", "0"},
        {"--emit", "slurm", "--shards", "9"},
        {"--shards", "2"},
    };
    for (String[] args : bad) {
      Run run = emit(out, args);
      assertThat(run.exitCode()).as(String.join(" ", args) + ": " + run.err()).isEqualTo(2);
      assertThat(run.errLines()).as(String.join(" ", args)).hasSize(1);
      assertThat(out).as(String.join(" ", args)).doesNotExist();
    }
  }
}
