package org.lockvisor.experiment.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.google.common.collect.ImmutableList;
import org.junit.jupiter.api.Test;
import org.lockvisor.locking.spi.LockStats.SpinEnd;

/** The convoy figures of one lock follow from its counts: rates, Little's law, shares. */
class LockConvoyTest {

  private static ImmutableList<Long> row(long... counts) {
    ImmutableList.Builder<Long> b = ImmutableList.builder();
    for (long c : counts) {
      b.add(c);
    }
    return b.build();
  }

  @Test
  void figures_followFromTheCounts() {
    // 2 s window; 10,000 holds of 2 us; 30 s of contended wait in total; 400 OSQ hand-offs, 100 of
    // them to an undispatched successor; 50 holds with the holder's vCPU preempted
    LockConvoy c = new LockConvoy("file1.i_mmap_rwsem", 2_000_000_000L, 10_000, 20_000_000L, 5_000,
        30_000_000_000L, 400, 100, 50, 7_000_000L, 20, 100_000L,
        ImmutableList.of(row(0, 10, 300, 90, 0, 0), row(0, 0, 0, 2, 5, 1), row(1, 2, 3, 0, 0, 0), row(0, 0, 0, 0, 0, 0)),
        row(40_000_000L, 30_000_000L, 1_000_000L, 0));

    assertThat(c.acquisitionsPerSecond()).isCloseTo(5_000, within(1e-9));
    assertThat(c.holdMeanNs()).isCloseTo(2_000, within(1e-9));
    assertThat(c.heldShare()).isCloseTo(0.01, within(1e-12));
    assertThat(c.meanWaiters()).isCloseTo(15, within(1e-12));
    assertThat(c.undispatchedHandoffShare()).isCloseTo(0.25, within(1e-12));
    assertThat(c.ownerPreemptedShare()).isCloseTo(0.005, within(1e-12));
    assertThat(c.interruptedShare()).isCloseTo(0.002, within(1e-12));
    assertThat(c.episodes(SpinEnd.HANDOFF)).isEqualTo(400);
    assertThat(c.episodes(SpinEnd.NEED_RESCHED)).isEqualTo(8);
    assertThat(c.episodes(SpinEnd.OWNER_CHANGE)).isEqualTo(6);
    assertThat(c.spinNs()).isEqualTo(71_000_000L);
  }

  @Test
  void emptyWindowOrNoAcquisitions_giveZeros() {
    ImmutableList<Long> zeros = row(0, 0, 0, 0, 0, 0);
    LockConvoy c = new LockConvoy("l", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ImmutableList.of(zeros, zeros, zeros, zeros),
        row(0, 0, 0, 0));
    assertThat(c.acquisitionsPerSecond()).isZero();
    assertThat(c.holdMeanNs()).isZero();
    assertThat(c.meanWaiters()).isZero();
    assertThat(c.undispatchedHandoffShare()).isZero();
  }
}
