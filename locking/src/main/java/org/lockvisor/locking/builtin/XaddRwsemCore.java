package org.lockvisor.locking.builtin;

import java.util.ArrayDeque;
import java.util.EnumSet;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Task;

/**
 * The state of an xadd rwsem ({@code struct rw_semaphore} of kernel/locking/rwsem-xadd.c, v4.7 and
 * v4.8: the count as its meaning, the owner field with 4.8's reader-owned mark, the wait list and
 * wait_lock, the OSQ) and the conditions both of its paths read: {@code rwsem_can_spin_on_owner},
 * "no active holder", a writer taking the lock. Split out of {@link XaddRwsem} (the fast paths, the
 * reader slow path and {@code rwsem_wake}) and {@link XaddRwsemWriteSlowPath} ({@code
 * rwsem_down_write_failed}) so both read one state and neither calls the other: each depends on
 * this class only. The versions' differences are described on {@link XaddRwsem}.
 */
abstract class XaddRwsemCore extends OwnerSpinningLock<XaddRwsemCore.Node> {
  static final int SLOW = 1;
  static final int OSQ_LOCK = 2;
  static final int SPIN_LOOP = 3;
  static final int SPUN = 4;
  static final int OSQ_UNLOCK_OK = 5;
  static final int OSQ_UNLOCK_FAIL = 6;
  static final int WAIT_LOCK = 7;
  static final int WAIT_LOOP = 9;
  static final int UNLOCK_AND_SLEEP = 10;
  static final int WOKEN = 11;
  static final int RELOCK = 12;
  static final int UNLOCK_GOT = 13;
  static final int COUNT_SPUN = 14;

  /** The rwsem-xadd.c of a kernel version, where the spin conditions differ. */
  enum KernelVersion {
    V4_7("4.7"),
    V4_8("4.8");

    private final String label;

    KernelVersion(String label) {
      this.label = label;
    }

    String label() {
      return label;
    }

    static KernelVersion of(String label) {
      for (KernelVersion v : values()) {
        if (v.label.equals(label)) {
          return v;
        }
      }
      throw new IllegalArgumentException("unknown rwsem kernel-version [" + label + "]; known: [4.7, 4.8]");
    }
  }

  final Op waitLockIrq;
  final Op waitUnlockIrq;
  final Op waitLockIrqsave;
  final Op waitUnlockIrqsave;
  int readers;
  final KernelVersion version;
  /** 4.8: {@code sem->owner == RWSEM_READER_OWNED} (set by readers, cleared only by writers). */
  boolean readerOwned;
  /** 4.7: the OSQ head's loop on an owner-less lock with active readers ends. */
  final org.lockvisor.machine.SpinCondition countChanged = this::countCondition;
  final int symDownWrite;
  final int symDownRead;
  final int symUpWrite;
  final int symUpRead;
  final int symSpinOnOwner;
  final int symMarkWake;
  final int symDownWriteFailed;
  final int symRwsemWake;
  /** rwsem_can_spin_on_owner, where an arch that inlines vcpu_is_preempted charges the read. */
  final int symCanSpin = vcpuCheck ? sym("rwsem_can_spin_on_owner") : -1;

  static final class Node extends OwnerSpinningLock.Node {
    boolean writer;
    int wakeStep;
    boolean granted;
    final Inline wakeInline = new Inline();
    long acquiredAt;
    /** Tasks this task will wake after the unlock; created on first use (most nodes never wake). */
    private ArrayDeque<Task> wakeQ;

    ArrayDeque<Task> wakeQ() {
      if (wakeQ == null) {
        wakeQ = new ArrayDeque<>(4);
      }
      return wakeQ;
    }

    boolean hasWakes() {
      return wakeQ != null && !wakeQ.isEmpty();
    }
  }

  XaddRwsemCore(LockContext context, boolean optimisticSpin, String waitLockAlgorithm, KernelVersion version) {
    super(context, "rwsem-xadd", EnumSet.of(LockMode.READ, LockMode.WRITE),
        optimisticSpin, waitLockAlgorithm, t -> new Node());
    this.version = version;
    this.symDownWriteFailed = sym("rwsem_down_write_failed");
    this.symRwsemWake = sym("rwsem_wake");
    this.waitLockIrq = waitLock.lock(LockMode.IRQ);
    this.waitUnlockIrq = waitLock.unlock(LockMode.IRQ);
    this.waitLockIrqsave = waitLock.lock(LockMode.IRQSAVE);
    this.waitUnlockIrqsave = waitLock.unlock(LockMode.IRQSAVE);
    this.symDownWrite = sym("down_write");
    this.symDownRead = sym("down_read");
    this.symUpWrite = sym("up_write");
    this.symUpRead = sym("up_read");
    this.symSpinOnOwner = sym("rwsem_spin_on_owner");
    this.symMarkWake = sym("__rwsem_mark_wake");
  }

  @Override
  public int readers() {
    return readers;
  }

  boolean noActiveHolder() {
    return owner == null && readers == 0;
  }

  /** The kernel version whose spin conditions this rwsem follows. */
  KernelVersion kernelVersion() {
    return version;
  }

  /** 4.8's reader-owned mark of the owner field (always false in 4.7, which has none). */
  boolean readerOwned() {
    return readerOwned;
  }

  /** A reader took the lock: 4.8's {@code rwsem_set_reader_owned}. */
  void readerAcquired() {
    if (version == KernelVersion.V4_8) {
      readerOwned = true;
    }
  }

  /**
   * rwsem_can_spin_on_owner (without need_resched): a writer owner must run (and, with the
   * check, not be preempted); with no writer owner 4.7 reads the count (no active holder), 4.8
   * the reader-owned mark.
   */
  boolean canSpinOnOwner(Task o) {
    if (o != null) {
      return o.onCpu() && !vcpuIsPreempted(o);
    }
    return version == KernelVersion.V4_7 ? readers == 0 : !readerOwned;
  }

  private boolean countCondition(Task s) {
    return owner != null || readers == 0 || needResched(s);
  }

  void takeWrite(Task t, Node n, boolean contended) {
    touch(t);
    readerOwned = false; // rwsem_set_owner
    if (contended) {
      waiterLeft();
    }
    acquired(t, contended, n.waitStart);
    pokeSpinner();
  }
}
