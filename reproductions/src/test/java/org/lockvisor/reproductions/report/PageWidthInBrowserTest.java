package org.lockvisor.reproductions.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.google.common.collect.ImmutableMap;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.reproductions.api.ReproductionResult;

/**
 * A reproduction's report.html stays within the page in a real browser (headless Chromium, as
 * .ci/run installs it): a verdict whose headline is one long run without spaces (band keys and
 * figures joined, as the reproductions write them) wraps inside the page instead of running past
 * its right edge. Skipped, with the reason, only where no browser exists.
 */
class PageWidthInBrowserTest {

  @TempDir
  Path dir;

  @Test
  void longVerdict_wrapsWithinThePage() throws Exception {
    Optional<Path> browser = HeadlessChromium.find();
    assumeTrue(browser.isPresent(), "no Chromium found (/usr/bin/chromium, or set LOCKVISOR_BROWSER)");
    String headline = "arm64.nj4.ratio=2.31[2.0,3.0];arm64.nj4.baseline.iops=13912[9800,18200];"
        .repeat(6) + "x86.nj2.ratio=1.31[1.2,1.5]";
    ReproductionResult result = ReproductionResult.of("virtio-blk-notify", false, headline,
        List.of("a table line"), Map.of("x", 1.0), ImmutableMap.of());
    Path html = dir.resolve(ReproductionPage.FILE_NAME);
    Files.writeString(html, ReproductionPage.render(result, "virtio_blk: notify outside the lock", dir));

    try (DevToolsBrowser b = DevToolsBrowser.start(browser.get(), dir)) {
      b.open(html);
      double pageRight = b.eval("document.body.getBoundingClientRect().right").asDouble();
      double verdictRight = b.eval("document.querySelector('.verdict').getBoundingClientRect().right").asDouble();
      double contentWidth = b.eval("document.querySelector('.verdict').scrollWidth").asDouble();
      double boxWidth = b.eval("document.querySelector('.verdict').clientWidth").asDouble();

      assertThat(verdictRight).as("the verdict's box ends inside the body").isLessThanOrEqualTo(pageRight + 0.5);
      assertThat(contentWidth).as("the verdict's text fits its box (no overflow past the page)")
          .isLessThanOrEqualTo(boxWidth);
    }
  }
}
