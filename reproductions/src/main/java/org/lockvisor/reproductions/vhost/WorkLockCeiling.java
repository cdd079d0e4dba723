package org.lockvisor.reproductions.vhost;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.lockvisor.reproductions.support.TextTable;

/**
 * The saving's ceiling (issue 32, item 3): per variant, every acquirer of {@code work_lock} — the
 * vhost worker, the NIC's softirqs ({@code tun_net_xmit}'s socket wakeup), the vCPU threads' kicks
 * ({@code ioeventfd_write}) — with its acquisitions and collisions (the lock was held as it tried)
 * per second and the time it spent acquiring the lock (spin plus atomic) as % of one CPU, and the
 * part of that time the host's {@code top} charges to the vhost thread. ac9fde2474d0 only moves
 * {@code wake_up_process} out of the locked section, so all it can take from anyone is acquisition
 * time: the baseline's acquisition time charged to the vhost thread is the most the patch could
 * save of the vhost CPU %, and the baseline's time over all acquirers the most of any CPU. Read
 * from the vhost-net device's statistics ({@code work_lock.by_<acquirer>.*}, {@code
 * work_lock.acquire_ns_on_worker_top}).
 */
final class WorkLockCeiling {
  static final String[] ACQUIRERS = {"worker", "softirq", "vcpu_kick"};
  static final String SENTENCE = "ceiling: the baseline's work_lock acquisition time (spin + atomic) charged to the"
      + " vhost thread, % of a CPU: the most the patch could save of the vhost CPU % (it only moves the wakeup out"
      + " of the locked section, so it can save only time spent acquiring work_lock)";

  /** One run's work_lock acquirers; all zero in the llist variant (no work_lock). */
  record Figures(long[] acquisitionsPerSec, long[] collisionsPerSec, double[] acquirePercent,
      double onVhostThreadPercent) {

    static Figures of(Map<String, Number> d, long measureNs) {
      double secs = measureNs / 1e9;
      int n = ACQUIRERS.length;
      long[] acq = new long[n];
      long[] coll = new long[n];
      double[] pct = new double[n];
      for (int i = 0; i < n; i++) {
        String k = "work_lock.by_" + ACQUIRERS[i] + ".";
        acq[i] = Math.round(value(d, k + "acquisitions") / secs);
        coll[i] = Math.round(value(d, k + "collisions") / secs);
        pct[i] = 100.0 * value(d, k + "acquire_ns") / measureNs;
      }
      return new Figures(acq, coll, pct, 100.0 * value(d, "work_lock.acquire_ns_on_worker_top") / measureNs);
    }

    double totalPercent() {
      double s = 0;
      for (double p : acquirePercent) {
        s += p;
      }
      return s;
    }

    long totalCollisionsPerSec() {
      long s = 0;
      for (long c : collisionsPerSec) {
        s += c;
      }
      return s;
    }

    Map<String, Object> json() {
      Map<String, Object> m = new LinkedHashMap<>();
      for (int i = 0; i < ACQUIRERS.length; i++) {
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("acquisitionsPerS", acquisitionsPerSec[i]);
        a.put("collisionsPerS", collisionsPerSec[i]);
        a.put("acquireCpuPercent", round3(acquirePercent[i]));
        m.put(ACQUIRERS[i], a);
      }
      m.put("allAcquirersCpuPercent", round3(totalPercent()));
      m.put("onVhostThreadPercent", round3(onVhostThreadPercent));
      return m;
    }
  }

  private WorkLockCeiling() {}

  private static double value(Map<String, Number> d, String key) {
    Number n = d.get(key);
    return n == null ? 0 : n.doubleValue();
  }

  static double round3(double v) {
    return Math.round(v * 1000) / 1000.0;
  }

  /** The per-acquirer table: rows are stream count x variant, {@code f[i][v]}. */
  static List<String> table(int[] threads, String[] variants, Figures[][] f) {
    List<String> out = new ArrayList<>();
    out.add("work_lock by acquirer (acquisitions / collisions per second, acquiring time = spin + atomic as % of"
        + " one CPU); the baseline's 'on vhost' is the ceiling of the saving:");
    TextTable t = new TextTable("threads", "variant", "worker acq/coll", "worker %", "softirq acq/coll", "softirq %",
        "vcpu kick acq/coll", "kick %", "all %", "on vhost %");
    for (int i = 0; i < threads.length; i++) {
      for (int v = 0; v < variants.length; v++) {
        Figures x = f[i][v];
        t.row(threads[i], variants[v], x.acquisitionsPerSec()[0] + " / " + x.collisionsPerSec()[0],
            TextTable.f("%.3f", x.acquirePercent()[0]),
            x.acquisitionsPerSec()[1] + " / " + x.collisionsPerSec()[1], TextTable.f("%.3f", x.acquirePercent()[1]),
            x.acquisitionsPerSec()[2] + " / " + x.collisionsPerSec()[2], TextTable.f("%.3f", x.acquirePercent()[2]),
            TextTable.f("%.3f", x.totalPercent()), TextTable.f("%.3f", x.onVhostThreadPercent()));
      }
    }
    out.addAll(t.lines());
    out.add("  " + SENTENCE + ".");
    return out;
  }
}
