package org.lockvisor.reproductions.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.google.common.collect.ImmutableMap;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.reports.RunOutputs;
import org.lockvisor.reports.RunPage;
import org.lockvisor.reproductions.api.ReproductionResult;

/**
 * A run's and a reproduction's report.html used in headless Chromium as a reader uses them, driven
 * over the DevTools protocol: the flame graphs and the lock timeline are there; a click on a frame
 * zooms (the clicked frame fills the width, frames outside it disappear); a search reports as many
 * matching frames as the page's SVG has frames of that name (counted here from the HTML text); the
 * timeline's window selector changes what is drawn; the console stays free of errors. Screenshots
 * are kept in target/browser/. Skipped, with the reason, only where no browser exists.
 */
class FlameGraphInBrowserTest {

  private static final Path SHOTS = Path.of("target", "browser");
  private static Path browserPath;
  private static RunOutputs base;
  private static RunOutputs ticket;

  @TempDir
  static Path dir;

  private static DevToolsBrowser browser;

  @BeforeAll
  static void start() throws Exception {
    Optional<Path> found = HeadlessChromium.find();
    assumeTrue(found.isPresent(), "no Chromium found (/usr/bin/chromium, or set LOCKVISOR_BROWSER): "
        + ".ci/run installs the Debian package; this test needs it to use report.html");
    browserPath = found.get();
    base = TortureRuns.run(TortureRuns.torture(), "base", 0);
    ticket = TortureRuns.run(TortureRuns.torture(), "ticket", 0);
    browser = DevToolsBrowser.start(browserPath, dir);
  }

  @AfterAll
  static void stop() {
    if (browser != null) {
      browser.close();
    }
  }

  @Test
  void runPage_flameGraphZoomsOnClick_searchCountsMatches_timelineWindows_noConsoleErrors() throws Exception {
    Path html = dir.resolve("report.html");
    String page = RunPage.render("torture", "torture.yaml", null, List.of(base, ticket), List.of());
    Files.writeString(html, page);
    browser.open(html);

    assertThat(browser.eval("document.querySelectorAll('svg.fg').length").asInt()).isGreaterThanOrEqualTo(4);
    assertThat(browser.eval("document.querySelectorAll('svg.fg-diff').length").asInt()).isPositive();
    assertThat(browser.eval("document.querySelectorAll('svg.tl').length").asInt()).isEqualTo(2);
    String graph = "run-fg0";
    zoomAndSearch(graph, svgOf(page, graph), "spin");

    // The timeline: every interval drawn over the whole span, fewer in a 10 us window.
    String tl = "#timeline svg.tl";
    int intervals = browser.eval("document.querySelectorAll('" + tl + " .tlr').length").asInt();
    assertThat(intervals).as("timeline intervals").isPositive();
    setWindow("all");
    assertThat(visible(tl + " .tlr")).isEqualTo(intervals);
    assertThat(browser.eval("document.querySelector('" + tl + "').textContent").asText())
        .contains("torture_lock held", "holder's vCPU preempted", "waits: lock_torture_wr", "vCPU vm0/vcpu0 on host");
    setWindow("10000");
    int inWindow = visible(tl + " .tlr");
    assertThat(inWindow).isPositive().isLessThan(intervals);
    browser.eval("(function(){var p=document.querySelector('#timeline .tlpos');p.value=500;"
        + "p.dispatchEvent(new Event('input'));})()");
    assertThat(browser.eval("document.querySelector('" + tl + "').getAttribute('data-window')").asText())
        .doesNotStartWith("0,");
    browser.screenshot(SHOTS.resolve("run-timeline.png"), "#timeline");

    assertThat(browser.errors()).as("console errors and exceptions").isEmpty();
  }

  @Test
  void reproductionPage_showsOneRunPerConfiguration_withItsDifferential_andItsGraphsWork() throws Exception {
    Path out = dir.resolve("torture-repro");
    Files.createDirectories(out);
    ReproductionResult result = ReproductionResult.of("torture-repro", true, "ticket against pv-qspinlock",
        List.of("variant  acquisitions", "base     1877"), Map.of("rows", 1.0), ImmutableMap.of());
    List<ReproductionPage.Run> runs = new ArrayList<>(List.of(
        new ReproductionPage.Run("torture-pv-seed1", "baseline", null, "spinlock=pv-qspinlock", base),
        new ReproductionPage.Run("torture-ticket-seed1", "patched", "torture-pv-seed1", "spinlock=ticket", ticket),
        new ReproductionPage.Run("torture-pv-seed2", "baseline", null, "spinlock=pv-qspinlock", base)));
    String page = ReproductionPage.render(result, "locktorture: ticket vs pv-qspinlock", out, runs);
    Path html = out.resolve(ReproductionPage.FILE_NAME);
    Files.writeString(html, page);
    browser.open(html);

    assertThat(page).contains("run torture-pv-seed1", "run torture-ticket-seed1", "Runs patched: spinlock=ticket.")
        .doesNotContain("run torture-pv-seed2");
    int diffs = browser.eval("document.querySelectorAll('svg.fg-diff').length").asInt();
    assertThat(diffs).isPositive();
    String diff = browser.eval("document.querySelector('svg.fg-diff').id").asText();
    zoomAndSearch(diff, svgOf(page, diff), "queued_spin|spin_lock");
    browser.screenshot(SHOTS.resolve("reproduction-differential.png"), "#" + diff);
    assertThat(browser.errors()).as("console errors and exceptions").isEmpty();
  }

  /** Clicks a frame of graph {@code id} and checks the zoom, then searches {@code regex} and checks the count. */
  private void zoomAndSearch(String id, String svg, String regex) throws Exception {
    String frames = "#" + id + " g.f";
    int before = visible(frames);
    // A frame neither the root nor full width: zooming into it must hide its non-ancestors.
    String name = browser.eval("(function(){var gs=[...document.querySelectorAll('" + frames + "')];"
        + "var t=gs.filter(function(g){var w=+g.querySelector('rect').getAttribute('width');return w>20&&w<700;})[0];"
        + "t.setAttribute('data-test','target');return t.querySelector('title').textContent.split('\\n')[0];})()")
        .asText();
    browser.click(frames + "[data-test=target] rect");

    assertThat(browser.eval("document.getElementById('" + id + "').getAttribute('data-zoomed')").asText())
        .isEqualTo(name);
    assertThat(browser.eval("+document.querySelector('" + frames + "[data-test=target] rect').getAttribute('width')")
        .asDouble()).isEqualTo(1000.0);
    int zoomed = visible(frames);
    assertThat(zoomed).as("visible frames after zooming into " + name).isLessThan(before);
    browser.screenshot(SHOTS.resolve(id + "-zoomed.png"), "#" + id);
    browser.click("#" + id + "-box .fgreset");
    assertThat(visible(frames)).isEqualTo(before);

    browser.type("#" + id + "-box .fgsearch", regex);
    browser.click("#" + id + "-box .fggo");
    String count = browser.eval("document.querySelector('#" + id + "-box .fgcount').textContent").asText();
    long expected = titles(svg).stream().filter(t -> Pattern.compile(regex).matcher(t).find()).count();
    assertThat(expected).as("frames matching [" + regex + "] in the page's SVG").isPositive();
    assertThat(count).startsWith(expected + " frame").contains("% of samples");
    assertThat(browser.eval("document.getElementById('" + id + "').getAttribute('data-matches')").asLong())
        .isEqualTo(expected);
    browser.screenshot(SHOTS.resolve(id + "-search.png"), "#" + id + "-box");
  }

  private void setWindow(String value) throws Exception {
    browser.eval("(function(){var s=document.querySelector('#timeline .tlwin');s.value='" + value + "';"
        + "s.dispatchEvent(new Event('change'));})()");
  }

  private int visible(String selector) throws Exception {
    return browser.eval("[...document.querySelectorAll('" + selector + "')].filter(function(e){"
        + "return e.style.display!=='none';}).length").asInt();
  }

  /** The SVG element {@code id} of the page's text. */
  private static String svgOf(String page, String id) {
    int at = page.indexOf("id=\"" + id + "\"");
    assertThat(at).as("svg " + id).isPositive();
    return page.substring(page.lastIndexOf("<svg", at), page.indexOf("</svg>", at));
  }

  /** The frame names of an SVG flame graph: the first line of each frame's title. */
  private static List<String> titles(String svg) {
    List<String> out = new ArrayList<>();
    Matcher m = Pattern.compile("<g class=\"f\"><title>([^\\n<]*)\\n").matcher(svg);
    while (m.find()) {
      out.add(m.group(1).replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">"));
    }
    return out;
  }
}
