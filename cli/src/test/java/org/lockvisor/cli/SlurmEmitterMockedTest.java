package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoMoreInteractions;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.lockvisor.cli.ClusterJobs.ScriptFiles;
import org.mockito.ArgumentCaptor;

/**
 * The Slurm emitter against a mocked {@link ScriptFiles} (the disk): the script the emitter made
 * is written once, executable, as {@code lockvisor-sweep.sbatch} of the output directory, and only
 * then is the {@code sbatch} line printed; a write that fails (a full disk, which a test cannot
 * have on demand) names the file and prints no submit line for a script that is not there.
 */
class SlurmEmitterMockedTest {

  private static final Path OUT = Path.of("/shared/lockvisor/out");

  private static String script() {
    ClusterJobs.Sweep sweep = new ClusterJobs.Sweep("vq-sweep", Path.of("/shared/vq.yaml"), OUT, 4, 2, 7L,
        List.of("warmup=0"));
    return ClusterJobs.slurm(sweep, "/shared/lockvisor.jar", List.of(Path.of("/shared/plugins/my lock.jar")),
        new ClusterJobs.Resources(null, "2:00:00", "4G", null));
  }

  @Test
  void write_writesTheEmittedScriptOnce_thenPrintsHowToSubmitIt() throws IOException {
    ScriptFiles files = mock(ScriptFiles.class);
    StringWriter stdout = new StringWriter();
    String script = script();

    Path job = ClusterJobs.write(files, OUT, script, "sweep [vq-sweep]: 8 points in 4 shards", new PrintWriter(stdout));

    ArgumentCaptor<String> written = ArgumentCaptor.forClass(String.class);
    verify(files).writeExecutable(eq(OUT.resolve("lockvisor-sweep.sbatch")), written.capture());
    verifyNoMoreInteractions(files);
    assertThat(job).isEqualTo(OUT.resolve("lockvisor-sweep.sbatch"));
    assertThat(written.getValue()).isEqualTo(script)
        .contains("#SBATCH --array=0-3\n", "#SBATCH --time=2:00:00\n", "#SBATCH --mem=4G\n")
        .contains(" --plugins '/shared/plugins/my lock.jar' ");
    assertThat(stdout.toString().lines()).containsExactly(
        "sweep [vq-sweep]: 8 points in 4 shards; wrote /shared/lockvisor/out/lockvisor-sweep.sbatch",
        "submit: sbatch /shared/lockvisor/out/lockvisor-sweep.sbatch",
        "merge:  lockvisor merge /shared/lockvisor/out/shard-* --out /shared/lockvisor/out/merged");
  }

  @Test
  void write_diskFull_namesTheScript_andPrintsNoSubmitLine() throws IOException {
    ScriptFiles files = mock(ScriptFiles.class);
    doThrow(new IOException("No space left on device")).when(files).writeExecutable(any(), any());
    StringWriter stdout = new StringWriter();

    assertThatThrownBy(() -> ClusterJobs.write(files, OUT, script(), "sweep [vq-sweep]", new PrintWriter(stdout)))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessage("cannot write [/shared/lockvisor/out/lockvisor-sweep.sbatch]")
        .hasRootCauseMessage("No space left on device");
    assertThat(stdout.toString()).isEmpty();
  }
}
