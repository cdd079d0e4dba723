package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.cli.CliFixture.Run;
import org.lockvisor.reproductions.api.Reproduction;

/**
 * {@code sweep --emit slurm}: the script is an array of one task per shard, each running {@code
 * --shard $SLURM_ARRAY_TASK_ID/N --resume} into its own directory with the command line's
 * overrides and plugin jars, on the Java of the node it lands on ({@code --java}, else {@code
 * JAVA_HOME}, else the PATH) with the {@code --time}, {@code --mem} and {@code --partition} asked
 * for; an output directory under {@code /tmp} is warned of. A task run by bash as Slurm runs it
 * writes its shard. There is no Kubernetes emitter. Bad combinations are one line and exit 2 with
 * no output directory.
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
        .contains(" org.lockvisor.cli.Lockvisor sweep ")
        .contains("exec \"$java\" -cp ");
    assertThat(out.resolve("lockvisor-sweep.sbatch").toFile().canExecute()).isTrue();
    assertThat(out.resolve("points")).doesNotExist(); // nothing ran here
  }

  @Test
  void slurm_carriesThePluginJars_andFindsJavaOnTheNode() throws IOException {
    Path jar = PluginPathCommandTest.servicesJar(temp.resolve("plugins.jar"), Reproduction.class,
        FakeReproductions.Reproduces.class);
    Path out = temp.resolve("out");
    List<String> args = new ArrayList<>(List.of("--plugins", jar.toString(), "sweep",
        SweepCommandsTest.SWEEP.toString(), "--out", out.toString(), "--set", "warmup=0", "--set", "duration=1500us",
        "--emit", "slurm", "--shards", "2"));
    Run run = CliFixture.run(args.toArray(String[]::new));
    assertThat(run.exitCode()).as(run.err()).isZero();
    String script = Files.readString(out.resolve("lockvisor-sweep.sbatch"));

    assertThat(script).contains(" org.lockvisor.cli.Lockvisor --plugins " + jar.toAbsolutePath() + " sweep ")
        .contains("$JAVA_HOME/bin/java", "command -v java", "emit with --java PATH")
        .doesNotContain(System.getProperty("java.home"));
  }

  @Test
  void slurm_javaAndResources_becomeTheScriptsLines() throws IOException {
    Path out = temp.resolve("out");
    Run run = emit(out, "--emit", "slurm", "--java", "/opt/jdk-17/bin/java", "--time", "2:00:00", "--mem", "4G",
        "--partition", "batch");
    assertThat(run.exitCode()).as(run.err()).isZero();
    String script = Files.readString(out.resolve("lockvisor-sweep.sbatch"));

    assertThat(script).contains("#SBATCH --time=2:00:00\n", "#SBATCH --mem=4G\n", "#SBATCH --partition=batch\n",
        "java=/opt/jdk-17/bin/java\n").doesNotContain("JAVA_HOME");
  }

  @Test
  void slurm_outUnderTmp_warnsThatItIsNodeLocal() {
    Path out = temp.resolve("out");
    Run run = emit(out, "--emit", "slurm");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(temp.toAbsolutePath().toString()).startsWith("/tmp");
    assertThat(run.err()).contains("lockvisor: warning: --out [" + out.toAbsolutePath() + "] is under /tmp",
        "local to each node");
    assertThat(ClusterJobs.nodeLocalWarning("--out", Path.of("/shared/sweeps/x"))).isEmpty();
  }

  /**
   * The script's task, run by bash as Slurm would run it (task 1 of 2, no JAVA_HOME: java from the
   * PATH), writes its shard with the plugin its jar registers; without a Slurm.
   */
  @Test
  void slurm_taskRunByBash_findsJavaOnThePath_andLoadsThePlugin() throws Exception {
    Path jar = PluginPathCommandTest.servicesJar(temp.resolve("plugins.jar"), Reproduction.class,
        FakeReproductions.WithEnvelope.class);
    Path out = temp.resolve("shared");
    Run emit = CliFixture.run(CliFixture.WITHOUT_BUILT_IN_REPRODUCTIONS, "--plugins", jar.toString(), "reproduce",
        "fake-envelope", "--envelope", "--samples", "2", "--seeds", "1", "--out", out.toString(), "--emit", "slurm",
        "--shards", "2");
    assertThat(emit.exitCode()).as(emit.err()).isZero();

    ProcessBuilder pb = new ProcessBuilder("bash", out.resolve("lockvisor-sweep.sbatch").toString())
        .redirectErrorStream(true);
    pb.environment().remove("JAVA_HOME");
    pb.environment().put("SLURM_ARRAY_TASK_ID", "1");
    pb.environment().put("PATH", Path.of(System.getProperty("java.home"), "bin") + ":/usr/bin:/bin");
    Process p = pb.start();
    String log = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS)).isTrue();

    assertThat(p.exitValue()).as(log).isZero();
    assertThat(out.resolve("shard-1").resolve("envelope-plan.json")).exists();
    assertThat(out.resolve("shard-0")).doesNotExist();
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
        {"--emit", "slurm", "--image", "i"},
        {"--emit", "slurm", "--mem", "lots"},
        {"--emit", "slurm", "--java", "java"},
        {"--emit", "slurm", "--partition", "a b"},
        {"--time", "1:00:00"},
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
