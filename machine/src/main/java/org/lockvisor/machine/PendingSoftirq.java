package org.lockvisor.machine;

/**
 * A source of softirqs that can stay pending on a CPU past the interrupt that raised them: what
 * {@code irq_exit} finds in {@code local_softirq_pending()} (kernel/softirq.c 3.0.27). A device
 * whose softirq hands its work to {@code ksoftirqd} after {@code MAX_SOFTIRQ_RESTART} rounds
 * leaves it pending; the next hard interrupt on that CPU — the timer tick, a reschedule IPI that
 * ran the wake list, any device interrupt — runs it on its way out ({@code irq_exit} → {@code
 * invoke_softirq} → {@code __do_softirq}) unless the CPU is already in a softirq ({@code
 * in_interrupt()}). Registered with {@link Kernel#addPendingSoftirq}.
 */
@FunctionalInterface
public interface PendingSoftirq {
  /**
   * The {@code __do_softirq} to run on {@code cpu} at an interrupt's exit, or null when nothing of
   * this source is pending there or the CPU is inside a softirq of this source already. The
   * program must consume what it runs (a second call during the same exit finds nothing), and
   * must not allocate.
   */
  Program onIrqExit(Cpu cpu);
}
