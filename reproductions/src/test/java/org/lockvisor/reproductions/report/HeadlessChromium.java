package org.lockvisor.reproductions.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Renders a page with the distribution's Chromium in headless mode (installed by .ci/run) and
 * collects its console output. {@code LOCKVISOR_BROWSER} overrides the binary.
 */
final class HeadlessChromium {

  record Rendering(int exitCode, Path screenshot, List<String> consoleLines, String stderr) {}

  private HeadlessChromium() {}

  static Optional<Path> find() {
    String env = System.getenv("LOCKVISOR_BROWSER");
    Stream<String> candidates = env != null && !env.isBlank()
        ? Stream.of(env)
        : Stream.of("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome");
    return candidates.map(Path::of).filter(Files::isExecutable).findFirst();
  }

  static Rendering render(Path browser, Path html, Path screenshot, Path workDir) throws IOException, InterruptedException {
    Path log = workDir.resolve("chromium.log");
    Process p = new ProcessBuilder(browser.toString(),
        "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
        "--user-data-dir=" + workDir.resolve("profile"),
        "--window-size=1200,1600", "--enable-logging=stderr", "--v=0",
        "--screenshot=" + screenshot.toAbsolutePath(), html.toUri().toString())
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException("chromium did not finish rendering " + html + " in 120 s");
    }
    String output = Files.readString(log);
    List<String> console = output.lines().filter(l -> l.contains(":CONSOLE")).toList();
    return new Rendering(p.exitValue(), screenshot, console, output);
  }
}
