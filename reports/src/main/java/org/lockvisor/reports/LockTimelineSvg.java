package org.lockvisor.reports;

import com.google.common.html.HtmlEscapers;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.lockvisor.machine.Cpu;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;

/**
 * The lock timeline of a run's page, drawn from a {@link LockTimeline}: for the {@value #LOCKS}
 * locks with the most wait time, one row of holds (coloured by holder), one row of the intervals
 * where the holder's vCPU was preempted by the host, and a row of waits per waiter (the
 * {@value #WAITERS} that waited longest, then the others together); under them, for a guest
 * lock, the VM's vCPU threads on the host: running (green), preempted (red), stopped (grey). One
 * time axis; a window selector (width and position) when the run is long.
 *
 * <p>Bounded: at most {@value #MAX_ITEMS} intervals are drawn, the earliest first; when the run has
 * more, the timeline covers its beginning and says up to when. The full run is in {@code
 * trace.json} ({@code --trace}), for the Perfetto UI.
 */
final class LockTimelineSvg {

  static final int LOCKS = 3;
  static final int WAITERS = 6;
  static final int MAX_ITEMS = 4000;
  private static final int LABEL = 250;
  private static final int PLOT = 740;
  private static final int ROW = 14;
  private static final String[] HOLDER_COLOURS = {"#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#17becf",
      "#7f7f7f", "#bcbd22", "#e377c2"};
  private static final long[] WINDOWS = {10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000};

  private record Item(String row, long start, long end, String fill, String title) {}

  private record Interval(int task, long start, long end) {}

  private LockTimelineSvg() {}

  /**
   * A timeline ready to draw, with names resolved (the machine may go): at most {@value #MAX_ITEMS}
   * intervals, the earliest; {@link #html} draws it, or a shorter part of it for a fuller page.
   */
  static final class Drawing {
    private final String id;
    private final List<String> rows;
    private final List<Item> items;
    private final long t0;
    private final long t1;
    private final boolean truncated;
    private final String traceFile;
    private final String none;

    private Drawing(String id, List<String> rows, List<Item> items, long t0, long t1, boolean truncated,
        String traceFile, String none) {
      this.id = id;
      this.rows = rows;
      this.items = items;
      this.t0 = t0;
      this.t1 = t1;
      this.truncated = truncated;
      this.traceFile = traceFile;
      this.none = none;
    }

    /** The HTML (controls and SVG) drawing at most {@code maxItems} intervals, the earliest. */
    String html(int maxItems) {
      if (none != null) {
        return none;
      }
      int n = Math.max(1, Math.min(maxItems, MAX_ITEMS));
      long covered = t1;
      List<Item> drawn = items;
      if (items.size() > n) {
        covered = items.get(n).start();
        drawn = items.subList(0, n);
      }
      return LockTimelineSvg.html(id, rows, drawn, t0, covered, Math.max(1, covered - t0), t1,
          truncated, traceFile, n);
    }
  }

  /** {@link #draw} then {@link Drawing#html} with every interval it kept. */
  static String render(LockTimeline t, String id, String traceFile) {
    return draw(t, id, traceFile).html(MAX_ITEMS);
  }

  /**
   * The timeline's drawing: the most contended locks' rows and intervals, names resolved.
   *
   * @param id unique within the page
   * @param traceFile the run's {@code trace.json} name, or {@code null} when none was written
   */
  static Drawing draw(LockTimeline t, String id, String traceFile) {
    t.close();
    Machine m = t.machine();
    long t0 = t.startNs();
    long t1 = t.endNs();
    int locks = t.lockNames().size();
    long[] waitNs = new long[locks];
    for (int i = 0; i < t.size(); i++) {
      if (t.kind(i) == LockTimeline.WAIT) {
        waitNs[t.subject(i)] += t.end(i) - t.start(i);
      }
    }
    List<Integer> chosen = new ArrayList<>();
    for (int l = 0; l < locks; l++) {
      if (waitNs[l] > 0) {
        chosen.add(l);
      }
    }
    chosen.sort(Comparator.comparingLong((Integer l) -> -waitNs[l]).thenComparing(l -> t.lockNames().get(l)));
    if (chosen.isEmpty()) {
      return new Drawing(id, List.of(), List.of(), t0, t1, t.truncated(), traceFile,
          "<p>No lock was contended in the measurement window" + (t.truncated() ? " while it was recorded" : "")
              + ": no lock timeline.</p>\n");
    }
    chosen = chosen.subList(0, Math.min(LOCKS, chosen.size()));

    Map<Integer, List<Interval>> guestRuns = new TreeMap<>();
    Map<Integer, List<long[]>> vcpuRuns = new TreeMap<>();
    for (int i = 0; i < t.size(); i++) {
      if (t.kind(i) == LockTimeline.GUEST_RUN) {
        guestRuns.computeIfAbsent(t.cpu(i), k -> new ArrayList<>()).add(new Interval(t.task(i), t.start(i), t.end(i)));
      } else if (t.kind(i) == LockTimeline.VCPU_RUN) {
        vcpuRuns.computeIfAbsent(t.cpu(i), k -> new ArrayList<>()).add(new long[] {t.start(i), t.end(i), t.subject(i)});
      }
    }
    guestRuns.values().forEach(l -> l.sort(Comparator.comparingLong(Interval::start)));
    vcpuRuns.values().forEach(l -> l.sort(Comparator.comparingLong(a -> a[0])));
    Map<Integer, List<long[]>> preempted = new TreeMap<>();
    vcpuRuns.forEach((cpu, runs) -> {
      List<long[]> off = new ArrayList<>();
      for (int k = 0; k < runs.size(); k++) {
        if (runs.get(k)[2] == LockTimeline.OUT_PREEMPTED) {
          off.add(new long[] {runs.get(k)[1], k + 1 < runs.size() ? runs.get(k + 1)[0] : t1});
        }
      }
      preempted.put(cpu, off);
    });

    List<String> rows = new ArrayList<>();
    List<Item> items = new ArrayList<>();
    List<Kernel> guests = new ArrayList<>();
    for (int l : chosen) {
      String lock = t.lockNames().get(l);
      Kernel kernel = t.lockKernel(l);
      String prefix = lock + (m.vms().size() > 1 || !kernel.isGuest() ? " (" + kernelName(kernel) + ")" : "");
      String held = prefix + " held";
      String pre = prefix + "\u0000holder's vCPU preempted";
      rows.add(held);
      if (kernel.isGuest()) {
        rows.add(pre);
        if (!guests.contains(kernel)) {
          guests.add(kernel);
        }
      }
      Map<Integer, Long> waiterNs = new TreeMap<>();
      for (int i = 0; i < t.size(); i++) {
        if (t.subject(i) != l) {
          continue;
        }
        if (t.kind(i) == LockTimeline.HOLD) {
          String holder = m.taskById(t.task(i)).name();
          items.add(new Item(held, t.start(i), t.end(i), HOLDER_COLOURS[Math.floorMod(t.task(i), HOLDER_COLOURS.length)],
              "held by " + holder));
          if (kernel.isGuest() && t.cpu(i) >= 0) {
            for (long[] p : holderPreempted(t.task(i), t.cpu(i), t.start(i), t.end(i), guestRuns, preempted)) {
              items.add(new Item(pre, p[0], p[1], "#d62728", holder + " holds " + lock + " on preempted "
                  + m.cpuById(t.cpu(i)).name()));
            }
          }
        } else if (t.kind(i) == LockTimeline.WAIT) {
          waiterNs.merge(t.task(i), t.end(i) - t.start(i), Long::sum);
        }
      }
      List<Integer> waiters = new ArrayList<>(waiterNs.keySet());
      waiters.sort(Comparator.comparingLong((Integer w) -> -waiterNs.get(w)).thenComparingInt(w -> w));
      List<Integer> named = waiters.subList(0, Math.min(WAITERS, waiters.size()));
      for (int w : named) {
        rows.add(prefix + "\u0000waits: " + m.taskById(w).name());
      }
      String others = prefix + "\u0000waits: " + (waiters.size() - named.size()) + " other tasks";
      if (waiters.size() > named.size()) {
        rows.add(others);
      }
      for (int i = 0; i < t.size(); i++) {
        if (t.subject(i) == l && t.kind(i) == LockTimeline.WAIT) {
          String row = named.contains(t.task(i)) ? prefix + "\u0000waits: " + m.taskById(t.task(i)).name() : others;
          items.add(new Item(row, t.start(i), t.end(i), "#ff7f0e", m.taskById(t.task(i)).name() + " waits for " + lock));
        }
      }
    }
    for (Kernel g : guests) {
      for (Cpu c : g.cpus()) {
        String row = "vCPU " + c.name() + " on host";
        rows.add(row);
        for (long[] r : vcpuRuns.getOrDefault(c.id(), List.of())) {
          items.add(new Item(row, r[0], r[1], "#2ca02c", c.name() + " running"));
        }
        for (long[] p : preempted.getOrDefault(c.id(), List.of())) {
          items.add(new Item(row, p[0], p[1], "#d62728", c.name() + " preempted"));
        }
      }
    }

    items.sort(Comparator.comparingLong(Item::start));
    // One more than drawn at most, so that a cut knows where the next interval starts.
    List<Item> kept = List.copyOf(items.subList(0, Math.min(items.size(), MAX_ITEMS + 1)));
    return new Drawing(id, List.copyOf(rows), kept, t0, t1, t.truncated(), traceFile, null);
  }

  /** The parts of a hold where the holder was current on its guest CPU and that vCPU was preempted. */
  private static List<long[]> holderPreempted(int holder, int cpu, long s, long e, Map<Integer, List<Interval>> runs,
      Map<Integer, List<long[]>> preempted) {
    List<long[]> out = new ArrayList<>();
    List<long[]> off = preempted.getOrDefault(cpu, List.of());
    List<Interval> on = runs.getOrDefault(cpu, List.of());
    for (int k = firstEndingAfter(off, s); k < off.size() && off.get(k)[0] < e; k++) {
      long a = Math.max(s, off.get(k)[0]);
      long b = Math.min(e, off.get(k)[1]);
      for (int j = firstRunEndingAfter(on, a); j < on.size() && on.get(j).start() < b; j++) {
        Interval r = on.get(j);
        if (r.task() == holder) {
          long x = Math.max(a, r.start());
          long y = Math.min(b, r.end());
          if (y > x) {
            out.add(new long[] {x, y});
          }
        }
      }
    }
    return out;
  }

  private static int firstEndingAfter(List<long[]> sorted, long t) {
    int lo = 0;
    int hi = sorted.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted.get(mid)[1] <= t) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private static int firstRunEndingAfter(List<Interval> sorted, long t) {
    int lo = 0;
    int hi = sorted.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted.get(mid).end() <= t) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private static String html(String id, List<String> rows, List<Item> items, long t0, long covered, long span,
      long t1, boolean truncated, String traceFile, int maxItems) {
    int top = 8;
    int axis = 18;
    int height = top + rows.size() * ROW + axis + 4;
    StringBuilder s = new StringBuilder(items.size() * 140 + 2048);
    long defaultWindow = 0;
    for (long w : WINDOWS) {
      if (w * 10 <= span) {
        defaultWindow = w;
      }
    }
    if (span <= 1_000_000) {
      defaultWindow = 0;
    }
    s.append("<div class=\"tlbox\" id=\"").append(id).append("\"><div class=\"fgbar\">window <select class=\"tlwin\""
        + " aria-label=\"window width\">");
    s.append("<option value=\"all\"").append(defaultWindow == 0 ? " selected" : "").append(">whole timeline</option>");
    for (long w : WINDOWS) {
      if (w < span) {
        s.append("<option value=\"").append(w).append('"').append(w == defaultWindow ? " selected" : "").append('>')
            .append(duration(w)).append("</option>");
      }
    }
    s.append("</select> position <input class=\"tlpos\" type=\"range\" min=\"0\" max=\"1000\" value=\"0\""
        + " aria-label=\"window position\"> <span class=\"tlinfo\"></span></div>\n");
    s.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"tl\" width=\"%d\" "
            + "height=\"%d\" viewBox=\"0 0 %d %d\" data-t0=\"0\" data-t1=\"%d\" data-x0=\"%d\" data-xw=\"%d\" "
            + "font-family=\"sans-serif\" font-size=\"10\">\n", LABEL + PLOT + 10, height, LABEL + PLOT + 10, height, span,
        LABEL, PLOT));
    // the labels' column: a name never runs into the plot
    s.append(String.format(Locale.ROOT, "<clipPath id=\"tllabels\"><rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\"/>"
        + "</clipPath>\n", LABEL - 4, height));
    for (int r = 0; r < rows.size(); r++) {
      int y = top + r * ROW;
      s.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>"
          + "<text x=\"2\" y=\"%d\" clip-path=\"url(#tllabels)\">%s<title>%s</title></text>\n", LABEL, y, PLOT,
          ROW - 2, r % 2 == 0 ? "#f4f4f4" : "#ebebeb", y + 10, esc(rowLabel(rows.get(r))), esc(fullLabel(rows.get(r)))));
    }
    for (Item it : items) {
      int y = top + rows.indexOf(it.row()) * ROW;
      long a = Math.max(it.start(), t0) - t0;
      long b = Math.min(it.end(), covered) - t0;
      s.append(String.format(Locale.ROOT, "<rect class=\"tlr\" data-s=\"%d\" data-e=\"%d\" x=\"%.2f\" y=\"%d\" "
              + "width=\"%.2f\" height=\"%d\" fill=\"%s\"><title>%s, %s-%s (%s)</title></rect>\n", a, b,
          LABEL + (double) a / span * PLOT, y + 1, Math.max(0.5, (double) (b - a) / span * PLOT), ROW - 4, it.fill(),
          esc(it.title()), micros(a), micros(b), duration(b - a)));
    }
    int ay = top + rows.size() * ROW + 12;
    for (int k = 0; k <= 4; k++) {
      s.append(String.format(Locale.ROOT, "<text class=\"tltick\" x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%s</text>",
          LABEL + PLOT * k / 4.0, ay, k == 0 ? "start" : k == 4 ? "end" : "middle", micros(span * k / 4)));
    }
    s.append("\n</svg>\n<p class=\"fgcaption\">");
    StringBuilder note = new StringBuilder();
    note.append(String.format(Locale.ROOT, "Times from the start of the measurement window. Colours: holds by holder;"
        + " red: the holder's vCPU (or a vCPU) preempted by the host; orange: waiting; green: vCPU thread running on the"
        + " host; grey: stopped (halted or idle). %d intervals drawn", items.size()));
    if (covered < t1 || truncated) {
      note.append(String.format(Locale.ROOT, "; the timeline covers the first %s of the measurement only (bounded to"
          + " %d intervals)", duration(covered - t0), maxItems));
    }
    note.append(". The whole run: ").append(traceFile == null
        ? "rerun with --trace to write trace.json, then open it in the Perfetto UI (ui.perfetto.dev, Open trace file)."
        : traceFile + " beside this page, in the Perfetto UI (ui.perfetto.dev, Open trace file).");
    s.append(esc(note.toString())).append("</p></div>\n");
    return s.toString();
  }

  /**
   * A lock's own row shows its name; the rows under it ({@code lock\0what}) are indented. A name
   * too long for the column keeps its head (the VM and the lock's class) and its tail, with an
   * ellipsis between; the whole name is the label's tooltip ({@link #fullLabel}).
   */
  static String rowLabel(String row) {
    String label = fullLabel(row);
    int cut = row.indexOf('\u0000');
    if (cut >= 0) {
      label = "\u2003" + label;
    }
    int chars = (LABEL - 6) / 6;
    if (label.length() <= chars) {
      return label;
    }
    int head = (chars - 1) / 2;
    int tail = chars - 1 - head;
    return label.substring(0, head) + "\u2026" + label.substring(label.length() - tail);
  }

  /** The row's whole name, without the indentation marker. */
  static String fullLabel(String row) {
    int cut = row.indexOf('\u0000');
    return cut < 0 ? row : row.substring(cut + 1);
  }

  private static String kernelName(Kernel k) {
    return k.isGuest() ? k.vm().name() : "host";
  }

  static String micros(long ns) {
    return String.format(Locale.ROOT, "%.2f us", ns / 1e3);
  }

  static String duration(long ns) {
    if (ns >= 1_000_000_000L) {
      return String.format(Locale.ROOT, "%.2f s", ns / 1e9);
    }
    if (ns >= 1_000_000) {
      return String.format(Locale.ROOT, "%.2f ms", ns / 1e6);
    }
    return String.format(Locale.ROOT, "%.2f us", ns / 1e3);
  }

  private static String esc(String s) {
    return HtmlEscapers.htmlEscaper().escape(s);
  }
}
