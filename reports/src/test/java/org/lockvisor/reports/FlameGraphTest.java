package org.lockvisor.reports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The SVG flame graph drawn from folded stacks, read back from its SVG text: each frame's width is
 * its share of the folded file's samples (of the drawing's 1000 units), frames narrower than the
 * minimum width are pruned with their share stated, and in a differential graph the width comes
 * from the variant while the colour follows the sign of the change (red grown, blue shrunk, white
 * unchanged). Inputs are small hand-made folded files whose shares are worked out by hand.
 */
class FlameGraphTest {

  private static final Pattern FRAME = Pattern.compile(
      "<g class=\"f\"><title>([^\\n<]*)\\n[^<]*</title><rect x=\"([0-9.]+)\" y=\"([0-9]+)\" width=\"([0-9.]+)\""
          + " height=\"[0-9]+\" fill=\"([^\"]+)\"/>");

  private record Drawn(double x, int y, double width, String fill) {}

  /** Frames by name (names are unique in these inputs). */
  private static Map<String, Drawn> frames(String svg) {
    Map<String, Drawn> out = new LinkedHashMap<>();
    Matcher m = FRAME.matcher(svg);
    while (m.find()) {
      out.put(m.group(1), new Drawn(Double.parseDouble(m.group(2)), Integer.parseInt(m.group(3)),
          Double.parseDouble(m.group(4)), m.group(5)));
    }
    return out;
  }

  private static Map<String, Long> folded(String text) {
    return FoldedStacks.parse(text);
  }

  @Test
  void frameWidths_equalTheFoldedSampleShares() {
    // vm0: 100 samples; t1 = a = 40 (b 30 + c 10), t2 = d = 60.
    String svg = FlameGraph.of(folded("vm0;t1;a;b 30\nvm0;t1;a;c 10\nvm0;t2;d 60\n"), n -> FlameGraph.Kind.KERNEL)
        .svg("g", "test", "ns");
    Map<String, Drawn> f = frames(svg);

    assertThat(f.keySet()).containsExactlyInAnyOrder("vm0", "t1", "a", "b", "c", "t2", "d");
    assertThat(f.get("vm0").width()).isCloseTo(1000, within(0.01));
    assertThat(f.get("t1").width()).isCloseTo(400, within(0.01));
    assertThat(f.get("a").width()).isCloseTo(400, within(0.01));
    assertThat(f.get("b").width()).isCloseTo(300, within(0.01));
    assertThat(f.get("c").width()).isCloseTo(100, within(0.01));
    assertThat(f.get("t2").width()).isCloseTo(600, within(0.01));
    assertThat(f.get("d").width()).isCloseTo(600, within(0.01));
    // Siblings side by side in name order, children on top of their parent (root at the bottom).
    assertThat(f.get("t2").x()).isCloseTo(400, within(0.01));
    assertThat(f.get("c").x()).isCloseTo(300, within(0.01));
    assertThat(f.get("a").y()).isLessThan(f.get("t1").y());
    assertThat(svg).contains("30.00% of samples");
  }

  @Test
  void framesUnderTheMinimumWidth_arePruned_andTheirShareIsStated() {
    // 5 of 10000 samples = 0.05%, under the 0.1% minimum width.
    FlameGraph g = FlameGraph.of(folded("h;t;big 9995\nh;t;tiny;deeper 5\n"), n -> FlameGraph.Kind.KERNEL);

    assertThat(frames(g.svg("g", "t", "ns")).keySet()).contains("big").doesNotContain("tiny", "deeper");
    assertThat(g.prunedShare()).isCloseTo(0.0005, within(1e-12));
  }

  @Test
  void colours_followTheKindOfEachFrame_spinInRed() {
    Map<String, FlameGraph.Kind> kinds = Map.of("osq_lock", FlameGraph.Kind.SPIN, "pipe_write",
        FlameGraph.Kind.KERNEL, "[H]", FlameGraph.Kind.HYPERVISOR);
    Map<String, Drawn> f = frames(FlameGraph.of(folded("vm;t;osq_lock 50\nvm;t;pipe_write 30\nvm;t;[H] 20\n"),
        n -> kinds.getOrDefault(n, FlameGraph.Kind.TASK)).svg("g", "t", "ns"));

    int[] spin = rgb(f.get("osq_lock").fill());
    int[] kernel = rgb(f.get("pipe_write").fill());
    int[] hyper = rgb(f.get("[H]").fill());
    int[] thread = rgb(f.get("t").fill());
    assertThat(spin[0]).isGreaterThan(200);
    assertThat(spin[1]).isLessThan(80);
    assertThat(kernel[0]).isGreaterThan(kernel[2] + 100);
    assertThat(hyper[2]).isGreaterThan(hyper[1] + 60);
    assertThat(thread[0]).isEqualTo(thread[1]).isEqualTo(thread[2]);
  }

  @Test
  void differential_widthFromTheVariant_redWhereItGrew_blueWhereItShrank_whiteWhereEqual() {
    // Both 100 samples: grow 10 -> 40, shrink 40 -> 10, same 50 -> 50; gone 0 in the variant.
    FlameGraph g = FlameGraph.diff(folded("r;t;grow 10\nr;t;shrink 30\nr;t;same 50\nr;t;gone 10\n"),
        folded("r;t;grow 40\nr;t;shrink 10\nr;t;same 50\n"), n -> FlameGraph.Kind.KERNEL);
    Map<String, Drawn> f = frames(g.svg("d", "diff", "ns"));

    assertThat(f.get("grow").width()).isCloseTo(400, within(0.01));
    assertThat(f.get("shrink").width()).isCloseTo(100, within(0.01));
    assertThat(f).doesNotContainKey("gone");
    int[] grow = rgb(f.get("grow").fill());
    int[] shrink = rgb(f.get("shrink").fill());
    int[] same = rgb(f.get("same").fill());
    assertThat(grow[0]).isEqualTo(255);
    assertThat(grow[1]).isLessThan(255).isEqualTo(grow[2]);
    assertThat(shrink[2]).isEqualTo(255);
    assertThat(shrink[0]).isLessThan(255).isEqualTo(shrink[1]);
    assertThat(same[0]).isEqualTo(same[1]).isEqualTo(same[2]).isGreaterThan(240);
    // The largest change saturates the colour (+30 grow is the largest).
    assertThat(grow[1]).isZero();
    assertThat(g.largestChanges(2)).extracting(Map.Entry::getKey).containsExactly("grow", "shrink", "gone");
  }

  @Test
  void differential_scalesTheBaselineToTheVariantsTotal_soEqualSharesAreUnchanged() {
    // The baseline ran twice as long with the same shares: nothing changed.
    FlameGraph g = FlameGraph.diff(folded("r;t;a 200\nr;t;b 600\n"), folded("r;t;a 100\nr;t;b 300\n"),
        n -> FlameGraph.Kind.KERNEL);

    frames(g.svg("d", "diff", "ns")).values().forEach(d -> assertThat(d.fill()).isEqualTo("rgb(250,250,250)"));
  }

  private static int[] rgb(String fill) {
    String[] p = fill.substring(4, fill.length() - 1).split(",");
    return new int[] {Integer.parseInt(p[0]), Integer.parseInt(p[1]), Integer.parseInt(p[2])};
  }
}
