package org.lockvisor.devices.virtioblk;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableMap;
import org.lockvisor.core.account.CpuTimeAccount;
import org.lockvisor.core.account.SymbolTable;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Cpu;
import org.lockvisor.machine.Machine;

/**
 * The statistics of one {@link VirtioBlk}: the counters its guest driver and device model bump,
 * the notify exits' duration histogram, and the guest CPU time spinning on {@code vq_lock} by
 * caller ({@code virtio_queue_rq}, {@code virtblk_done}) read from the machine's CPU-time account,
 * each since the last reset. It reads the device's state ({@link VirtioBlkState}) and the storage
 * backend, given at attach.
 *
 * <p>Split out of {@link VirtioBlk}.
 */
final class VirtioBlkStats {
  /** vq_lock's lock function, as both callers take it ({@code spin_lock_irqsave}). */
  private static final String VQ_LOCK_SPIN = LockMode.IRQSAVE.lockSymbol();

  /** The attached device's state and backend; null before attach. */
  private VirtioBlkState s;
  private StorageBackend backend;
  long tagWaits;
  long forcedExits;
  long mainLoopIterations;
  long bqlHeldIterations;
  long forcedPollTimeouts;
  long ioqSubmits;
  long iocbsSubmitted;
  long mmioRegisterExits;
  long eoiMaintenanceExits;
  long inFlight;
  long submitted;
  long completed;
  long parked;
  long hwQueueStops;
  long notifies;
  long notifyNs;
  long notifiesUnderLock;
  long notifyUnderLockNs;
  long doneRuns;
  long spinAtExitStart;
  long spinDuringLockedExitNs;
  private byte[] stackClass = new byte[0]; // per stack id: 0 unknown, 1 other, 2 queue_rq spin, 3 done spin
  private boolean[] guestCpu = new boolean[0];
  // The account entries (cpu, thread, stack triples) of each spin kind found so far, and the
  // account's entry count then: spinUnder sums these and classifies only the entries added since.
  private int[][] spinEntries = {new int[0], new int[0], new int[0], new int[0]};
  private int[] spinEntryCount = new int[4];
  private int scannedEntries = -1;
  long statsSince;
  long spinBaseQueueRq;
  long spinBaseDone;
  // notify exit durations, from the vCPU's exit to its re-entry (the hardware round trip included),
  // 100 ns buckets up to 4 ms; the last bucket collects everything longer
  static final long EXIT_BUCKET_NS = 100;
  static final int EXIT_HISTOGRAM_BUCKETS = 40_001;
  final long[] exitHistogram = new long[EXIT_HISTOGRAM_BUCKETS];
  long exitMaxNs;

  /** The measurement starts at attach, of device state {@code s} and its {@code backend}. */
  void attached(VirtioBlkState s, StorageBackend backend) {
    this.s = s;
    this.backend = backend;
    this.statsSince = s.machine.sim().now();
  }

  public long submitted() {
    return submitted;
  }

  long completed() {
    return completed;
  }

  long inFlight() {
    return inFlight;
  }

  /** Notify exits since the last reset. */
  long notifies() {
    return notifies;
  }

  /**
   * The {@code q}-quantile (0 &lt; q &lt;= 1) of the notify exits' durations since the last reset, in
   * ns, to the 100 ns bucket (the bucket's upper edge, at most the maximum; exits over 4 ms count as
   * the maximum); 0 when there were none.
   */
  long notifyExitQuantileNs(double q) {
    checkArgument(q > 0 && q <= 1, "quantile must be in (0, 1]: %s", q);
    if (notifies == 0) {
      return 0;
    }
    long rank = (long) Math.ceil(q * notifies);
    long seen = 0;
    for (int i = 0; i < EXIT_HISTOGRAM_BUCKETS - 1; i++) {
      seen += exitHistogram[i];
      if (seen >= rank) {
        return Math.min((i + 1) * EXIT_BUCKET_NS, exitMaxNs);
      }
    }
    return exitMaxNs;
  }

  /** The longest notify exit since the last reset, in ns. */
  long notifyExitMaxNs() {
    return exitMaxNs;
  }

  /** Guest CPU time spinning on vq_lock (ns) from {@code virtio_queue_rq} since the last reset. */
  long vqLockSpinNsQueueRq() {
    return spinUnder("virtio_queue_rq") - spinBaseQueueRq;
  }

  /** Guest CPU time spinning on vq_lock (ns) from {@code virtblk_done} since the last reset. */
  long vqLockSpinNsDone() {
    return spinUnder("virtblk_done") - spinBaseDone;
  }

  /** Guest CPU time spinning on vq_lock (ns) while its holder was in a notify exit, since the last reset. */
  long vqLockSpinNsDuringNotifyExit() {
    return spinDuringLockedExitNs;
  }

  long vqLockSpinTotal() {
    return spinUnder(KIND_QUEUE_RQ) + spinUnder(KIND_DONE);
  }

  private static final byte KIND_OTHER = 1;
  private static final byte KIND_QUEUE_RQ = 2;
  private static final byte KIND_DONE = 3;

  private long spinUnder(String caller) {
    return spinUnder(caller.equals("virtio_queue_rq") ? KIND_QUEUE_RQ : KIND_DONE);
  }

  /**
   * CPU time charged on this guest's CPUs to stacks where {@code virtio_queue_rq} or
   * {@code virtblk_done} (by {@code kind}) directly calls the vq_lock lock function
   * ({@code _raw_spin_lock_irqsave}), any slow path below it included. Stack classes are cached.
   */
  private long spinUnder(byte kind) {
    if (s == null) {
      return 0;
    }
    s.machine.syncAccounting();
    CpuTimeAccount account = s.machine.account();
    if (account.entries() != scannedEntries) {
      classifyEntries(account);
    }
    // Only the entries of this kind: the same sum as a full scan, without visiting every entry
    // on each notify exit.
    int[] e = spinEntries[kind];
    long sum = 0;
    for (int i = 0, n = spinEntryCount[kind]; i < n; i += 3) {
      sum += account.get(e[i], e[i + 1], e[i + 2]);
    }
    return sum;
  }

  /**
   * Lists the account's entries on this guest's CPUs whose stack has {@code virtio_queue_rq} or
   * {@code virtblk_done} (by kind) directly calling the vq_lock lock function ({@code
   * _raw_spin_lock_irqsave}), any slow path below it included. Stack classes are cached.
   */
  private void classifyEntries(CpuTimeAccount account) {
    SymbolTable symbols = s.machine.symbols();
    if (guestCpu.length == 0) {
      int max = 0;
      for (Cpu c : s.guest.cpus()) {
        max = Math.max(max, c.id() + 1);
      }
      guestCpu = new boolean[max];
      for (Cpu c : s.guest.cpus()) {
        guestCpu[c.id()] = true;
      }
    }
    int queueRqSym = symbols.symbol("virtio_queue_rq", Machine.DOMAIN_KERNEL);
    int doneSym = symbols.symbol("virtblk_done", Machine.DOMAIN_KERNEL);
    int spinSym = symbols.symbol(VQ_LOCK_SPIN, Machine.DOMAIN_KERNEL);
    // Entries only ever get added and a stack's class never changes, so the lists grow by the
    // entries added since the last scan (sums are of longs: the order does not change them).
    account.forEachAddedSince(Math.max(0, scannedEntries), (cpu, thread, stack, ns) -> {
      if (cpu >= guestCpu.length || !guestCpu[cpu]) {
        return;
      }
      if (stack >= stackClass.length) {
        stackClass = java.util.Arrays.copyOf(stackClass, Math.max(stack + 1, stackClass.length * 2));
      }
      byte c = stackClass[stack];
      if (c == 0) {
        c = KIND_OTHER;
        int[] frames = symbols.frames(stack);
        for (int i = 0; i + 1 < frames.length; i++) {
          if (frames[i + 1] == spinSym && (frames[i] == queueRqSym || frames[i] == doneSym)) {
            c = frames[i] == queueRqSym ? KIND_QUEUE_RQ : KIND_DONE;
            break;
          }
        }
        stackClass[stack] = c;
      }
      if (c != KIND_OTHER) {
        int n = spinEntryCount[c];
        if (n + 3 > spinEntries[c].length) {
          spinEntries[c] = java.util.Arrays.copyOf(spinEntries[c], Math.max(12, 2 * spinEntries[c].length));
        }
        spinEntries[c][n] = cpu;
        spinEntries[c][n + 1] = thread;
        spinEntries[c][n + 2] = stack;
        spinEntryCount[c] = n + 3;
      }
    });
    scannedEntries = account.entries();
  }

  ImmutableMap<String, Number> map() {
    long now = s == null ? 0 : s.machine.sim().now();
    ImmutableMap.Builder<String, Number> m = ImmutableMap.builder();
    m.put("submitted", submitted);
    m.put("completed", completed);
    m.put("in_flight", inFlight);
    m.put("parked", parked);
    m.put("hw_queue_stops", hwQueueStops);
    m.put("tag_waits", tagWaits);
    if (s != null) {
      m.put("vq.adds", s.vq.adds());
      m.put("vq.ring_full", s.vq.addsRingFull());
      m.put("vq.kicks", s.vq.kicks());
      m.put("vq.kicks_suppressed", s.vq.kicksSuppressed());
      m.put("vq.interrupts", s.vq.interrupts());
      m.put("vq.interrupts_suppressed", s.vq.interruptsSuppressed());
    }
    m.put("notify_exits", notifies);
    m.put("notify_exit_ns", notifyNs);
    m.put("notify_exits_under_vq_lock", notifiesUnderLock);
    m.put("notify_exit_ns_under_vq_lock", notifyUnderLockNs);
    m.put("notify_exit_p50_ns", notifyExitQuantileNs(0.5));
    m.put("notify_exit_p90_ns", notifyExitQuantileNs(0.9));
    m.put("notify_exit_p99_ns", notifyExitQuantileNs(0.99));
    m.put("notify_exit_max_ns", exitMaxNs);
    m.put("virtblk_done_runs", doneRuns);
    m.put("main_loop.iterations", mainLoopIterations);
    m.put("main_loop.bql_held_iterations", bqlHeldIterations);
    m.put("main_loop.forced_timeouts", forcedPollTimeouts);
    m.put("mmio_register_exits", mmioRegisterExits);
    m.put("dataplane.ioq_submits", ioqSubmits);
    m.put("dataplane.iocbs_submitted", iocbsSubmitted);
    m.put("eoi_maintenance_exits", eoiMaintenanceExits);
    m.put("interrupt_exits", forcedExits);
    m.put("vq_lock_spin_ns.virtio_queue_rq", vqLockSpinNsQueueRq());
    m.put("vq_lock_spin_ns.virtblk_done", vqLockSpinNsDone());
    m.put("vq_lock_spin_ns.during_notify_exit", spinDuringLockedExitNs);
    if (s != null) {
      m.put("vq_lock.acquisitions", s.vqLock.stats().acquisitions());
      m.put("vq_lock.contentions", s.vqLock.stats().contentions());
      m.put("vq_lock.wait_total_ns", s.vqLock.stats().waitTotalNs());
    }
    if (s != null && s.bql != null) {
      m.put("vmm_lock.acquisitions", s.bql.stats().acquisitions());
      m.put("vmm_lock.contentions", s.bql.stats().contentions());
    }
    if (backend != null) {
      m.put("backend.served", backend.served());
      m.put("backend.utilisation", backend.utilisation(statsSince));
    }
    m.put("elapsed_ns", now - statsSince);
    return m.build();
  }

  void reset() {
    submitted = completed = parked = hwQueueStops = tagWaits = 0;
    notifies = notifyNs = notifiesUnderLock = notifyUnderLockNs = doneRuns = spinDuringLockedExitNs = forcedExits = 0;
    mainLoopIterations = bqlHeldIterations = forcedPollTimeouts = mmioRegisterExits = eoiMaintenanceExits = 0;
    ioqSubmits = iocbsSubmitted = 0;
    java.util.Arrays.fill(exitHistogram, 0);
    exitMaxNs = 0;
    if (s != null) {
      s.vq.resetStats();
      s.vqLock.stats().reset();
      if (s.bql != null) {
        s.bql.stats().reset();
      }
      backend.resetStats();
      spinBaseQueueRq = spinUnder("virtio_queue_rq");
      spinBaseDone = spinUnder("virtblk_done");
      statsSince = s.machine.sim().now();
    }
  }
}
