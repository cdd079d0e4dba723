package org.lockvisor.reproductions.vhost;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.reproductions.api.ReproductionOptions;
import org.lockvisor.reproductions.api.ReproductionResult;
import org.lockvisor.studies.envelope.Band;

/**
 * The quick vhost-wakeup reproduction: directions and bands of issue 5 that the mechanism must
 * show, the JSON rows in the issue's shape, and the plot files. Runs once for the class.
 */
class VhostWakeupReproductionTest {
  @TempDir
  static Path out;
  static ReproductionResult result;
  static long wallMs;

  @BeforeAll
  static void runQuick() {
    long t0 = System.nanoTime();
    result = new VhostWakeupReproduction().run(new ReproductionOptions(true, Optional.of(out)));
    wallMs = (System.nanoTime() - t0) / 1_000_000;
    result.report().forEach(System.out::println);
    System.out.println(result.headline() + " (" + wallMs + " ms)");
  }

  @Test
  void bands_oneBaselineAndOnePatchedPerFigure_simulatedAsInMetrics() {
    assertThat(result.bands()).hasSize(4 * 4 + 1);
    assertThat(result.bands()).extracting(Band::key)
        .containsExactlyElementsOf(new VhostWakeupReproduction().bandKeys());
    assertThat(result.bands()).filteredOn(Band::baselineOnly).hasSize(8)
        .allSatisfy(b -> assertThat(b.key()).contains(".baseline."));
    assertThat(result.bands()).filteredOn(b -> b.key().startsWith("t"))
        .allSatisfy(b -> assertThat(b.simulated()).isEqualTo(result.metrics().get(b.key())));
    assertThat(result.bands()).filteredOn(b -> !b.key().startsWith("reduction"))
        .allSatisfy(b -> assertThat(b.hasPublished()).isTrue());
  }

  @Test
  void throughput_flatAtLineRateInBothVariants() {
    // the default setup's MTU 9000 (the published goodput exceeds MTU 1500's ceiling): iperf
    // goodput at most 8948 payload bytes per 9038 wire bytes of 10 Gbit/s
    double ceiling = 8948.0 / 9038 * 10;
    for (int t : VhostWakeupReproduction.THREADS) {
      double b = result.metrics().get("t" + t + ".baseline.gbps");
      double a = result.metrics().get("t" + t + ".patched.gbps");
      // (+0.5 %: the bytes ACKed in a 60 ms window include the tail of packets sent before it)
      assertThat(b).as("baseline Gbps at %s threads", t).isBetween(9.0, ceiling * 1.005);
      assertThat(a).as("patched Gbps at %s threads", t).isBetween(9.0, ceiling * 1.005);
      assertThat(Math.abs(a - b)).as("throughput difference at %s threads", t).isLessThanOrEqualTo(0.03 * b);
    }
  }

  @Test
  void patch_neverCostsTheWorkerMoreLockTime() {
    for (int t : VhostWakeupReproduction.THREADS) {
      assertThat(result.metrics().get("t" + t + ".patched.work_lock_percent"))
          .as("worker work_lock time at %s threads", t)
          .isLessThanOrEqualTo(result.metrics().get("t" + t + ".baseline.work_lock_percent") * 1.05 + 0.01);
      // the wake outside the lock takes try_to_wake_up out of every section that woke the worker
      // (contention counts are a handful of events per quick run: too few for a direction)
      assertThat(result.metrics().get("t" + t + ".patched.work_lock_hold_percent"))
          .as("work_lock hold time at %s threads", t)
          .isLessThan(result.metrics().get("t" + t + ".baseline.work_lock_hold_percent"));
    }
  }

  @Test
  void vhostCpu_fewThreads_withinBandOfPublished() {
    double one = result.metrics().get("t1.baseline.vhost_cpu_percent");
    double eight = result.metrics().get("t8.baseline.vhost_cpu_percent");
    assertThat(VhostWakeupReproduction.within(one, 28.82, 35)).as("1 thread: %s", one).isTrue();
    assertThat(VhostWakeupReproduction.within(eight, 32.92, 35)).as("8 threads: %s", eight).isTrue();
  }

  @Test
  @SuppressWarnings("unchecked")
  void json_rowsHaveTheIssueShape() {
    List<Object> rows = (List<Object>) result.data().get("rows");
    assertThat(rows).hasSize(4);
    Map<String, Object> first = (Map<String, Object>) rows.get(0);
    assertThat(first).containsOnlyKeys("threads", "baseline", "patched", "published", "workLock");
    assertThat(first.get("threads")).isEqualTo(1);
    assertThat((Map<String, Object>) first.get("baseline")).containsOnlyKeys("throughputGbps", "vhostCpuPercent");
    Map<String, Object> published = (Map<String, Object>) first.get("published");
    assertThat((Map<String, Object>) published.get("patched")).containsEntry("vhostCpuPercent", 27.49);
  }

  @Test
  @SuppressWarnings("unchecked")
  void ceiling_besideEveryDelta_byAcquirer() {
    List<Object> rows = (List<Object>) result.data().get("rows");
    for (Object r : rows) {
      Map<String, Object> wl = (Map<String, Object>) ((Map<String, Object>) r).get("workLock");
      assertThat(wl).containsKeys("deltaPoints", "ceilingPoints", "meaning", "baseline", "patched", "llist");
      Map<String, Object> base = (Map<String, Object>) wl.get("baseline");
      assertThat(base).containsKeys("worker", "softirq", "vcpu_kick", "onVhostThreadPercent");
      // every call of vhost_work_queue takes work_lock: the kicks and the NIC softirqs acquire it
      assertThat((Long) ((Map<String, Object>) base.get("vcpu_kick")).get("acquisitionsPerS")).isPositive();
      assertThat((Long) ((Map<String, Object>) base.get("softirq")).get("acquisitionsPerS")).isPositive();
      // the llist variant has no work_lock
      Map<String, Object> llist = (Map<String, Object>) wl.get("llist");
      assertThat((Long) ((Map<String, Object>) llist.get("worker")).get("acquisitionsPerS")).isZero();
      // the part on the vhost thread is part of all acquirers' time
      assertThat((Double) base.get("onVhostThreadPercent"))
          .isLessThanOrEqualTo((Double) base.get("allAcquirersCpuPercent") + 1e-9);
    }
    assertThat(String.join("\n", result.report())).contains("the most the patch could save");
  }

  @Test
  void plot_writtenAsPngAndSvg() {
    assertThat(Files.exists(out.resolve("vhost-wakeup.png"))).isTrue();
    assertThat(Files.exists(out.resolve("vhost-wakeup.svg"))).isTrue();
  }

  @Test
  void report_explainsWhereTheCpuWent() {
    String text = String.join("\n", result.report());
    assertThat(text).contains("work_lock%").contains("contended/s").contains("ttwu on_rq/s").contains("Acceptance");
  }
}
