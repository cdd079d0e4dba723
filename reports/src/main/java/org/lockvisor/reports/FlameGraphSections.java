package org.lockvisor.reports;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The flame graphs of runs on a report page, within the page's size budget: per run, one graph
 * per kernel (each VM, then the host) of its on-CPU stacks, optionally its spin and off-CPU
 * stacks, and the differential on-CPU graph against its baseline run. A graph that would take the
 * page over its budget is left out and named in a closing note (its folded file is beside the
 * page); frames under {@link FlameGraph#MIN_WIDTH} are pruned and the pruned share is stated under
 * each graph.
 */
public final class FlameGraphSections {

  /** Size budget of a report page, in characters (the pages are ASCII but for names): 4 MiB. */
  public static final int PAGE_BUDGET = 4 << 20;

  private final HtmlReport page;
  private final int budget;
  private final String idPrefix;
  private final List<String> leftOut = new ArrayList<>();
  private int graphs;
  private boolean legend;

  public FlameGraphSections(HtmlReport page, String idPrefix, int budget) {
    this.page = page;
    this.idPrefix = idPrefix;
    this.budget = budget;
  }

  /** The graphs of one run; {@code base} (or {@code null}) is the run its differential is taken against. */
  public void run(String name, RunOutputs run, RunOutputs base, String baseName, boolean spinAndOffCpu) {
    kindLegend();
    Map<String, Long> oncpu = folded(run, "oncpu.folded");
    Map<String, Long> baseOncpu = base == null ? null : folded(base, "oncpu.folded");
    for (String root : roots(oncpu)) {
      Map<String, Long> mine = underRoot(oncpu, root);
      graph(name + ": on-CPU, " + root, FlameGraph.of(mine, run::frameKind),
          "On-CPU time of " + root + " in " + name + " (" + run.name("oncpu", "folded") + ")");
      if (baseOncpu != null) {
        differential(name, baseName, root, underRoot(baseOncpu, root), mine, run);
      }
      if (spinAndOffCpu) {
        Map<String, Long> spin = underRoot(folded(run, "spin.folded"), root);
        if (!spin.isEmpty()) {
          graph(name + ": spin, " + root, FlameGraph.of(spin, run::frameKind),
              "Spinning of " + root + " in " + name + ": the on-CPU stacks whose leaf was spun on ("
                  + run.name("spin", "folded") + ")");
        }
        Map<String, Long> off = underRoot(folded(run, "offcpu.folded"), root);
        if (!off.isEmpty()) {
          graph(name + ": off-CPU, " + root, FlameGraph.of(off, run::frameKind),
              "Off-CPU time of " + root + "'s threads in " + name + ", by state: [sleeping], [blocked], [runqueue] ("
                  + run.name("offcpu", "folded") + ")");
        }
      }
    }
  }

  private void differential(String name, String baseName, String root, Map<String, Long> before,
      Map<String, Long> after, RunOutputs run) {
    if (before.isEmpty() || after.isEmpty()) {
      return;
    }
    FlameGraph g = FlameGraph.diff(before, after, run::frameKind);
    StringBuilder changes = new StringBuilder();
    for (Map.Entry<String, Double> c : g.largestChanges(3)) {
      changes.append(changes.length() == 0 ? "" : ", ")
          .append(String.format(Locale.ROOT, "%s %+.2f%%", c.getKey(), 100 * c.getValue()));
    }
    if (graph(name + " vs " + baseName + ": differential on-CPU, " + root, g,
        "Differential flame graph of " + root + ": widths are " + name + "'s on-CPU samples; red frames have more"
            + " samples in " + name + " than in " + baseName + ", blue fewer (deeper colour, larger change); "
            + baseName + " scaled to " + name + "'s total first (difffolded.pl -n). Largest changes (share of "
            + name + "'s samples): " + (changes.length() == 0 ? "none" : changes) + ".")) {
      page.legend(List.of(List.of("rgb(255,110,110)", "red: grew in " + name),
          List.of("rgb(110,110,255)", "blue: shrank in " + name), List.of("rgb(250,250,250)", "white: unchanged")));
    }
  }

  /** Adds a graph if it fits the budget; returns whether it did. */
  private boolean graph(String title, FlameGraph g, String caption) {
    if (g.total() == 0) {
      return false;
    }
    String svg = g.svg(idPrefix + "-fg" + graphs, title, "ns");
    String full = caption + String.format(Locale.ROOT, " Total %s; frames narrower than %.1f%% of the graph pruned:"
        + " %.2f%% of samples not drawn.", FlameGraph.amount(g.total(), "ns"), 100 * FlameGraph.MIN_WIDTH,
        100 * g.prunedShare());
    if (page.length() + svg.length() + full.length() + 1024 > budget) {
      leftOut.add(title);
      return false;
    }
    graphs++;
    page.flameGraph(svg, full);
    return true;
  }

  private void kindLegend() {
    if (legend) {
      return;
    }
    legend = true;
    page.paragraph("Flame graphs: click a frame to zoom into it, Reset zoom to go back; search takes a regular"
        + " expression and reports the matching frames and their share of samples. Colours by kind:");
    page.legend(List.of(List.of("rgb(240,160,55)", "kernel"), List.of("rgb(230,215,75)", "user"),
        List.of("rgb(80,210,215)", "guest mode"), List.of("rgb(175,125,230)", "hypervisor [H]"),
        List.of("rgb(235,45,40)", "spin symbol"), List.of("rgb(110,160,240)", "off-CPU state"),
        List.of("rgb(200,200,200)", "kernel root / thread")));
  }

  /** Closes the sections: names the graphs the budget left out, if any. */
  public void finish() {
    if (!leftOut.isEmpty()) {
      page.paragraph(String.format(Locale.ROOT, "%d flame graph(s) left out to keep this page within its %.0f MiB"
          + " budget (their folded files are beside the runs): %s.", leftOut.size(), budget / 1048576.0,
          String.join("; ", leftOut)));
    }
  }

  public int leftOutCount() {
    return leftOut.size();
  }

  private static Map<String, Long> folded(RunOutputs run, String base) {
    String name = run.name(base.substring(0, base.indexOf('.')), "folded");
    return run.files().containsKey(name) ? FoldedStacks.parse(run.text(name)) : Map.of();
  }

  /** The first frames (kernels): VMs by name, then the host. */
  static List<String> roots(Map<String, Long> folded) {
    TreeSet<String> roots = new TreeSet<>();
    folded.keySet().forEach(s -> roots.add(s.split(";", 2)[0]));
    List<String> out = new ArrayList<>();
    roots.stream().filter(r -> !r.equals("host")).forEach(out::add);
    if (roots.contains("host")) {
      out.add("host");
    }
    return out;
  }

  static Map<String, Long> underRoot(Map<String, Long> folded, String root) {
    Map<String, Long> out = new TreeMap<>();
    folded.forEach((stack, w) -> {
      if (stack.startsWith(root + ";")) {
        out.put(stack, w);
      }
    });
    return out;
  }
}
