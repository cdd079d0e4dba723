package org.lockvisor.reports;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A report page keeps to its size budget: flame graphs that would take it over are left out and
 * named on the page, never silently dropped, and a page with room gets every graph.
 */
class PageBudgetTest {

  private static RunOutputs base;
  private static RunOutputs ticket;

  @BeforeAll
  static void runs() {
    base = RunOutputsTest.run(RunOutputsTest.torture(), "base", 0);
    ticket = RunOutputsTest.run(RunOutputsTest.torture(), "ticket", 0);
  }

  @Test
  void smallBudget_leavesGraphsOut_namesThem_andThePageStaysWithin() {
    int budget = 60_000;
    HtmlReport page = new HtmlReport("budget");
    FlameGraphSections graphs = new FlameGraphSections(page, "b", budget);
    graphs.run("base", base, null, null, true);
    graphs.run("ticket", ticket, base, "base", true);
    graphs.finish();
    String html = page.render();

    assertThat(graphs.leftOutCount()).isPositive();
    assertThat(html.length()).isLessThanOrEqualTo(budget + 1024);
    assertThat(html).contains("left out to keep this page within its");
  }

  @Test
  void runPage_withRoom_hasEveryGraph_andStaysUnderTheBudget() {
    String html = RunPage.render("torture", "torture.yaml", null, List.of(base, ticket), List.of());

    assertThat(html.length()).isLessThanOrEqualTo(FlameGraphSections.PAGE_BUDGET);
    assertThat(html).doesNotContain("left out");
    // vm0 and host: on-CPU, spin, off-CPU each, per variant, and the differentials of the variant.
    assertThat(html.split("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"fg\"", -1).length - 1)
        .isGreaterThanOrEqualTo(8);
    assertThat(html).contains("class=\"fg fg-diff\"", "class=\"tl\"");
  }
}
