package org.lockvisor.reports;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import com.google.common.html.HtmlEscapers;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * A flame graph drawn by the project, in Java, from folded stacks: the layout of Brendan Gregg's
 * {@code flamegraph.pl} (root at the bottom, one row per stack depth, siblings merged by name and
 * ordered alphabetically, a frame's width its share of all samples), emitted as plain SVG
 * ({@code <g class="f">} per frame: a {@code <rect>}, a {@code <title>} tooltip with the sample
 * share, a label where it fits). The page's script ({@link ReportScript}) adds zoom on click and
 * search with a match count; without it the SVG still reads as a static flame graph.
 *
 * <p>Colours say what a frame is, as kernel engineers read them: kernel (orange), user (yellow),
 * guest mode (aqua), hypervisor {@code [H]} (purple), spin symbols (red, the one thing to find),
 * off-CPU states (blue), roots and threads (grey).
 *
 * <p>A <em>differential</em> flame graph follows {@code difffolded.pl | flamegraph.pl}: widths
 * from the variant (the second profile), colours from the change of each frame's inclusive
 * samples, red where it grew and blue where it shrank, saturated in proportion to the largest
 * change; the baseline is first scaled to the variant's total ({@code difffolded.pl -n}) so that
 * the colours compare shares, not run lengths.
 *
 * <p>Frames narrower than {@link #MIN_WIDTH} of the graph (under one pixel of its 1000) are left
 * out, with their subtrees; the share of samples so pruned is stated under the graph.
 */
public final class FlameGraph {

  /** What a frame is; sets its colour. */
  public enum Kind { KERNEL, USER, GUEST, HYPERVISOR, SPIN, OFFCPU, TASK }

  /** Frames narrower than this fraction of the whole graph are pruned (1 px of 1000). */
  public static final double MIN_WIDTH = 0.001;

  /**
   * A differential frame whose samples changed by less than this fraction of the graph is drawn
   * unchanged (white): the scaled baseline carries rounding noise that would otherwise tint
   * every frame.
   */
  static final double UNCHANGED = 1e-4;

  /** Drawing width (SVG user units), frame height and label font. */
  static final int WIDTH = 1000;
  static final int FRAME_HEIGHT = 16;
  private static final int TOP = 24;
  private static final int BOTTOM = 6;

  /** One drawn frame: its samples from {@code start} (in samples of the graph), {@code value} wide. */
  public record Frame(String name, int depth, long start, long value, double delta, Kind kind) {}

  private static final class Node {
    final String name;
    long value;
    double before;
    final Map<String, Node> children = new TreeMap<>();

    Node(String name) {
      this.name = name;
    }

    Node child(String n) {
      return children.computeIfAbsent(n, Node::new);
    }
  }

  private final ImmutableList<Frame> frames;
  private final long total;
  private final long pruned;
  private final boolean differential;
  private final double maxDelta;
  private final int maxDepth;
  /** Per frame name (below the thread), its change in samples, including frames gone in the variant. */
  private final Map<String, Double> changes;

  private FlameGraph(List<Frame> frames, long total, long pruned, boolean differential, Map<String, Double> changes) {
    this.frames = ImmutableList.copyOf(frames);
    this.changes = changes;
    this.total = total;
    this.pruned = pruned;
    this.differential = differential;
    this.maxDelta = frames.stream().mapToDouble(f -> Math.abs(f.delta())).max().orElse(0);
    this.maxDepth = frames.stream().mapToInt(Frame::depth).max().orElse(0);
  }

  /**
   * The flame graph of {@code folded} (stack to weight); a graph whose stacks do not share one
   * first frame gets a root frame {@code all}.
   */
  public static FlameGraph of(Map<String, Long> folded, Function<String, Kind> kinds) {
    Node root = tree(folded, null, 1.0);
    return layout(root, kinds, false);
  }

  /**
   * The differential flame graph from {@code before} to {@code after}: widths from {@code after},
   * colours from the change of each frame's samples, {@code before} scaled to {@code after}'s total.
   */
  public static FlameGraph diff(Map<String, Long> before, Map<String, Long> after, Function<String, Kind> kinds) {
    long a = after.values().stream().mapToLong(Long::longValue).sum();
    long b = before.values().stream().mapToLong(Long::longValue).sum();
    Node root = tree(after, null, 1.0);
    if (b > 0) {
      tree(before, root, (double) a / b);
    }
    return layout(root, kinds, true);
  }

  /** Adds {@code folded} into {@code into} (as the "before" side, scaled) or into a new tree. */
  private static Node tree(Map<String, Long> folded, Node into, double scale) {
    boolean before = into != null;
    List<String> firsts = folded.keySet().stream().map(s -> s.split(";", 2)[0]).distinct().toList();
    Node root = into != null ? into : new Node(firsts.size() == 1 ? firsts.get(0) : "all");
    boolean synthetic = root.name.equals("all") && !(firsts.size() == 1 && firsts.get(0).equals("all"));
    for (Map.Entry<String, Long> e : folded.entrySet()) {
      long w = e.getValue();
      if (w <= 0) {
        continue;
      }
      String[] names = e.getKey().split(";");
      Node n = root;
      add(n, w, before, scale);
      for (int i = synthetic ? 0 : 1; i < names.length; i++) {
        n = n.child(names[i]);
        add(n, w, before, scale);
      }
    }
    return root;
  }

  private static void add(Node n, long w, boolean before, double scale) {
    if (before) {
      n.before += w * scale;
    } else {
      n.value += w;
    }
  }

  private static FlameGraph layout(Node root, Function<String, Kind> kinds, boolean differential) {
    List<Frame> out = new ArrayList<>();
    long total = root.value;
    long[] pruned = new long[1];
    if (total > 0) {
      place(root, 0, 0, total, kinds, differential, out, pruned);
    }
    Map<String, Double> changes = new TreeMap<>();
    if (differential) {
      collectChanges(root, 0, changes);
    }
    return new FlameGraph(out, total, pruned[0], differential, changes);
  }

  private static void collectChanges(Node n, int depth, Map<String, Double> changes) {
    if (depth > 1) {
      changes.merge(n.name, n.value - n.before, Double::sum);
    }
    n.children.values().forEach(c -> collectChanges(c, depth + 1, changes));
  }

  private static void place(Node n, int depth, long start, long total, Function<String, Kind> kinds,
      boolean differential, List<Frame> out, long[] pruned) {
    out.add(new Frame(n.name, depth, start, n.value, differential ? n.value - n.before : 0,
        kinds.apply(n.name)));
    long x = start;
    for (Node c : n.children.values()) {
      if (c.value <= 0) {
        continue;
      }
      if ((double) c.value / total < MIN_WIDTH) {
        pruned[0] += c.value;
      } else {
        place(c, depth + 1, x, total, kinds, differential, out, pruned);
      }
      x += c.value;
    }
  }

  public ImmutableList<Frame> frames() {
    return frames;
  }

  /** Samples of the whole graph (its root's width). */
  public long total() {
    return total;
  }

  /** The share (0..1) of samples in frames left out for being narrower than {@link #MIN_WIDTH}. */
  public double prunedShare() {
    return total == 0 ? 0 : (double) pruned / total;
  }

  public boolean differential() {
    return differential;
  }

  /** Drawing width of a frame in SVG units. */
  static double width(long value, long total) {
    return WIDTH * (double) value / total;
  }

  /**
   * The SVG: a title line, the frames, and for the page's script the class {@code fg} and the
   * total samples ({@code data-total}) with their unit ({@code data-unit}).
   *
   * @param id unique within the page
   * @param unit what one sample is, for tooltips: {@code ns} (CPU time) prints as time
   */
  public String svg(String id, String title, String unit) {
    checkArgument(id.matches("[A-Za-z0-9_-]+"), "flame graph id must be a plain name: [%s]", id);
    int height = TOP + (maxDepth + 1) * FRAME_HEIGHT + BOTTOM;
    StringBuilder s = new StringBuilder(256 + frames.size() * 160);
    s.append(String.format(Locale.ROOT,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"fg%s\" id=\"%s\" width=\"%d\" height=\"%d\" "
            + "viewBox=\"0 0 %d %d\" data-total=\"%d\" data-unit=\"%s\" font-family=\"monospace\" font-size=\"11\">\n",
        differential ? " fg-diff" : "", id, WIDTH, height, WIDTH, height, total, esc(unit)));
    s.append("<text x=\"4\" y=\"16\" font-size=\"13\" font-family=\"sans-serif\" font-weight=\"bold\">")
        .append(esc(title)).append("</text>\n");
    for (Frame f : frames) {
      double x = width(f.start(), total);
      double w = width(f.value(), total);
      int y = TOP + (maxDepth - f.depth()) * FRAME_HEIGHT;
      s.append("<g class=\"f\"><title>").append(esc(f.name())).append('\n').append(esc(tooltip(f, unit)))
          .append("</title>");
      s.append(String.format(Locale.ROOT, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\"/>",
          x, y, w, FRAME_HEIGHT - 1, colour(f)));
      String label = label(f.name(), w);
      if (!label.isEmpty()) {
        s.append(String.format(Locale.ROOT, "<text x=\"%.2f\" y=\"%d\">", x + 3, y + FRAME_HEIGHT - 4))
            .append(esc(label)).append("</text>");
      }
      s.append("</g>\n");
    }
    s.append("</svg>\n");
    return s.toString();
  }

  /** The tooltip's second line: the sample share, the samples, and in a differential the change. */
  private String tooltip(Frame f, String unit) {
    String share = String.format(Locale.ROOT, "%.2f%% of samples (%s)", 100.0 * f.value() / total,
        amount(f.value(), unit));
    if (!differential) {
      return share;
    }
    return share + String.format(Locale.ROOT, ", %+.2f%% of samples vs baseline", 100.0 * f.delta() / total);
  }

  /** {@code ns} weights as time, anything else as a count. */
  static String amount(double v, String unit) {
    if (!unit.equals("ns")) {
      return String.format(Locale.ROOT, "%,.0f %s", v, unit);
    }
    if (v >= 1e9) {
      return String.format(Locale.ROOT, "%.3f s", v / 1e9);
    }
    if (v >= 1e6) {
      return String.format(Locale.ROOT, "%.3f ms", v / 1e6);
    }
    return String.format(Locale.ROOT, "%.3f us", v / 1e3);
  }

  /** The label as drawn in {@code w} units: whole, cut with {@code ..}, or nothing. */
  static String label(String name, double w) {
    int chars = (int) ((w - 6) / 6.7);
    if (chars < 3) {
      return "";
    }
    return name.length() <= chars ? name : name.substring(0, chars - 2) + "..";
  }

  /**
   * The fill: in a differential, white to red (grown) or blue (shrunk) by the size of the change
   * (as {@code flamegraph.pl} colours a differential); otherwise by kind, the hue varied a little by
   * name (deterministically) so that neighbours can be told apart.
   */
  String colour(Frame f) {
    if (differential) {
      if (maxDelta <= 0 || Math.abs(f.delta()) < UNCHANGED * total) {
        return "rgb(250,250,250)";
      }
      int v = (int) Math.round(210 * (1 - Math.min(1, Math.abs(f.delta()) / maxDelta)));
      return f.delta() > 0 ? "rgb(255," + v + "," + v + ")" : "rgb(" + v + "," + v + ",255)";
    }
    int h = Math.floorMod(f.name().hashCode(), 1000);
    double r = h / 1000.0;
    return switch (f.kind()) {
      case KERNEL -> rgb(230 + 25 * r, 130 + 60 * r, 40 + 30 * r);
      case USER -> rgb(215 + 30 * r, 195 + 40 * r, 60 + 30 * r);
      case GUEST -> rgb(60 + 40 * r, 195 + 30 * r, 200 + 30 * r);
      case HYPERVISOR -> rgb(160 + 30 * r, 110 + 30 * r, 215 + 30 * r);
      case SPIN -> rgb(225 + 20 * r, 30 + 30 * r, 30 + 20 * r);
      case OFFCPU -> rgb(90 + 40 * r, 140 + 40 * r, 225 + 25 * r);
      case TASK -> rgb(185 + 30 * r, 185 + 30 * r, 185 + 30 * r);
    };
  }

  private static String rgb(double r, double g, double b) {
    return "rgb(" + (int) r + "," + (int) g + "," + (int) b + ")";
  }

  /**
   * The largest changes of a differential, by frame name (a name's inclusive change summed over the
   * places it appears, not nested in itself): {@code n} grown, then {@code n} shrunk, as shares of
   * the variant's samples.
   */
  public List<Map.Entry<String, Double>> largestChanges(int n) {
    checkArgument(differential, "only a differential flame graph has changes");
    List<Map.Entry<String, Double>> sorted = new ArrayList<>();
    changes.forEach((name, d) -> sorted.add(Map.entry(name, total == 0 ? 0 : d / total)));
    sorted.sort(Comparator.comparingDouble((Map.Entry<String, Double> e) -> e.getValue()).reversed());
    List<Map.Entry<String, Double>> out = new ArrayList<>();
    sorted.stream().filter(e -> e.getValue() > 0).limit(n).forEach(out::add);
    List<Map.Entry<String, Double>> shrunk = new ArrayList<>(sorted.stream().filter(e -> e.getValue() < 0).toList());
    shrunk.sort(Comparator.comparingDouble(Map.Entry::getValue));
    shrunk.stream().limit(n).forEach(out::add);
    return out;
  }

  private static String esc(String s) {
    return HtmlEscapers.htmlEscaper().escape(s);
  }
}
