package org.lockvisor.reports;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.lockvisor.experiment.runner.LockClassStats;
import org.lockvisor.locking.spi.LockStats;

/**
 * The formatter prints /proc/lock_stat's layout (lockdep_proc.c, version 0.4): 40-column class
 * names, 14-column numbers, microseconds with two decimals rounded as snprint_time does, rows
 * sorted by contentions, instances of one class aggregated, contention points under contended
 * classes.
 */
class LockStatReportTest {

  private static LockStats stats(long acquisitions, long contentions, long waitNs, long holdNs) {
    LockStats s = new LockStats();
    for (long i = 0; i < acquisitions; i++) {
      boolean contended = i < contentions;
      s.acquired(contended, contended ? waitNs : 0, contended);
      s.released(holdNs);
    }
    return s;
  }

  /**
   * An rwlock taken both ways prints seq_stats' "%38s-W:" line with the write side and "%38s-R:"
   * with the read side; one taken only for read prints just the -R line.
   */
  @Test
  void lines_sharedAndExclusiveClass_printsWriteAndReadLines() {
    LockStats rw = new LockStats();
    rw.acquired(true, 4_000, false); // one contended write
    rw.released(2_000);
    for (int i = 0; i < 3; i++) {
      rw.acquiredShared(false, 0, false);
      rw.releasedShared(500);
    }
    LockStats readOnly = new LockStats();
    readOnly.acquiredShared(true, 1_000, false);
    readOnly.releasedShared(100);
    List<String> lines = LockStatReport.of(List.of(LockClassStats.of("tasklist_lock", rw, List.of("a", "b")),
        LockClassStats.of("&readers", readOnly, List.of("c", "d")))).lines();

    String w = String.format("%38s-W:%14d %14d", "tasklist_lock", 0, 1);
    String r = String.format("%38s-R:%14d %14d", "tasklist_lock", 0, 0);
    assertThat(lines).anyMatch(l -> l.startsWith(w) && l.contains("   4.00   ") && l.contains("   2.00   "));
    assertThat(lines).anyMatch(l -> l.startsWith(r) && l.contains(String.format("%14d", 3)) && l.contains("   1.50   "));
    assertThat(lines).noneMatch(l -> l.startsWith(String.format("%40s:", "tasklist_lock")));
    assertThat(lines).anyMatch(l -> l.startsWith(String.format("%38s-R:%14d %14d", "&readers", 0, 1)));
    assertThat(lines).noneMatch(l -> l.startsWith(String.format("%38s-W:", "&readers")));
    assertThat(lines).allMatch(l -> l.length() <= LockStatReport.RULE);
  }

  @Test
  void time_roundsToTensOfNanosecondsLikeTheKernel() {
    assertThat(LockStatReport.time(0)).isEqualTo("0.00");
    assertThat(LockStatReport.time(1_994)).isEqualTo("1.99");
    assertThat(LockStatReport.time(1_995)).isEqualTo("2.00");
    assertThat(LockStatReport.time(123_456_789)).isEqualTo("123456.79");
  }

  @Test
  void lines_haveTheKernelLayout() {
    LockStatReport r = LockStatReport.of(List.of(
        LockClassStats.of("&rq->lock", stats(10, 0, 0, 100), List.of("__schedule")),
        LockClassStats.of("&dev->work_lock", stats(8, 3, 2_500, 1_000), List.of("vhost_work_queue"))));
    List<String> lines = r.lines();

    assertThat(lines.get(0)).isEqualTo("lock_stat version 0.4");
    assertThat(lines.get(1)).hasSize(LockStatReport.RULE).matches("-+");
    assertThat(lines.get(2)).hasSize(LockStatReport.RULE - 1).startsWith(" ".repeat(30) + "class name")
        .contains("holdtime-avg").endsWith("halts          kicks");
    // Most contended first.
    assertThat(lines.get(5)).startsWith(String.format("%40s:", "&dev->work_lock")).hasSize(LockStatReport.RULE - 1)
        .contains("   2.50   ", "   7.50   ", "   1.00   ", "   8.00   ");
    assertThat(lines.get(6)).isEqualTo(" ".repeat(40 - 15) + "-".repeat(15));
    assertThat(lines.get(7)).startsWith(String.format("%40s %14d", "&dev->work_lock", 3)).endsWith("vhost_work_queue");
    assertThat(lines).contains(".".repeat(LockStatReport.RULE));
    // The uncontended class has a row and no contention points.
    assertThat(lines.get(lines.size() - 1)).startsWith(String.format("%40s:", "&rq->lock"));
  }

  @Test
  void instancesOfOneClass_areAggregated() {
    LockStatReport r = LockStatReport.of(List.of(
        LockClassStats.of("&q->lock", stats(4, 2, 100, 50), List.of("a")),
        LockClassStats.of("&q->lock", stats(6, 1, 400, 20), List.of("a"))));
    LockClassStats c = r.classes().get(0);

    assertThat(r.classes()).hasSize(1);
    assertThat(c.acquisitions()).isEqualTo(10);
    assertThat(c.contentions()).isEqualTo(3);
    assertThat(c.waitMinNs()).isEqualTo(100);
    assertThat(c.waitMaxNs()).isEqualTo(400);
    assertThat(c.holdMinNs()).isEqualTo(20);
    assertThat(c.points()).containsExactly(new LockClassStats.ContentionPoint("a", 3));
  }

  @Test
  void lockTakenFromSeveralSites_claimsNoContentionPoint() {
    LockClassStats c = LockClassStats.of("&sem", stats(4, 2, 100, 50), List.of("down_read_site", "down_write_site"));
    assertThat(c.points()).isEmpty();
  }

  @Test
  void neverAcquiredClass_isNotPrinted() {
    LockStatReport r = LockStatReport.of(List.of(LockClassStats.of("&idle", new LockStats(), List.of())));
    assertThat(r.lines()).hasSize(5);
  }

  @Test
  void pvEvents_haltsAndKicks_areColumnsAfterTheKernelsAndAggregated() {
    LockStats a = stats(4, 2, 100, 50);
    a.halted();
    a.halted();
    a.kicked();
    LockStats b = stats(6, 1, 400, 20);
    b.halted();
    LockStatReport r = LockStatReport.of(List.of(LockClassStats.of("&pv->lock", a, List.of("x")),
        LockClassStats.of("&pv->lock", b, List.of("x"))));
    LockClassStats c = r.classes().get(0);
    assertThat(c.halts()).isEqualTo(3);
    assertThat(c.kicks()).isEqualTo(1);
    String row = r.lines().get(5);
    assertThat(row).startsWith(String.format("%40s:", "&pv->lock")).endsWith(String.format(" %14d %14d", 3, 1));
  }
}
