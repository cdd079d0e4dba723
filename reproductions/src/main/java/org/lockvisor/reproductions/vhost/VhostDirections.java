package org.lockvisor.reproductions.vhost;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.lockvisor.arch.spi.ArchCosts;
import org.lockvisor.arch.spi.CostKey;
import org.lockvisor.reproductions.api.ReproductionOptions;
import org.lockvisor.reproductions.api.ReproductionResult;
import org.lockvisor.reproductions.support.TextTable;
import org.lockvisor.reproductions.vhost.VhostWakeupReproduction.Point;

/**
 * Issue 32: both traffic directions of {@code reproduce vhost-wakeup} side by side — the guest as
 * iperf 2 client (guest-send) and as the server of an external client (guest-receive) — with, per
 * direction, the baseline's growth from 1 to 256 streams, the saving beside its ceiling, and how
 * many {@code work_lock} collisions per second the published saving would need against how many
 * the model has, by acquirer. The judged direction's result (bands, verdict) is kept as it is; this
 * adds report lines, metrics ({@code guest-receive.*} for the second direction) and the JSON
 * object {@code directions}.
 */
final class VhostDirections {
  private VhostDirections() {}

  static ReproductionResult sideBySide(ReproductionResult judged, String[] directions, Point[][][] p,
      ReproductionOptions options) {
    int[] threads = VhostWakeupReproduction.THREADS;
    double[][] pub = VhostWakeupReproduction.PUBLISHED;
    ArchCosts costs = ArchCosts.of(options.profile(VhostWakeupReproduction.ARCH));
    // the longest a baseline waker holds work_lock beyond its list_add: a full try_to_wake_up with its IPI
    long fullWakeNs = costs.ns(CostKey.TTWU_FULL) + costs.ns(CostKey.IPI_SEND);
    double bandPct = options.quick() ? 35 : 25;
    List<String> report = new ArrayList<>(judged.report());
    Map<String, Double> metrics = new TreeMap<>(judged.metrics());
    Map<String, Object> data = new LinkedHashMap<>(judged.data());
    report.add("");
    report.add("Issue 32, by traffic direction (guest-send: the guest is the iperf 2 client; guest-receive: an external"
        + " iperf 2 client's streams interleave on the wire, the host's ixgbe ATR steers them, 3.0 GRO holds 8 flows):");
    TextTable t = new TextTable("direction", "threads", "tp base", "vhost% base", "(pub)", "vhost% patched", "(pub)",
        "llist", "delta sim", "ceiling", "delta pub", "coll/s worker/softirq/kick", "tap skbs/s", "frames/skb");
    for (int d = 0; d < directions.length; d++) {
      for (int i = 0; i < threads.length; i++) {
        Point b = p[d][i][0];
        Point a = p[d][i][1];
        long[] c = b.workLock().collisionsPerSec();
        t.row(directions[d], threads[i], b.gbps(), b.vhostCpuPercent(), pub[i][1], a.vhostCpuPercent(), pub[i][3],
            p[d][i][2].vhostCpuPercent(), b.vhostCpuPercent() - a.vhostCpuPercent(),
            TextTable.f("%.3f", b.workLock().onVhostThreadPercent()), pub[i][1] - pub[i][3],
            c[0] + " / " + c[1] + " / " + c[2], TextTable.f("%.0f", b.tapSkbsPerSec()),
            b.framesPerSkb() == 0 ? "-" : TextTable.f("%.2f", b.framesPerSkb()));
      }
    }
    report.addAll(t.lines());
    report.add("  " + WorkLockCeiling.SENTENCE + "; coll/s: the baseline's work_lock collisions per second by acquirer;"
        + " tap skbs/s: skbs tun_net_xmit queues on the tap (guest-send: the peer's ACKs).");
    Map<String, Object> json = new LinkedHashMap<>();
    for (int d = 0; d < directions.length; d++) {
      String dir = directions[d];
      String prefix = d == 0 ? "" : dir + ".";
      Point[][] q = p[d];
      double growth = q[0][0].vhostCpuPercent() <= 0 ? 0 : q[3][0].vhostCpuPercent() / q[0][0].vhostCpuPercent();
      int inBand = 0;
      for (int i = 0; i < threads.length; i++) {
        inBand += VhostWakeupReproduction.within(q[i][0].vhostCpuPercent(), pub[i][1], bandPct) ? 1 : 0;
      }
      report.add(TextTable.f("  %s: baseline vhost%% %.2f -> %.2f (x%.2f from 1 to 256 streams; published x%.2f),"
              + " %d of 4 levels within %.0f %% of the published, throughput %.2f-%.2f Gbps", dir,
          q[0][0].vhostCpuPercent(), q[3][0].vhostCpuPercent(), growth, pub[3][1] / pub[0][1], inBand, bandPct,
          min(q), max(q)));
      List<Object> rows = new ArrayList<>();
      for (int i = 0; i < threads.length; i++) {
        Point b = q[i][0];
        WorkLockCeiling.Figures f = b.workLock();
        double deltaPub = pub[i][1] - pub[i][3];
        long coll = f.totalCollisionsPerSec();
        // the published saving in ns of CPU per second, over the most one collision can cost the worker
        long neededAtFullWake = Math.round(deltaPub / 100 * 1e9 / fullWakeNs);
        String measured = TextTable.f("all acquirers' acquiring time %.3f %% of a CPU", f.totalPercent());
        report.add(TextTable.f("    %3d streams: delta %.2f (ceiling %.3f) vs published %.2f: needs >= %d collisions/s"
                + " at %.1f us each (a full try_to_wake_up + IPI held under work_lock); model %d/s (worker %d, softirq"
                + " %d, kick %d; %s)", threads[i], b.vhostCpuPercent() - q[i][1].vhostCpuPercent(),
            f.onVhostThreadPercent(), deltaPub, neededAtFullWake, fullWakeNs / 1000.0, coll, f.collisionsPerSec()[0],
            f.collisionsPerSec()[1], f.collisionsPerSec()[2], measured));
        String k = prefix + "t" + threads[i] + ".";
        if (d > 0) {
          metrics.put(k + "baseline.gbps", b.gbps());
          metrics.put(k + "baseline.vhost_cpu_percent", b.vhostCpuPercent());
          metrics.put(k + "patched.vhost_cpu_percent", q[i][1].vhostCpuPercent());
          metrics.put(k + "llist.vhost_cpu_percent", q[i][2].vhostCpuPercent());
          metrics.put(k + "baseline.work_lock_ceiling_percent", f.onVhostThreadPercent());
          metrics.put(k + "baseline.work_lock_collisions_per_s", (double) coll);
        }
        metrics.put(k + "baseline.tap_skbs_per_s", b.tapSkbsPerSec());
        metrics.put(k + "needed_collisions_per_s", (double) neededAtFullWake);
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("threads", threads[i]);
        row.put("baselineGbps", round(b.gbps()));
        row.put("baselineVhostCpuPercent", round(b.vhostCpuPercent()));
        row.put("patchedVhostCpuPercent", round(q[i][1].vhostCpuPercent()));
        row.put("llistVhostCpuPercent", round(q[i][2].vhostCpuPercent()));
        row.put("deltaPoints", round(b.vhostCpuPercent() - q[i][1].vhostCpuPercent()));
        row.put("ceilingPoints", WorkLockCeiling.round3(f.onVhostThreadPercent()));
        row.put("publishedDeltaPoints", round(deltaPub));
        row.put("baselineWorkLock", f.json());
        row.put("neededCollisionsPerS", neededAtFullWake);
        row.put("tapSkbsPerS", Math.round(b.tapSkbsPerSec()));
        row.put("framesPerSkb", round(b.framesPerSkb()));
        rows.add(row);
      }
      metrics.put(prefix + "baseline_growth_1_to_256", growth);
      Map<String, Object> dj = new LinkedHashMap<>();
      dj.put("baselineGrowth", round(growth));
      dj.put("levelsWithinBand", inBand);
      dj.put("rows", rows);
      json.put(dir, dj);
    }
    data.put("directions", json);
    String headline = judged.headline();
    if (directions.length > 1) {
      Point[][] rx = p[1];
      headline += TextTable.f("; guest-receive: baseline %.1f -> %.1f, delta at 256 streams %.2f (ceiling %.2f)",
          rx[0][0].vhostCpuPercent(), rx[3][0].vhostCpuPercent(),
          rx[3][0].vhostCpuPercent() - rx[3][1].vhostCpuPercent(), rx[3][0].workLock().onVhostThreadPercent());
    }
    return ReproductionResult.of(judged.name(), judged.reproduced(), headline, report, metrics, data)
        .withBands(judged.bands());
  }

  private static double round(double v) {
    return Math.round(v * 100) / 100.0;
  }

  private static double min(Point[][] q) {
    double m = Double.MAX_VALUE;
    for (Point[] r : q) {
      for (Point x : r) {
        m = Math.min(m, x.gbps());
      }
    }
    return m;
  }

  private static double max(Point[][] q) {
    double m = 0;
    for (Point[] r : q) {
      for (Point x : r) {
        m = Math.max(m, x.gbps());
      }
    }
    return m;
  }
}
