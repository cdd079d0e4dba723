package org.lockvisor.reproductions.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.google.common.collect.ImmutableMap;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.reports.RunOutputs;
import org.lockvisor.reports.RunPage;
import org.lockvisor.reproductions.api.ReproductionResult;

/**
 * report.html rendered by a real browser: headless Chromium from the distribution (installed by
 * .ci/run). The screenshot is kept in target/report-screenshot.png. Skipped, with the reason, only
 * where no browser exists.
 */
class ReportInBrowserTest {

  private static Path browser;

  @TempDir
  Path dir;

  @BeforeAll
  static void findBrowser() {
    Optional<Path> found = HeadlessChromium.find();
    assumeTrue(found.isPresent(), "no Chromium found (/usr/bin/chromium, or set LOCKVISOR_BROWSER): "
        + ".ci/run installs the Debian package; this test needs it to render report.html");
    browser = found.get();
  }

  @Test
  void reproductionPage_rendersWithoutConsoleErrors_andIsNotBlank() throws Exception {
    Path out = dir.resolve("vhost-wakeup");
    Files.createDirectories(out);
    Files.writeString(out.resolve("vhost-cpu.svg"), """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" width="400" height="200" viewBox="0 0 400 200">
          <rect x="0" y="0" width="400" height="200" fill="white"/>
          <polyline points="20,180 120,150 220,100 380,40" stroke="#1f77b4" stroke-width="3" fill="none"/>
          <text x="200" y="20" text-anchor="middle">vhost CPU % vs streams</text>
        </svg>
        """);
    Files.writeString(out.resolve("perf-report.txt"), "# Overhead  Command  Shared Object  Symbol\n");
    ReproductionResult result = ReproductionResult.of("vhost-wakeup", true,
        "patched vhost CPU below baseline at every stream count <&> escaped",
        List.of("threads  baseline  patched", "      1     28.8     27.5"),
        Map.of("rows", 4.0, "reduction256Percent", 17.4), ImmutableMap.of());
    Path html = out.resolve(ReproductionPage.FILE_NAME);
    Files.writeString(html, ReproductionPage.render(result, "vhost: wake up worker outside spin_lock", out));

    Path shot = dir.resolve("report.png");
    HeadlessChromium.Rendering r = HeadlessChromium.render(browser, html, shot, dir);

    assertThat(r.exitCode()).as(r.stderr()).isZero();
    assertThat(r.consoleLines()).as("browser console").isEmpty();
    BufferedImage image = ImageIO.read(shot.toFile());
    assertThat(image.getWidth()).isEqualTo(1200);
    assertThat(distinctColours(image)).as("a rendered page, not a blank one").isGreaterThan(20);
    Path kept = Path.of("target", "report-screenshot.png");
    Files.createDirectories(kept.getParent());
    Files.copy(shot, kept, StandardCopyOption.REPLACE_EXISTING);
    String page = Files.readString(html);
    assertThat(page).contains("<svg", "perf-report.txt", "&lt;&amp;&gt; escaped").doesNotContain("<?xml");
  }

  @Test
  void runPage_ofARealRun_rendersWithoutConsoleErrors_andIsNotBlank() throws Exception {
    RunOutputs base = TortureRuns.run(TortureRuns.torture(), "base", 0);
    RunOutputs ticket = TortureRuns.run(TortureRuns.torture(), "ticket", 0);
    List<String> links = new java.util.ArrayList<>();
    for (RunOutputs o : List.of(base, ticket)) {
      for (var f : o.files().entrySet()) {
        Files.write(dir.resolve(f.getKey()), f.getValue());
        links.add(f.getKey());
      }
    }
    Path html = dir.resolve("report.html");
    Files.writeString(html, RunPage.render("torture", "torture.yaml", null, List.of(base, ticket), links));

    Path shot = dir.resolve("run.png");
    HeadlessChromium.Rendering r = HeadlessChromium.render(browser, html, shot, dir);

    assertThat(r.exitCode()).as(r.stderr()).isZero();
    assertThat(r.consoleLines()).as("browser console").isEmpty();
    BufferedImage image = ImageIO.read(shot.toFile());
    assertThat(distinctColours(image)).as("a rendered page, not a blank one").isGreaterThan(20);
    Path kept = Path.of("target", "run-report-screenshot.png");
    Files.createDirectories(kept.getParent());
    Files.copy(shot, kept, StandardCopyOption.REPLACE_EXISTING);
    assertThat(Files.readString(html)).contains("<svg", "Variant ticket", "href=\"lock-contention-ticket.txt\"");
  }

  @Test
  void consoleErrorsAreSeen_soTheCheckAboveCanFail() throws Exception {
    Path html = dir.resolve("broken.html");
    Files.writeString(html, "<!DOCTYPE html><html><body><p>x</p><script>console.error('boom')</script></body></html>");

    HeadlessChromium.Rendering r = HeadlessChromium.render(browser, html, dir.resolve("b.png"), dir);

    assertThat(r.consoleLines()).anySatisfy(l -> assertThat(l).contains("boom"));
  }

  private static int distinctColours(BufferedImage image) {
    java.util.Set<Integer> colours = new java.util.HashSet<>();
    for (int y = 0; y < image.getHeight(); y += 4) {
      for (int x = 0; x < image.getWidth(); x += 4) {
        colours.add(image.getRGB(x, y));
      }
    }
    return colours.size();
  }
}
