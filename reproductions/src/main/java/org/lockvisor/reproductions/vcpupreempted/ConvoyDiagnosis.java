package org.lockvisor.reproductions.vcpupreempted;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.lockvisor.experiment.runner.LockConvoy;
import org.lockvisor.locking.spi.LockStats.SpinEnd;
import org.lockvisor.reproductions.support.TextTable;

/**
 * R3's convoy diagnosis (issue 37, item 1), from the runner's {@link LockConvoy} of each lock: per
 * lock of the first seed's run, acquisitions per second against the mean hold and the share of
 * time held, the mean number of waiters, the share of OSQ hand-offs to a successor whose virtual
 * processor was not dispatched, and how the spin episodes on it ended (OSQ hand-off, {@code
 * need_resched}, owner change, other) with their lengths. Split out of {@link
 * VcpuPreemptedReproduction} (its size).
 */
final class ConvoyDiagnosis {
  /** Locks kept per run, most spin time first. */
  static final int KEPT = 8;
  /** Locks whose episode histogram the text prints. */
  private static final int HISTOGRAMS = 2;

  private ConvoyDiagnosis() {}

  /** The text lines: one table per variant, then the histograms of its top locks. */
  static List<String> lines(Variant b, Variant p) {
    List<String> out = new ArrayList<>();
    out.add("");
    out.add("convoy diagnosis per lock (first seed, most spin time first; waiters by Little's law, "
        + "undispatched = OSQ hand-offs to a successor whose VP was not dispatched):");
    for (Variant v : List.of(b, p)) {
      String name = v == b ? "baseline" : "patched";
      TextTable t = new TextTable(name + " lock", "acq/s", "hold mean [us]", "held", "mean waiters",
          "OSQ hand-offs", "undispatched", "spin [ms]", "holds preempted", "holds interrupted");
      for (LockConvoy c : v.first().convoys()) {
        t.row(c.lock(), TextTable.f("%.0f", c.acquisitionsPerSecond()), TextTable.f("%.2f", c.holdMeanNs() / 1e3),
            pct(100 * c.heldShare()), TextTable.f("%.1f", c.meanWaiters()), TextTable.f("%d", c.osqHandoffs()),
            pct(100 * c.undispatchedHandoffShare()), TextTable.f("%.1f", c.spinNs() / 1e6),
            pct(100 * c.ownerPreemptedShare()), pct(100 * c.interruptedShare()));
      }
      out.addAll(t.lines());
      List<LockConvoy> top = v.first().convoys();
      for (LockConvoy c : top.subList(0, Math.min(HISTOGRAMS, top.size()))) {
        List<String> header = new ArrayList<>(List.of("  " + c.lock() + " episodes ended by"));
        header.addAll(LockConvoy.BUCKETS);
        header.add("total [ms]");
        TextTable h = new TextTable(header.toArray(String[]::new));
        for (SpinEnd end : SpinEnd.values()) {
          List<Object> row = new ArrayList<>(List.of("  " + end.name().toLowerCase(Locale.ROOT).replace('_', '-')));
          c.episodes().get(end.ordinal()).forEach(n -> row.add(TextTable.f("%d", n)));
          row.add(TextTable.f("%.1f", c.episodeNs().get(end.ordinal()) / 1e6));
          h.row(row.toArray());
        }
        out.addAll(h.lines());
      }
    }
    return out;
  }

  /** The JSON rows of {@code v}'s first seed: one object per lock. */
  static List<Object> data(Variant v) {
    List<Object> rows = new ArrayList<>();
    for (LockConvoy c : v.first().convoys()) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("lock", c.lock());
      row.put("acquisitionsPerSecond", round(c.acquisitionsPerSecond()));
      row.put("holdMeanUs", round(c.holdMeanNs() / 1e3));
      row.put("heldShare", round(c.heldShare()));
      row.put("meanWaiters", round(c.meanWaiters()));
      row.put("osqHandoffs", c.osqHandoffs());
      row.put("osqHandoffsUndispatchedShare", round(c.undispatchedHandoffShare()));
      row.put("spinMs", round(c.spinNs() / 1e6));
      row.put("holdsPreemptedShare", round(c.ownerPreemptedShare()));
      row.put("holdsInterruptedShare", round(c.interruptedShare()));
      row.put("holdInterruptUs", round(c.holdInterruptNs() / 1e3));
      Map<String, Object> episodes = new LinkedHashMap<>();
      episodes.put("buckets", LockConvoy.BUCKETS);
      for (SpinEnd end : SpinEnd.values()) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("counts", c.episodes().get(end.ordinal()));
        e.put("totalMs", round(c.episodeNs().get(end.ordinal()) / 1e6));
        episodes.put(end.name().toLowerCase(Locale.ROOT), e);
      }
      row.put("spinEpisodes", episodes);
      rows.add(row);
    }
    return rows;
  }

  private static double round(double v) {
    return Math.round(v * 1e4) / 1e4;
  }

  private static String pct(double v) {
    return TextTable.f("%.1f%%", v);
  }
}
