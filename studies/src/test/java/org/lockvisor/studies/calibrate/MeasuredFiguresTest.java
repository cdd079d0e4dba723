package org.lockvisor.studies.calibrate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.experiment.runner.LockClassStats;
import org.lockvisor.reports.LockStatReport;

/**
 * Measured figures are read from each format by its shape: a perf report's overhead per symbol
 * (summed over commands), lock_stat's columns as lockvisor's own {@link LockStatReport} prints
 * them (the kernel's layout), and a YAML of named numbers; anything else is one clear refusal.
 */
class MeasuredFiguresTest {

  @Test
  void perfReport_overheadPerSymbol_summedOverCommands() {
    String text = """
        # To display the perf.data header info, please use --header/--header-only options.
        #
        # Samples: 12K of event 'cpu-clock'
        # Event count (approx.): 3000000000
        #
        # Overhead  Command          Shared Object      Symbol
        # ........  ...............  .................  ......................
        #
            40.50%  sched-messaging  [kernel.kallsyms]  [k] osq_lock
            10.25%  sched-messaging  [kernel.kallsyms]  [k] mutex_spin_on_owner
             5.00%  kworker/0:1      [kernel.kallsyms]  [k] osq_lock
             2.00%  sched-messaging  [unknown]          [H] [H] hcall
        """;
    var f = MeasuredFigures.parse("perf.txt", text);
    assertThat(f.get("perf.osq_lock")).isCloseTo(45.5, within(1e-9));
    assertThat(f.get("perf.mutex_spin_on_owner")).isCloseTo(10.25, within(1e-9));
  }

  @Test
  void lockStat_readsTheKernelLayoutLockvisorWrites() {
    var stats = new LockClassStats("&pipe->mutex", 3, 120, 100, 9000, 480_000, 5, 1000, 50, 4000,
        2_000_000, 0, 0, 4, 2, List.of());
    String text = String.join("\n", LockStatReport.of(List.of(stats)).lines());
    var f = MeasuredFigures.parse("lock_stat", text);
    assertThat(f.get("lock_stat.&pipe->mutex.contentions")).isEqualTo(120);
    assertThat(f.get("lock_stat.&pipe->mutex.acquisitions")).isEqualTo(1000);
    assertThat(f.get("lock_stat.&pipe->mutex.waittime_total_us")).isCloseTo(480, within(0.01));
    assertThat(f.get("lock_stat.&pipe->mutex.holdtime_total_us")).isCloseTo(2000, within(0.01));
  }

  private static byte[] fixture(String name) throws java.io.IOException {
    try (var in = MeasuredFiguresTest.class.getResourceAsStream("/real-tools/" + name)) {
      return in.readAllBytes();
    }
  }

  /** Real fio 3.33 output (reports/src/test/resources/real-tools/README.md says how it was made; copied here). */
  @Test
  void realFioJson_readDirectionHasFigures_idleDirectionHasNone() throws java.io.IOException {
    var f = MeasuredFigures.parse("fio.json", fixture("fio-3.33-randread-libaio.json"));
    assertThat(f.get("fio.read.iops")).isCloseTo(11377.78, within(0.01));
    assertThat(f.get("fio.read.bw_kib")).isEqualTo(45511.0);
    assertThat(f.get("fio.read.clat_mean_us")).isCloseTo(262.42, within(0.01));
    assertThat(f).doesNotContainKey("fio.write.iops");
  }

  /** Real iperf3 3.12 -J output (two streams on loopback). */
  @Test
  void realIperf3Json_endFigures() throws java.io.IOException {
    var f = MeasuredFigures.parse("iperf3.json", fixture("iperf3-3.12-client.json"));
    assertThat(f.get("iperf3.received_gbps")).isCloseTo(17.367, within(0.001));
    assertThat(f.get("iperf3.cpu_host_pct")).isCloseTo(98.88, within(0.01));
    assertThat(f).containsKeys("iperf3.sent_gbps", "iperf3.cpu_remote_pct");
  }

  @Test
  void lockStat_realKernelRowWithoutLockvisorsColumns_alsoRead() {
    String text = "lock_stat version 0.4\n" + String.format("%40s:", "&pipe->mutex")
        + "              3            120           0.10           9.00         480.00           4.00"
        + "              5           1000           0.05           4.00        2000.00           2.00\n";
    var f = MeasuredFigures.parse("lock_stat", text);
    assertThat(f.get("lock_stat.&pipe->mutex.contentions")).isEqualTo(120);
    assertThat(f.get("lock_stat.&pipe->mutex.holdtime_total_us")).isCloseTo(2000, within(0.01));
  }

  @Test
  void namedYaml_figuresAsNamed() {
    var f = MeasuredFigures.parse("t.yaml", "iops: 14000\nvhost_cpu_pct: 28.82\n");
    assertThat(f).containsEntry("iops", 14000.0).containsEntry("vhost_cpu_pct", 28.82);
  }

  @Test
  void wrongFormats_oneLineNamingTheFile() {
    assertThatThrownBy(() -> MeasuredFigures.parse("x.bin", "\u0000\u0001 garbage: [unclosed"))
        .isInstanceOf(UserInputException.class).hasMessageStartingWith("x.bin: ");
    assertThatThrownBy(() -> MeasuredFigures.parse("t.yaml", "iops: fast\n"))
        .isInstanceOf(UserInputException.class).hasMessageContaining("[iops] is not a finite number");
    assertThatThrownBy(() -> MeasuredFigures.parse("f.json", "{\"fio version\": \"fio-3.33\", \"jobs\": []}"))
        .isInstanceOf(UserInputException.class).hasMessageContaining("without jobs");
    assertThatThrownBy(() -> MeasuredFigures.parse("p.txt", "# Samples: 0\n# Overhead\n"))
        .isInstanceOf(UserInputException.class).hasMessage("p.txt: no figure found in it");
  }
}
