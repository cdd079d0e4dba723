package org.lockvisor.workloads.schedmessaging;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.lockvisor.core.plugin.Footprint;

/**
 * {@link SchedMessagingWorkload#footprint()} against what a run was measured to hold (the
 * constants' comments): the seed's {@code -g 400} peaked at 1,255 MB of live heap over a {@code
 * lockvisor run} and died of an out-of-memory error in a 1 GiB heap, and fits the default heap of
 * a 24 GiB machine (a JVM without {@code -Xmx} takes a quarter of physical memory, 6 GiB; the
 * budget is three quarters of that).
 */
class SchedMessagingFootprintTest {
  private static final long MIB = 1L << 20;

  private static Footprint footprint(SchedMessagingConfig config) {
    return new SchedMessagingWorkload("hb", config, null).footprint();
  }

  @Test
  void seedScale_coversTheMeasuredPeak_overA1GiBHeapsBudget_withinA6GiBHeapsBudget() {
    Footprint g400 = footprint(SchedMessagingConfig.perfDefaults().withGroups(400));

    assertThat(g400.basis()).isEqualTo("400 groups x 20 fds = 16000 tasks and 8000 pipes");
    assertThat(g400.bytes()).as("at least the measured peak").isGreaterThanOrEqualTo(1_255_000_000L);
    assertThat(g400.bytes()).as("refused in a 1 GiB heap (budget 768 MiB)").isGreaterThan(768 * MIB);
    assertThat(g400.bytes()).as("runs in a 6 GiB heap (budget 4.5 GiB)").isLessThan(4608 * MIB);
    // the measured -g 100 peak (318 MB) is covered too, and the estimate does not run far above it
    long g100 = footprint(SchedMessagingConfig.perfDefaults().withGroups(100)).bytes();
    assertThat(g100).isBetween(318_000_000L, 2 * 318_000_000L);
  }

  @Test
  void perTask_linearInTasks_saturatesInsteadOfOverflowing() {
    long g100 = footprint(SchedMessagingConfig.perfDefaults().withGroups(100)).bytes();
    long g400 = footprint(SchedMessagingConfig.perfDefaults().withGroups(400)).bytes();
    assertThat(g400 - g100).isEqualTo(12_000 * SchedMessagingWorkload.BYTES_PER_TASK);
    assertThat(footprint(SchedMessagingConfig.perfDefaults().withGroups(Integer.MAX_VALUE)).bytes())
        .isPositive().isGreaterThan(g400);
  }
}
