package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.cli.CliFixture.Run;

/**
 * The Slurm job array that {@code sweep --emit slurm} writes runs on a real Slurm: a single-node
 * cluster (munged, slurmctld and slurmd of the Debian packages slurm-wlm and munge, started by
 * {@code src/test/resources/slurm/cluster.sh} with a generated slurm.conf in a directory of its
 * own) runs the script with {@code sbatch --wait}; the shards it wrote, merged, equal the
 * unsharded sweep, and likewise a small setup envelope ({@code sweep --envelope}), a seed
 * reproduction's envelope and the envelope of a reproduction that only a plugin jar brings (the
 * array carries {@code --plugins} and finds Java on the node). Every daemon the test started is stopped, whatever happens.
 *
 * <p>CI installs the packages ({@code .ci/run}) and runs as root, and there the test must run: with
 * {@code CI} set, a missing Slurm fails it. Elsewhere it is skipped with the reason.
 */
class SlurmSweepTest {

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final long TIMEOUT_S = 300;

  @TempDir
  Path temp;

  @Test
  void emittedArray_onASingleNodeCluster_mergesToTheUnshardedSweep() throws Exception {
    boolean ci = System.getenv("CI") != null;
    List<String> missing = new ArrayList<>();
    for (String tool : List.of("/usr/bin/sbatch", "/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/sbin/munged")) {
      if (!Files.isExecutable(Path.of(tool))) {
        missing.add(tool);
      }
    }
    boolean root = "root".equals(System.getProperty("user.name"));
    if (ci) {
      assertThat(missing).as("CI installs slurm-wlm and munge (.ci/run)").isEmpty();
      assertThat(root).as("CI runs as root, which the single-node cluster needs").isTrue();
    }
    assumeTrue(missing.isEmpty(), "Slurm is not installed (apt-get install slurm-wlm munge): " + missing);
    assumeTrue(root, "the single-node Slurm cluster needs root");

    Path cluster = Files.createDirectories(temp.resolve("cluster"));
    Path script = Path.of(SlurmSweepTest.class.getResource("/slurm/cluster.sh").toURI());
    try {
      List<String> started = sh(List.of("bash", script.toString(), "start", cluster.toString()), null).lines().toList();
      String conf = started.get(started.size() - 1);
      Path shared = temp.resolve("shared");
      Run emit = CliFixture.run("sweep", SweepCommandsTest.SWEEP.toString(), "--out", shared.toString(),
          "--set", "warmup=0", "--set", "duration=1500us", "--emit", "slurm", "--shards", "3");
      assertThat(emit.exitCode()).as(emit.err()).isZero();

      sh(List.of("sbatch", "--wait", shared.resolve("lockvisor-sweep.sbatch").toString()), conf);

      Path merged = temp.resolve("merged");
      Run merge = CliFixture.run("merge", shared.resolve("shard-0").toString(), shared.resolve("shard-1").toString(),
          shared.resolve("shard-2").toString(), "--out", merged.toString());
      assertThat(merge.exitCode()).as(merge.err()).isZero();

      Path full = temp.resolve("full");
      Run sweep = CliFixture.run("sweep", SweepCommandsTest.SWEEP.toString(), "--out", full.toString(),
          "--set", "warmup=0", "--set", "duration=1500us", "--jobs", "1");
      assertThat(sweep.exitCode()).as(sweep.err()).isZero();
      ObjectNode fromShards = (ObjectNode) MAPPER.readTree(merged.resolve("sweep.json").toFile());
      ObjectNode unsharded = (ObjectNode) MAPPER.readTree(full.resolve("sweep.json").toFile());
      // the descriptor records the shards the points came from; everything else is equal
      assertThat(fromShards.remove("shards")).hasSize(3);
      unsharded.remove("shards");
      assertThat(fromShards).isEqualTo(unsharded);

      // a setup envelope goes through the same machinery: emitted, run by Slurm, merged
      String[] envelope = {"sweep", SweepEnvelopeTest.FILE.toString(), "--envelope", "--samples", "4", "--seeds", "1",
          "--set", "duration=1ms", "--param", "cost.x86_64-kvm.EXIT_IO_KERNEL", "--band", "base.vm0/fio.iops",
          "--band", "ratio.inside-lock.vm0/fio.iops"};
      Path envShared = temp.resolve("envelope-shared");
      Run envEmit = CliFixture.run(with(envelope, "--out", envShared.toString(), "--emit", "slurm", "--shards", "2"));
      assertThat(envEmit.exitCode()).as(envEmit.err()).isZero();
      sh(List.of("sbatch", "--wait", envShared.resolve("lockvisor-sweep.sbatch").toString()), conf);
      Path envMerged = temp.resolve("envelope-merged");
      Run envMerge = CliFixture.run("merge", envShared.resolve("shard-0").toString(),
          envShared.resolve("shard-1").toString(), "--out", envMerged.toString());
      assertThat(envMerge.exitCode()).as(envMerge.err()).isZero();
      Path envFull = temp.resolve("envelope-full");
      Run envRun = CliFixture.run(with(envelope, "--out", envFull.toString(), "--jobs", "1"));
      assertThat(envRun.exitCode()).as(envRun.err()).isZero();
      assertThat(MAPPER.readTree(envMerged.resolve("envelope.json").toFile()))
          .isEqualTo(MAPPER.readTree(envFull.resolve("envelope.json").toFile()));

      // a seed reproduction's envelope (R2, two samples at --quick) emitted by reproduce, run by Slurm, merged
      String[] r2 = {"reproduce", "virtio-blk-notify", "--envelope", "--samples", "2", "--seeds", "1", "--quick",
          "--param", "backend-service-us"};
      Path r2Shared = temp.resolve("r2-shared");
      ClassLoader builtIns = SlurmSweepTest.class.getClassLoader();
      Run r2Emit = CliFixture.run(builtIns, with(r2, "--out", r2Shared.toString(), "--emit", "slurm", "--shards", "2"));
      assertThat(r2Emit.exitCode()).as(r2Emit.err()).isZero();
      sh(List.of("sbatch", "--wait", r2Shared.resolve("lockvisor-sweep.sbatch").toString()), conf);
      Path r2Merged = temp.resolve("r2-merged");
      Run r2Merge = CliFixture.run("merge", r2Shared.resolve("shard-0").toString(),
          r2Shared.resolve("shard-1").toString(), "--out", r2Merged.toString());
      assertThat(r2Merge.exitCode()).as(r2Merge.err()).isZero();
      Path r2Full = temp.resolve("r2-full");
      Run r2Run = CliFixture.run(builtIns, with(r2, "--out", r2Full.toString(), "--jobs", "1"));
      assertThat(r2Run.exitCode()).as(r2Run.err()).isZero();
      assertThat(MAPPER.readTree(r2Merged.resolve("envelope.json").toFile()))
          .isEqualTo(MAPPER.readTree(r2Full.resolve("envelope.json").toFile()));

      // a reproduction that only a plugin jar brings: the array carries --plugins (its tasks failed
      // with "unknown reproduction" when the script dropped them), on the Java found on the node
      Path jar = PluginPathCommandTest.servicesJar(temp.resolve("plugins.jar"),
          org.lockvisor.reproductions.api.Reproduction.class, FakeReproductions.WithEnvelope.class);
      String[] fake = {"--plugins", jar.toString(), "reproduce", "fake-envelope", "--envelope", "--samples", "6",
          "--seeds", "2", "--param", "level=2..8"};
      Path fakeShared = temp.resolve("plugin-shared");
      Run fakeEmit = CliFixture.run(CliFixture.WITHOUT_BUILT_IN_REPRODUCTIONS, with(fake, "--out",
          fakeShared.toString(), "--emit", "slurm", "--shards", "3"));
      assertThat(fakeEmit.exitCode()).as(fakeEmit.err()).isZero();
      sh(List.of("sbatch", "--wait", fakeShared.resolve("lockvisor-sweep.sbatch").toString()), conf);
      Path fakeMerged = temp.resolve("plugin-merged");
      Run fakeMerge = CliFixture.run(CliFixture.WITHOUT_BUILT_IN_REPRODUCTIONS, "merge",
          fakeShared.resolve("shard-0").toString(), fakeShared.resolve("shard-1").toString(),
          fakeShared.resolve("shard-2").toString(), "--out", fakeMerged.toString());
      assertThat(fakeMerge.exitCode()).as(fakeMerge.err()).isZero();
      Path fakeFull = temp.resolve("plugin-full");
      Run fakeRun = CliFixture.run(CliFixture.WITHOUT_BUILT_IN_REPRODUCTIONS, with(fake, "--out",
          fakeFull.toString(), "--jobs", "1"));
      assertThat(fakeRun.exitCode()).as(fakeRun.err()).isZero();
      assertThat(MAPPER.readTree(fakeMerged.resolve("envelope.json").toFile()))
          .isEqualTo(MAPPER.readTree(fakeFull.resolve("envelope.json").toFile()));
    } finally {
      sh(List.of("bash", script.toString(), "stop", cluster.toString()), null);
    }
  }

  private static String[] with(String[] args, String... more) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of(more));
    return all.toArray(String[]::new);
  }

  /** Runs a command (with {@code SLURM_CONF} when given) and returns its stdout; fails on a non-zero exit. */
  private static String sh(List<String> command, String slurmConf) throws IOException, InterruptedException {
    Path log = Files.createTempFile("lockvisor-slurm", ".log");
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    if (slurmConf != null) {
      pb.environment().put("SLURM_CONF", slurmConf);
    }
    Process p = pb.start();
    boolean done = p.waitFor(TIMEOUT_S, TimeUnit.SECONDS);
    if (!done) {
      p.destroyForcibly();
    }
    String text = Files.readString(log, StandardCharsets.UTF_8);
    Files.delete(log);
    assertThat(done).as("%s did not finish in %s s: %s", command, TIMEOUT_S, text).isTrue();
    assertThat(p.exitValue()).as("%s: %s", command, text).isZero();
    return text;
  }
}
