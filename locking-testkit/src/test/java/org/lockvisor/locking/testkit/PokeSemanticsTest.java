package org.lockvisor.locking.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;

/**
 * What {@link Task#poke} does, as docs/plugins/writing-a-lock.md states it and a lock plugin relies
 * on it: a poke makes a spinner read its condition again after the delay; it is dropped when the
 * task is not spinning, and that loses no hand-off, because a spin evaluates its condition when it
 * starts. One task waits for a flag another sets and pokes; the waiter's time to notice is
 * measured, never fitted.
 */
class PokeSemanticsTest {
  private boolean flag;
  private long setAt = -1;
  private long seenAt = -1;

  /** A 4-vCPU guest on 4 physical CPUs: nothing is preempted, the two tasks run on CPUs of their own. */
  private static LockTestbed bed() {
    return LockTestbed.builder().seed(3).vcpus(4).physicalCpus(4).build();
  }

  private Task waiter(LockTestbed bed, long workFirstNs) {
    Program p = Program.named("waiter")
        .preemptDisable()
        .work(workFirstNs, "before_spin")
        .op(Ops.spinUntil("spin_on_flag", t -> flag, 0))
        .run(t -> seenAt = bed.sim().now())
        .preemptEnable()
        .build();
    return bed.guest().spawn("waiter", p, 0);
  }

  private void setter(LockTestbed bed, Task waiter, long afterNs, long pokeDelayNs) {
    Program p = Program.named("setter")
        .work(afterNs, "before_set")
        .run(t -> {
          flag = true;
          setAt = bed.sim().now();
          waiter.poke(pokeDelayNs);
        })
        .build();
    bed.guest().spawn("setter", p, 1);
  }

  @Test
  void poke_spinningWaiter_seesTheChangeAfterTheDelay() {
    LockTestbed bed = bed();
    Task w = waiter(bed, 1_000);
    setter(bed, w, 50_000, 300);
    bed.sim().runUntil(1_000_000);

    assertThat(setAt).isPositive();
    assertThat(seenAt - setAt).as("the poke's delay, nothing else").isEqualTo(300);
  }

  @Test
  void poke_workingWaiter_isDropped_butTheSpinItStartsSeesTheChangeAtOnce() {
    LockTestbed bed = bed();
    Task w = waiter(bed, 100_000); // still working when the flag is set at 50 us
    setter(bed, w, 50_000, 300);
    bed.sim().runUntil(1_000_000);

    assertThat(setAt).isLessThan(100_000);
    assertThat(seenAt).as("seen when its work ends, by the spin's first read").isGreaterThanOrEqualTo(100_000)
        .isLessThan(100_000 + 10_000);
  }

  @Test
  void noPoke_spinOnAFlagSetWithoutAPoke_spinsOn() {
    LockTestbed bed = bed();
    Task w = waiter(bed, 1_000);
    Program p = Program.named("setter").work(50_000, "before_set").run(t -> flag = true).build();
    bed.guest().spawn("setter", p, 1);
    bed.sim().runUntil(1_000_000);

    assertThat(seenAt).as("a spin is never polled: without a poke or a watch it goes on").isEqualTo(-1);
    assertThat(w.isDead()).isFalse();
  }
}
