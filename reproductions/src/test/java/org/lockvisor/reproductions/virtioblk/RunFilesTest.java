package org.lockvisor.reproductions.virtioblk;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.reproductions.api.ReproductionOptions;
import org.lockvisor.reproductions.api.ReproductionRuns;
import org.lockvisor.reproductions.report.RunDirectories;
import org.lockvisor.reproductions.support.RunMeter;

/**
 * The files of one R2 point (arm64, both variants) written by {@link RunDirectories}: capturing
 * does not change what the reproduction measures, and the same seed writes the same bytes apart
 * from the wall-clock fields of result.json (and the wall time report.html shows).
 */
class RunFilesTest {

  @TempDir
  Path temp;

  private static VirtioBlkNotifyReproduction.Point armPoint(ReproductionRuns runs) {
    ReproductionOptions options = new ReproductionOptions(true, Optional.empty(), runs);
    return VirtioBlkNotifyReproduction.point(VirtioBlkNotifyReproduction.experiment(
        VirtioBlkNotifyReproduction.ARM_FILE, 4, VirtioBlkNotifyReproduction.plan(true), options), options,
        new RunMeter(), "", 0, 0);
  }

  @Test
  void capturing_changesNoFigure_andTheSameSeedWritesTheSameBytes() throws IOException {
    VirtioBlkNotifyReproduction.Point plain = armPoint(ReproductionRuns.NONE);
    VirtioBlkNotifyReproduction.Point a = armPoint(new RunDirectories(temp.resolve("a"), "v", "c"));
    VirtioBlkNotifyReproduction.Point b = armPoint(new RunDirectories(temp.resolve("b"), "v", "c"));

    assertThat(a).isEqualTo(plain);
    assertThat(b).isEqualTo(plain);
    Path runsA = temp.resolve("a").resolve(RunDirectories.RUNS);
    Path runsB = temp.resolve("b").resolve(RunDirectories.RUNS);
    int compared = 0;
    for (String label : List.of("arm64-kvm-numjobs4-baseline", "arm64-kvm-numjobs4-patched")) {
      try (Stream<Path> files = Files.list(runsA.resolve(label))) {
        for (Path f : files.sorted().toList()) {
          String name = f.getFileName().toString();
          if (name.equals("report.html")) {
            continue;
          }
          String x = Files.readString(f);
          String y = Files.readString(runsB.resolve(label).resolve(name));
          if (name.equals("result.json")) {
            assertThat(x).contains("\"wall_ns\"");
            x = withoutWallClock(x);
            y = withoutWallClock(y);
          }
          assertThat(y).as(label + "/" + name).isEqualTo(x);
          compared++;
        }
      }
    }
    // result.json, perf report, 2 perf script (guest, host), 3 folded, kvm stat, lock_stat,
    // lock contention, fio JSON; + 2 diffs
    assertThat(compared).isEqualTo(2 * 11 + 2);
  }

  private static String withoutWallClock(String json) {
    return json.replaceAll("\"(wall_ns|events_per_s)\" : \\d+", "\"$1\" : 0");
  }
}
