package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.cli.CliFixture.Run;

/**
 * {@code --resume} of an envelope into a directory that holds another plan (other {@code
 * --samples}, seeds or parameters) is refused with one line naming the difference, before any run;
 * with {@code --force} the other plan's runs are replaced, so a later merge does not meet stale
 * run files. A plan file that is cut short or not a plan is one line in lockvisor's words, never
 * the JSON library's.
 */
class EnvelopeResumeTest {

  @TempDir
  Path temp;

  private static List<String> envelope(Path out, String samples, String... more) {
    List<String> args = new ArrayList<>(List.of("sweep", SweepEnvelopeTest.FILE.toString(), "--envelope",
        "--samples", samples, "--seeds", "1", "--jobs", "1", "--set", "duration=300us", "--param",
        "cost.x86_64-kvm.EXIT_IO_KERNEL", "--band", "base.vm0/fio.iops", "--out", out.toString()));
    args.addAll(List.of(more));
    return args;
  }

  private static long runFiles(Path out) throws IOException {
    try (Stream<Path> files = Files.list(out.resolve("runs"))) {
      return files.count();
    }
  }

  @Test
  void resume_withOtherSamples_refusedNamingTheDifference_forceReplacesTheRuns() throws IOException {
    Path out = temp.resolve("out");
    Run first = CliFixture.run(envelope(out, "3").toArray(String[]::new));
    assertThat(first.exitCode()).as(first.err()).isZero();
    assertThat(runFiles(out)).isEqualTo(3);

    Run refused = CliFixture.run(envelope(out, "2", "--resume").toArray(String[]::new));
    assertThat(refused.exitCode()).as(refused.err()).isEqualTo(2);
    assertThat(refused.errLines()).singleElement().asString()
        .startsWith("lockvisor: --resume: ").contains("another envelope plan", "--samples 2, not 3", "--force");
    assertThat(runFiles(out)).isEqualTo(3);

    Run forced = CliFixture.run(envelope(out, "2", "--resume", "--force").toArray(String[]::new));
    assertThat(forced.exitCode()).as(forced.err()).isZero();
    assertThat(runFiles(out)).as("the other plan's runs are gone").isEqualTo(2);
    Run merge = CliFixture.run("merge", out.toString(), "--out", temp.resolve("merged").toString());
    assertThat(merge.exitCode()).as(merge.err()).isZero();

    Run same = CliFixture.run(envelope(out, "2", "--resume").toArray(String[]::new));
    assertThat(same.exitCode()).as(same.err()).isZero();
    assertThat(same.err()).contains("(0 ran, 2 skipped)");
  }

  @Test
  void merge_ofACutShortPlan_oneLineInLockvisorsWords() throws IOException {
    Path shard = Files.createDirectories(temp.resolve("shard-0"));
    Files.writeString(shard.resolve("envelope-plan.json"), "{\"kind\": \"sweep\", \"samples\": 4, \"seeds\": [1");
    Path wrong = Files.createDirectories(temp.resolve("shard-1"));
    Files.writeString(wrong.resolve("envelope-plan.json"), "{\"kind\": \"sweep\"}");

    Run cut = CliFixture.run("merge", shard.toString(), "--out", temp.resolve("m0").toString());
    Run notAPlan = CliFixture.run("merge", wrong.toString(), "--out", temp.resolve("m1").toString());

    assertThat(cut.exitCode()).isEqualTo(2);
    assertThat(cut.errLines()).singleElement().asString().contains("not JSON as lockvisor writes it",
        "broken at line 1", "run that shard again").doesNotContain("Source:", "jackson", "Unexpected end-of-input");
    assertThat(notAPlan.exitCode()).isEqualTo(2);
    assertThat(notAPlan.errLines()).singleElement().asString().contains("not an envelope plan")
        .doesNotContain("internal error");
    assertThat(temp.resolve("m0")).doesNotExist();
    assertThat(temp.resolve("m1")).doesNotExist();
  }
}
