package org.lockvisor.reproductions.vcpupreempted;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.lockvisor.reproductions.api.ReproductionResult;
import org.lockvisor.reproductions.report.ReproductionPage;
import org.lockvisor.reproductions.report.RunDirectories;

/**
 * R3's report page carries the picture its result is about: in the baseline's guest flame graph
 * the spinning tower ({@code osq_lock}, {@code mutex_spin_on_owner}, {@code rwsem_spin_on_owner}
 * together) is wide and drawn in spin colours, and in the differential of the patched run against
 * it the tower is gone (at most a sliver) while the slow paths that carried it ({@code
 * __mutex_lock_slowpath}, {@code rwsem_down_write_failed}: whichever was wide in the baseline)
 * are blue (shrunk) or gone below the drawing width. Read from the page's SVG text, for seed 1 of the quick runs; the
 * thresholds are the reproduction's directions (baseline spin visible, patched spin under 1.5 %
 * per symbol), loosened for one seed. Called by {@link
 * VcpuPreemptedReproductionTest} on the page of its own (captured) quick run, so that no extra
 * simulation runs for it.
 */
final class VcpuPreemptedPageCheck {

  private static final Pattern FRAME = Pattern.compile(
      "<g class=\"f\"><title>([^\\n<]*)\\n[^<]*</title><rect x=\"[0-9.]+\" y=\"[0-9]+\" width=\"([0-9.]+)\""
          + " height=\"[0-9]+\" fill=\"rgb\\((\\d+),(\\d+),(\\d+)\\)\"/>");

  private record Frame(String name, double width, int r, int g, int b) {}

  private VcpuPreemptedPageCheck() {}

  /** Renders the page of {@code result} with the pictures of {@code runs} into {@code out} and checks it. */
  static void check(ReproductionResult result, String summary, Path out, RunDirectories runs) throws Exception {
    String page = ReproductionPage.render(result, summary, out, runs.pictures());
    Files.writeString(out.resolve(ReproductionPage.FILE_NAME), page);

    String baseline = svgTitled(page, "ppc64-powervm-groups6-baseline-seed1: on-CPU, lpar");
    String diff = svgTitled(page,
        "ppc64-powervm-groups6-patched-seed1 vs ppc64-powervm-groups6-baseline-seed1: differential on-CPU, lpar");
    List<Frame> before = frames(baseline);
    List<Frame> after = frames(diff);

    // the spin symbols together: which of them carries the tower depends on placement and scale
    // (at the quick scale mostly mutex_spin_on_owner, at the default scale osq_lock)
    double tower = VcpuPreemptedReproduction.SPIN.stream().mapToDouble(s -> width(before, s)).sum();
    assertThat(tower).as("baseline spin symbols, per mille of the guest's samples").isGreaterThan(60);
    before.stream().filter(f -> VcpuPreemptedReproduction.SPIN.contains(f.name()) && f.width() > 1)
        .forEach(f -> assertThat(f.r() - f.g()).as("%s drawn as a spin symbol (red)", f.name()).isGreaterThan(120));
    double left = VcpuPreemptedReproduction.SPIN.stream().mapToDouble(s -> width(after, s)).sum();
    assertThat(left).as("patched spin symbols in the differential").isLessThan(20).isLessThan(tower / 4);
    // the slow paths that carried the tower (the pipe mutexes' __mutex_lock_slowpath, the
    // fork/exit rwsems' rwsem_down_write_failed; which one is wide depends on placement): each
    // that was wide in the baseline shrank — drawn blue in the differential, or gone from it
    // because it fell below the drawing width
    int wide = 0;
    for (String caller : List.of("__mutex_lock_slowpath", "rwsem_down_write_failed")) {
      if (width(before, caller) < 20) {
        continue;
      }
      wide++;
      after.stream().filter(f -> f.name().equals(caller)).max((x, y) -> Double.compare(x.width(), y.width()))
          .ifPresent(f -> {
            assertThat(f.b()).as("%s shrank: blue", caller).isEqualTo(255);
            assertThat(f.r()).as("%s shrank: blue", caller).isLessThan(255);
          });
    }
    assertThat(wide).as("a slow path carrying the baseline's tower").isPositive();
    assertThat(page.length()).isLessThanOrEqualTo(ReproductionPage.SIZE_BUDGET);
  }

  private static String svgTitled(String page, String title) {
    int at = page.indexOf(">" + title + "</text>");
    assertThat(at).as("flame graph [" + title + "] on the page").isPositive();
    return page.substring(page.lastIndexOf("<svg", at), page.indexOf("</svg>", at));
  }

  private static List<Frame> frames(String svg) {
    List<Frame> out = new ArrayList<>();
    Matcher m = FRAME.matcher(svg);
    while (m.find()) {
      out.add(new Frame(m.group(1), Double.parseDouble(m.group(2)), Integer.parseInt(m.group(3)),
          Integer.parseInt(m.group(4)), Integer.parseInt(m.group(5))));
    }
    assertThat(out).isNotEmpty();
    return out;
  }

  private static double width(List<Frame> frames, String name) {
    return frames.stream().filter(f -> f.name().equals(name)).mapToDouble(Frame::width).sum();
  }
}
