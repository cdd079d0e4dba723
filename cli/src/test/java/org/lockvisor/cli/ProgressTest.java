package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** The one progress printer of run, sweep and reproduce: quiet at first, a bar on a terminal, lines otherwise. */
class ProgressTest {

  private final StringWriter err = new StringWriter();

  @Test
  void beforeTheThreshold_printsNothing() {
    Progress p = new Progress(new PrintWriter(err), false, 3600);
    p.step("reproduce x: run a", 1, 4);
    p.finish();
    assertThat(err.toString()).isEmpty();
  }

  @Test
  void withoutATerminal_printsOnePlainLinePerStep_withTheEta() {
    Progress p = new Progress(new PrintWriter(err), false, 0);
    p.step("reproduce x: run a", 1, 4);
    p.step("reproduce x: run b", 4, 4);
    p.finish();
    assertThat(err.toString().lines().toList()).hasSize(2).allMatch(l -> !l.contains("\r") && !l.contains("["));
    assertThat(err.toString().lines().toList().get(0))
        .matches("reproduce x: run a done \\(1/4\\), \\d+\\.\\d s elapsed, ETA \\d+\\.\\d s");
    assertThat(err.toString().lines().toList().get(1)).endsWith("ETA 0.0 s");
  }

  @Test
  void onATerminal_rewritesOneBarInPlace_andEndsTheLine() {
    Progress p = new Progress(new PrintWriter(err), true, 0);
    p.step("reproduce x: run longer-name", 1, 4);
    p.step("reproduce x: run b", 2, 4);
    p.finish();
    String s = err.toString();
    assertThat(s).startsWith("\r[######------------------] reproduce x: run longer-name done (1/4)");
    assertThat(s).contains("\r[############------------] reproduce x: run b done (2/4)");
    assertThat(s).endsWith(System.lineSeparator());
    // one line, rewritten in place, then ended
    assertThat(s.substring(0, s.length() - System.lineSeparator().length())).doesNotContain("\n");
    // the shorter second text is padded so nothing of the first one is left on screen
    String second = s.substring(s.lastIndexOf('\r') + 1, s.length() - System.lineSeparator().length());
    String first = s.substring(1, s.lastIndexOf('\r'));
    assertThat(second.length()).isGreaterThanOrEqualTo(first.length());
  }
}
