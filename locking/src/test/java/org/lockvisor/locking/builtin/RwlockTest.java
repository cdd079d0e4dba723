package org.lockvisor.locking.builtin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.VcpuPreemptedHook;

/**
 * The rwlock behaviours each family exists for. qrwlock (kernel/locking/qrwlock.c, 4.8): a
 * writer that waits for readers to drain sets {@code _QW_WAITING}, so a new reader outside
 * interrupt context queues behind it, while a reader in interrupt context spins only while a
 * writer holds the lock and so passes the waiting writer. ppc-splpar-rwlock
 * (arch/powerpc/lib/locks.c {@code __rw_yield}, 4.8): waiters on a write-held lock confer to the
 * writer's undispatched virtual processor; waiters on a read-held lock cannot (the kernel does
 * not know the readers), and a dedicated LPAR never confers.
 */
class RwlockTest {
  private static final long NONE = -1;

  /** When each actor got the lock (ns), filled in by the programs. */
  private static final class Times {
    long writer = NONE;
    long reader = NONE;
    long irqReader = NONE;
  }

  /**
   * A reader holds the lock 200 us from t=0; a writer arrives at 20 us, a process-context reader
   * at 50 us, and (if {@code irqReader}) an interrupt handler takes the read lock at 50 us.
   */
  private static Times writerWaiting(boolean irqReader) {
    Rig rig = new Rig(1, 4, 4, 0, VcpuPreemptedHook.NEVER);
    KernelLock lock = rig.lock(new QueuedRwlockFactory(), false, Map.of());
    Times times = new Times();
    Program firstReader = Program.named("first_reader")
        .op(lock.lock(LockMode.READ_LOCK))
        .work(200_000, "reader_section")
        .op(lock.unlock(LockMode.READ_LOCK))
        .build();
    Program writer = Program.named("writer")
        .userWork(20_000, "think")
        .op(lock.lock(LockMode.WRITE_LOCK_IRQ))
        .run(t -> times.writer = rig.sim.now())
        .work(10_000, "writer_section")
        .op(lock.unlock(LockMode.WRITE_LOCK_IRQ))
        .build();
    Program reader = Program.named("reader")
        .userWork(50_000, "think")
        .op(lock.lock(LockMode.READ_LOCK))
        .run(t -> times.reader = rig.sim.now())
        .op(lock.unlock(LockMode.READ_LOCK))
        .build();
    Program handler = Program.named("irq_handler")
        .op(lock.lock(LockMode.READ_LOCK))
        .run(t -> times.irqReader = rig.sim.now())
        .op(lock.unlock(LockMode.READ_LOCK))
        .build();
    Program interrupted = Program.named("interrupted")
        .userWork(50_000, "user")
        .run(t -> {
          if (irqReader) {
            t.cpu().raiseInterrupt(handler);
          }
        })
        .userWork(400_000, "user")
        .build();
    rig.vm.guest().spawn("first_reader", firstReader, 0);
    rig.vm.guest().spawn("writer", writer, 1);
    rig.vm.guest().spawn("reader", reader, 2);
    rig.vm.guest().spawn("interrupted", interrupted, 3);
    rig.sim.runUntil(10_000_000L);
    assertThat(lock.readers()).isZero();
    assertThat(lock.owner()).isNull();
    return times;
  }

  @Test
  void qrwlock_writerWaitingForReaders_newProcessReaderQueuesBehindIt() {
    Times t = writerWaiting(false);
    assertThat(t.writer).as("the writer waits for the first reader's 200 us").isGreaterThanOrEqualTo(200_000);
    assertThat(t.reader).as("a process-context reader after a waiting writer gets the lock after the writer")
        .isGreaterThan(t.writer);
  }

  @Test
  void qrwlock_writerWaitingForReaders_interruptReaderPassesIt() {
    Times t = writerWaiting(true);
    assertThat(t.irqReader).as("an interrupt-context reader is not stopped by a waiting writer")
        .isBetween(50_000L, 199_999L);
    assertThat(t.writer).isGreaterThanOrEqualTo(200_000);
  }

  @Test
  void qrwlock_readersOnly_neverContended() {
    Rig rig = new Rig(2, 4, 4, 0, VcpuPreemptedHook.NEVER);
    KernelLock lock = rig.lock(new QueuedRwlockFactory(), false, Map.of());
    rig.hammer(lock, LockMode.READ_LOCK, 8, 50, 5_000, 1_000);
    assertThat(rig.allFinished()).isTrue();
    assertThat(lock.stats().contentions()).isZero();
    assertThat(lock.stats().reads().acquisitions()).isEqualTo(400);
    assertThat(lock.stats().writes().acquisitions()).isZero();
  }

  @Test
  void qrwlock_writersContend_slowPathAndWaitLockCharged() {
    Rig rig = new Rig(3, 4, 4, 0, VcpuPreemptedHook.NEVER);
    KernelLock lock = rig.lock(new QueuedRwlockFactory(), false, Map.of());
    rig.hammer(lock, LockMode.WRITE_LOCK_IRQ, 8, 50, 5_000, 1_000);
    assertThat(rig.allFinished()).isTrue();
    assertThat(lock.stats().writes().contentions()).isPositive();
    assertThat(rig.symbolTime("queued_write_lock_slowpath")).isPositive();
    assertThat(rig.symbolTime("native_queued_spin_lock_slowpath")).as("writers queue on wait_lock").isPositive();
    assertThat(rig.symbolTime("_raw_spin_lock_irq")).isZero();
  }

  @Test
  void ppcSplparRwlock_sharedProcessor_waitersConferToUndispatchedWriter() {
    Rig rig = new Rig(7, 4, 8, 0, VcpuPreemptedHook.NEVER);
    KernelLock lock = rig.lock(new SplparRwlockFactory(), false, Map.of());
    rig.hammer(lock, LockMode.WRITE_LOCK_IRQ, 16, 200, 1_000, 2_000);
    assertThat(rig.allFinished()).isTrue();
    assertThat(lock.stats().confers()).isPositive();
    assertThat(rig.symbolTime("H_CONFER")).isPositive();
    assertThat(rig.symbolTime("_raw_write_lock_irq")).as("the inline spin is charged to the API function")
        .isPositive();
  }

  @Test
  void ppcSplparRwlock_dedicatedProcessor_neverConfers() {
    Rig rig = new Rig(7, 4, 8, 0, VcpuPreemptedHook.NEVER);
    KernelLock lock = rig.lock(new SplparRwlockFactory(), false, Map.of("shared-processor", "false"));
    rig.hammer(lock, LockMode.WRITE_LOCK_IRQ, 16, 200, 1_000, 2_000);
    assertThat(rig.allFinished()).isTrue();
    assertThat(lock.stats().confers()).isZero();
    assertThat(rig.symbolTime("H_CONFER")).isZero();
  }

  @Test
  void ppcSplparRwlock_readHeld_writerCannotConfer() {
    // readers hold the lock nearly all the time on an overcommitted LPAR (hogs preempt their
    // vCPUs); a writer waiting for them finds a positive word, so __rw_yield returns without
    // H_CONFER, while the same readers behind a preempted writer would confer
    Rig rig = new Rig(7, 2, 8, 1, VcpuPreemptedHook.NEVER);
    KernelLock lock = rig.lock(new SplparRwlockFactory(), false, Map.of());
    int[] left = {15 * 40};
    long[] writerDone = {NONE};
    Program readerBody = Program.named("reader_iteration")
        .op(lock.lock(LockMode.READ_LOCK))
        .work(50_000, "reader_section")
        .op(lock.unlock(LockMode.READ_LOCK))
        .run(t -> left[0]--)
        .build();
    Program reader = Program.named("reader").loopWhile(t -> left[0] > 0, readerBody).build();
    Program writer = Program.named("writer")
        .userWork(100_000, "think")
        .op(lock.lock(LockMode.WRITE_LOCK))
        .work(1_000, "writer_section")
        .op(lock.unlock(LockMode.WRITE_LOCK))
        .run(t -> writerDone[0] = rig.sim.now())
        .build();
    for (int i = 0; i < 15; i++) {
      rig.vm.guest().spawn("reader/" + i, reader);
    }
    rig.vm.guest().spawn("writer", writer);
    rig.sim.runUntil(2_000_000_000L);
    assertThat(writerDone[0]).as("the writer gets the lock once the readers let go").isPositive();
    assertThat(lock.stats().writes().contentions()).isEqualTo(1);
    assertThat(lock.stats().confers()).isZero();
    assertThat(rig.symbolTime("H_CONFER")).isZero();
  }
}
