package org.lockvisor.devices.vhostnet;

import java.util.Arrays;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Task;
import org.lockvisor.core.sim.Simulation;

/**
 * Who takes {@code vhost_dev.work_lock}, how often it finds the lock held and how long it spends
 * acquiring it (the spin plus the lock's own atomic), per acquirer: the ceiling of what
 * ac9fde2474d0 can save. The patch moves {@code wake_up_process} out of the section; all it can
 * take away from anyone is time spent acquiring {@code work_lock} behind a waker's locked
 * try_to_wake_up, so the baseline's acquisition time bounds the saving (issue 32, item 3).
 *
 * <p>The acquirers of 3.0 drivers/vhost/vhost.c (3.0.27) are: the worker itself ({@code
 * vhost_worker}'s {@code spin_lock_irq(&dev->work_lock)} every loop, and {@code
 * vhost_poll_queue} when {@code handle_tx}/{@code handle_rx} requeue themselves after {@code
 * VHOST_NET_WEIGHT}); a softirq ({@code tun_net_xmit} → {@code wake_up_interruptible_poll} →
 * {@code vhost_poll_wakeup} → {@code vhost_work_queue}, drivers/net/tun.c 3.0.27, from the NIC's
 * NAPI on whatever CPU the queue's interrupt hit); and a vCPU thread's kick ({@code
 * ioeventfd_write} → {@code eventfd_signal} → {@code vhost_poll_wakeup}). Every call of {@code
 * vhost_work_queue} takes the lock with {@code spin_lock_irqsave}, queued or not.
 *
 * <p>The acquirer is fixed by the path that takes the lock (each path is built with its own
 * acquirer), not guessed from the context. Time is measured between the acquirer reaching the
 * lock and owning it, with interrupts off on both sides ({@code spin_lock_irq}/{@code _irqsave}),
 * so it is CPU time of the acquirer's context; the part spent in the vhost thread's context and
 * shown by the host's {@code top} (softirqs that hit the worker included, unless
 * IRQ_TIME_ACCOUNTING takes them out) is kept separately: that is the ceiling of the saving in
 * vhost CPU %. Allocation-free after the task-id table has grown.
 */
public final class WorkLockAcquirers {
  /** The contexts that call into {@code work_lock}. */
  public enum Acquirer {
    /** The vhost worker: its loop's spin_lock_irq and its own vhost_poll_queue (weight requeue). */
    WORKER("worker"),
    /** The NIC's receive softirq: tun_net_xmit's socket wakeup (vhost_work_queue(RX)). */
    SOFTIRQ("softirq"),
    /** A vCPU thread's PIO kick exit: ioeventfd_write → eventfd_signal (vhost_work_queue(TX/RX kick)). */
    VCPU_KICK("vcpu_kick");

    private final String label;

    Acquirer(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  static final int N = Acquirer.values().length;

  private final Simulation sim;
  private final Kernel host;
  private final KernelLock lock;
  private Task worker;
  private final long[] acquisitions = new long[N];
  private final long[] collisions = new long[N];
  private final long[] acquireNs = new long[N];
  private long onWorkerTopNs;
  private long[] startedAt = new long[64];

  WorkLockAcquirers(Simulation sim, Kernel host, KernelLock lock) {
    this.sim = sim;
    this.host = host;
    this.lock = lock;
  }

  void worker(Task w) {
    this.worker = w;
  }

  /** Before {@code lock()}: counts the acquisition, a collision if someone holds it, starts the clock. */
  Op reaching(Acquirer a) {
    int i = a.ordinal();
    return Ops.run(t -> {
      acquisitions[i]++;
      if (lock.owner() != null) {
        collisions[i]++;
      }
      int id = t.id();
      if (id >= startedAt.length) {
        startedAt = Arrays.copyOf(startedAt, Math.max(id + 1, startedAt.length * 2));
      }
      startedAt[id] = sim.now();
    });
  }

  /** After {@code lock()}: the acquisition's time (spin + atomic) goes to the acquirer. */
  Op owning(Acquirer a) {
    int i = a.ordinal();
    return Ops.run(t -> {
      long ns = sim.now() - startedAt[t.id()];
      acquireNs[i] += ns;
      if (t == worker && (!t.inInterrupt() || !host.irqTimeAccounting())) {
        onWorkerTopNs += ns;
      }
    });
  }

  public long acquisitions(Acquirer a) {
    return acquisitions[a.ordinal()];
  }

  public long collisions(Acquirer a) {
    return collisions[a.ordinal()];
  }

  /** Time {@code a} spent acquiring work_lock (spin + atomic), ns since the last reset. */
  public long acquireNs(Acquirer a) {
    return acquireNs[a.ordinal()];
  }

  /** Acquisition time in the vhost thread's context as the host's top shows it, ns since the last reset. */
  public long onWorkerTopNs() {
    return onWorkerTopNs;
  }

  void reset() {
    Arrays.fill(acquisitions, 0);
    Arrays.fill(collisions, 0);
    Arrays.fill(acquireNs, 0);
    onWorkerTopNs = 0;
  }
}
