package org.lockvisor.reproductions.virtioblk;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.lockvisor.studies.envelope.Band;
import org.lockvisor.reproductions.support.Published;
import org.lockvisor.reproductions.support.TextTable;

/**
 * The seed mail's own timings of the baseline mechanism as checks printed beside the IOPS bands and
 * never part of the verdict: "qemu-system-x86_64 only takes several microseconds to handle the
 * notification, but on arm64, it may take hundreds of microseconds" (Ming Lei, 2014-05-30). Read as
 * written, both are the patch author's observations of the unpatched system: the x86 baseline's
 * median notify exit in 2-10 µs ("several µs"), the arm64 baseline's 99th percentile at least 100 µs
 * ("may take hundreds"). The limits are in published/virtio-blk-notify.properties. Exit times run
 * from the vCPU's exit to its re-entry, the hardware round trip included.
 */
final class NotifyTimingChecks {
  private NotifyTimingChecks() {}

  /** The checks over the points of a run: x86 numjobs=2 and arm64 numjobs=4, baselines. */
  static List<Band> of(Published published, List<VirtioBlkNotifyReproduction.Point> points) {
    List<Band> checks = new ArrayList<>();
    for (VirtioBlkNotifyReproduction.Point p : points) {
      if (p.arch().startsWith("arm64")) {
        checks.add(Band.baseline("arm64.nj4.baseline.notify_p99_us",
            "arm64 numjobs=4 baseline notify exit p99, us (\"may take hundreds of microseconds\")", Double.NaN,
            published.get("arm64.nj4.baseline.notify_p99.low_us"), Double.POSITIVE_INFINITY,
            p.baseline().exitP99Us()));
      } else if (p.numjobs() == 2) {
        checks.add(Band.baseline("x86.nj2.baseline.notify_p50_us",
            "x86 numjobs=2 baseline notify exit median, us (\"several microseconds\")", Double.NaN,
            published.get("x86.nj2.baseline.notify_p50.low_us"), published.get("x86.nj2.baseline.notify_p50.high_us"),
            p.baseline().exitP50Us()));
      }
    }
    return checks;
  }

  /** The report's table of the checks. */
  static List<String> table(List<Band> checks) {
    List<String> lines = new ArrayList<>();
    lines.add("Seed timings (checks of the baseline mechanism from the seed mail, not part of the verdict): "
        + checks.stream().filter(Band::met).count() + " of " + checks.size() + " met");
    TextTable t = new TextTable("check", "simulated", "low", "high", "met");
    for (Band b : checks) {
      t.row(b.quantity(), TextTable.f("%.1f", b.simulated()), TextTable.f("%.0f", b.low()),
          Double.isInfinite(b.high()) ? "-" : TextTable.f("%.0f", b.high()), b.met() ? "yes" : "NO");
    }
    lines.addAll(t.lines());
    return lines;
  }

  /** The JSON form: one object per check. */
  static List<Map<String, Object>> json(List<Band> checks) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Band b : checks) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("key", b.key());
      m.put("quantity", b.quantity());
      m.put("simulated_us", VirtioBlkNotifyReproduction.round1(b.simulated()));
      m.put("low_us", b.low());
      m.put("high_us", Double.isInfinite(b.high()) ? null : b.high());
      m.put("met", b.met());
      m.put("source", "seed mail (Ming Lei, 2014-05-30): \"qemu-system-x86_64 only takes several microseconds to "
          + "handle the notification, but on arm64, it may take hundreds of microseconds\"");
      out.add(m);
    }
    return out;
  }
}
