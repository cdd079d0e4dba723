package org.lockvisor.reproductions.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.junit.jupiter.api.io.TempDir;

/**
 * Not a test: takes the screenshots in the docs from a real report page, in headless Chromium.
 * Runs only when asked, e.g. for docs/img/vcpu-preempted-flamegraphs.png:
 *
 * <pre>
 * LOCKVISOR_SCREENSHOT_PAGE=out/vcpu-preempted/report.html \
 * LOCKVISOR_SCREENSHOT_KEEP=repro-fg0,repro-fg3 LOCKVISOR_SCREENSHOT_OUT=$PWD/docs/img/x.png \
 *   mvn -B -o -q -pl experiment -am test -Dtest=PageScreenshotTool -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 *
 * The flame graphs named in {@code KEEP} (ids) stay, every other flame graph of the page is hidden,
 * and the picture spans the first kept graph to the last.
 */
class PageScreenshotTool {

  @Test
  @EnabledIfEnvironmentVariable(named = "LOCKVISOR_SCREENSHOT_PAGE", matches = ".+")
  void screenshot(@TempDir Path dir) throws Exception {
    Path page = Path.of(System.getenv("LOCKVISOR_SCREENSHOT_PAGE")).toAbsolutePath();
    List<String> keep = List.of(System.getenv("LOCKVISOR_SCREENSHOT_KEEP").split(","));
    Path out = Path.of(System.getenv("LOCKVISOR_SCREENSHOT_OUT"));
    Optional<Path> browserPath = HeadlessChromium.find();
    assertThat(browserPath).as("a Chromium").isPresent();
    try (DevToolsBrowser b = DevToolsBrowser.start(browserPath.get(), dir)) {
      b.open(page);
      StringBuilder ids = new StringBuilder();
      keep.forEach(k -> ids.append(ids.length() == 0 ? "" : ",").append('\'').append(k).append("-box'"));
      b.eval("(function(){var keep=[" + ids + "];document.querySelectorAll('.fgbox').forEach(function(x){"
          + "if(keep.indexOf(x.id)<0)x.style.display='none';});"
          + "document.querySelectorAll('details').forEach(function(d){d.open=true;});"
          + "var first=document.getElementById(keep[0]),last=document.getElementById(keep[keep.length-1]);"
          + "var wrap=document.createElement('div');wrap.id='shot';first.parentNode.insertBefore(wrap,first);"
          + "var r1=first.getBoundingClientRect(),r2=last.getBoundingClientRect();"
          + "wrap.style.cssText='position:absolute;left:'+(r1.left+window.scrollX)+'px;top:'+(r1.top+window.scrollY)"
          + "+'px;width:'+Math.max(r1.width,r2.width)+'px;height:'+(r2.bottom-r1.top)+'px;pointer-events:none';})()");
      b.screenshot(out, "#shot");
    }
  }
}
