package org.lockvisor.devices.vhostnet;

import com.google.common.collect.ImmutableMap;
import java.util.Arrays;
import org.lockvisor.core.account.SymbolTable;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Task;

/**
 * The statistics of one {@link VhostNet}: the counters its guest driver, vhost worker and NIC
 * bump ({@link VhostNetCounters}), and the worker's CPU time as the host's {@code top} and a
 * profile would split it ({@code work_lock} spinning, NIC interrupts charged to it, the receive
 * softirq run in its context), each since the last reset. It reads the device's state ({@link
 * VhostNetState}), the NIC, the peer and the worker's threads, given at attach.
 *
 * <p>Split out of {@link VhostNet}.
 */
final class VhostNetStats extends VhostNetCounters {
  /** work_lock's lock functions as the worker ({@code spin_lock_irq}) and a waker ({@code _irqsave}) call them. */
  private static final String WORKER_LOCK_SYMBOL = LockMode.IRQ.lockSymbol();
  private static final String WAKER_LOCK_SYMBOL = LockMode.IRQSAVE.lockSymbol();

  private static final byte CLASS_OTHER = 1;
  private static final byte CLASS_SPIN = 2;
  private static final byte CLASS_IRQ = 3;
  private static final byte CLASS_IRQ_SPIN = 4;
  private static final byte CLASS_SOFTIRQ = 5;

  /** The attached device's state, its worker and (3.0 irqfd injection) kworkers; null before attach. */
  private VhostNetState s;
  private Task worker;
  private Task[] kworkers;

  private long statsSince;
  private long kworkerCpuBase;
  private long workerCpuBase;
  private long workerSpinBase;
  private long workerIrqBase;
  private long workerWakeupsBase;
  private long workerFoundRunningBase;
  private long workerFoundOnRqBase;
  private long workerSwitchesBase;
  private long hostOnCpuWaitsBase;
  private long workerSoftirqBase;
  private byte[] stackClass = new byte[0];

  /** The measurement starts at attach, of {@code worker} and {@code kworkers} (null with direct injection). */
  void attached(VhostNetState s, Task worker, Task[] kworkers) {
    this.s = s;
    this.worker = worker;
    this.kworkers = kworkers;
    this.statsSince = s.machine.sim().now();
  }

  double deliveredBitsPerSecond() {
    long elapsed = s.machine.sim().now() - statsSince;
    return elapsed <= 0 ? 0 : deliveredBytes * 8e9 / elapsed;
  }

  long elapsedNs() {
    return s.machine.sim().now() - statsSince;
  }

  long workerCpuNs() {
    return topNs(worker) - workerCpuBase;
  }

  long kworkerCpuNs() {
    if (kworkers == null) {
      return 0;
    }
    long sum = 0;
    for (Task k : kworkers) {
      sum += topNs(k);
    }
    return sum - kworkerCpuBase;
  }

  /** The top view of one host thread: its CPU time, less irq/softirq time under irq-time-accounting. */
  private long topNs(Task t) {
    Machine machine = s.machine;
    machine.syncAccounting();
    long total = machine.account().threadTotal(t.id());
    return s.host.irqTimeAccounting() ? total - classify(t.id())[1] - classify(t.id())[2] : total;
  }

  long workerWorkLockNs() {
    return classify(worker.id())[0] - workerSpinBase;
  }

  long workerIrqNs() {
    return classify(worker.id())[1] - workerIrqBase;
  }

  long workerSoftirqNs() {
    return classify(worker.id())[2] - workerSoftirqBase;
  }

  /** [work_lock acquisition, NIC interrupt, softirq] time of thread {@code id}, ns, all time. */
  private long[] classify(int id) {
    long[] sum = new long[3];
    if (s == null) {
      return sum;
    }
    Machine machine = s.machine;
    machine.syncAccounting();
    SymbolTable symbols = machine.symbols();
    int workerSym = symbols.symbol("vhost_worker", Machine.DOMAIN_KERNEL);
    int queueSym = symbols.symbol("vhost_work_queue", Machine.DOMAIN_KERNEL);
    int lockIrq = symbols.symbol(WORKER_LOCK_SYMBOL, Machine.DOMAIN_KERNEL);
    int lockIrqsave = symbols.symbol(WAKER_LOCK_SYMBOL, Machine.DOMAIN_KERNEL);
    int irqSym = symbols.symbol(NicLink.IRQ_SYMBOL, Machine.DOMAIN_KERNEL);
    int softirqSym = symbols.symbol(VhostWorker.SOFTIRQ_SYMBOL, Machine.DOMAIN_KERNEL);
    machine.account().forEach((cpu, thread, stack, ns) -> {
      if (thread != id || stack < 0) {
        return;
      }
      if (stack >= stackClass.length) {
        stackClass = Arrays.copyOf(stackClass, Math.max(stack + 1, stackClass.length * 2));
      }
      byte c = stackClass[stack];
      if (c == 0) {
        int[] frames = symbols.frames(stack);
        boolean spin = false;
        boolean irq = false;
        boolean softirq = false;
        int n = frames.length;
        if (n >= 2) {
          int leaf = frames[n - 1];
          int parent = frames[n - 2];
          spin = (leaf == lockIrq || leaf == lockIrqsave) && (parent == workerSym || parent == queueSym);
        }
        for (int f : frames) {
          irq |= f == irqSym;
          softirq |= f == softirqSym;
        }
        c = irq ? (spin ? CLASS_IRQ_SPIN : CLASS_IRQ) : softirq ? CLASS_SOFTIRQ : (spin ? CLASS_SPIN : CLASS_OTHER);
        stackClass[stack] = c;
      }
      if (c == CLASS_SPIN || c == CLASS_IRQ_SPIN) {
        sum[0] += ns;
      }
      if (c == CLASS_IRQ || c == CLASS_IRQ_SPIN) {
        sum[1] += ns;
      }
      if (c == CLASS_SOFTIRQ) {
        sum[2] += ns;
      }
    });
    return sum;
  }

  ImmutableMap<String, Number> map() {
    ImmutableMap.Builder<String, Number> m = ImmutableMap.builder();
    boolean attached = s != null;
    long elapsed = attached ? elapsedNs() : 0;
    m.put("elapsed_ns", elapsed);
    m.put("throughput_gbps", attached ? deliveredBitsPerSecond() / 1e9 : 0);
    m.put("xmits", xmits);
    m.put("tx_ring_full", txRingFull);
    m.put("tx_packets", txPackets);
    m.put("delivered_bytes", deliveredBytes);
    m.put("qdisc_drops", qdiscDrops);
    m.put("rx_packets", rxPackets);
    m.put("acks_to_guest", acks);
    m.put("rx_starved", rxStarved);
    m.put("tx_signals", txSignals);
    m.put("rx_signals", rxSignals);
    m.put("handle_tx_runs", handleTxRuns);
    m.put("handle_rx_runs", handleRxRuns);
    m.put("weight_requeues", requeues);
    if (s != null) {
      m.put("txq.kicks", s.txVq.kicks());
      m.put("txq.kicks_suppressed", s.txVq.kicksSuppressed());
      m.put("rxq.kicks", s.rxVq.kicks());
      m.put("rxq.interrupts", s.rxVq.interrupts());
      m.put("rxq.interrupts_suppressed", s.rxVq.interruptsSuppressed());
    }
    m.put("worker_wakes_issued", wakesIssued);
    m.put("worker_wakes_under_work_lock", wakesUnderWorkLock);
    if (worker != null) {
      m.put("worker_cpu_ns", workerCpuNs());
      m.put("worker_cpu_percent", elapsed <= 0 ? 0.0 : 100.0 * workerCpuNs() / elapsed);
      m.put("worker_work_lock_ns", workerWorkLockNs());
      m.put("worker_irq_ns", workerIrqNs());
      m.put("worker.ttwu_running", worker.ttwuFoundRunning() - workerFoundRunningBase);
      m.put("worker.ttwu_on_rq", worker.ttwuFoundOnRq() - workerFoundOnRqBase);
      m.put("worker.ttwu_full", worker.wakeups() - workerWakeupsBase);
      m.put("worker.voluntary_switches", worker.voluntarySwitches() - workerSwitchesBase);
      m.put("host.ttwu_on_cpu_waits", s.host.ttwuOnCpuWaits() - hostOnCpuWaitsBase);
    }
    if (s != null && s.workLock != null) {
      m.put("work_lock.acquisitions", s.workLock.stats().acquisitions());
      m.put("work_lock.contentions", s.workLock.stats().contentions());
      m.put("work_lock.wait_total_ns", s.workLock.stats().waitTotalNs());
      m.put("work_lock.hold_total_ns", s.workLock.stats().holdTotalNs());
      WorkLockAcquirers a = s.workLockAcquirers;
      for (WorkLockAcquirers.Acquirer by : WorkLockAcquirers.Acquirer.values()) {
        String k = "work_lock.by_" + by.label() + ".";
        m.put(k + "acquisitions", a.acquisitions(by));
        m.put(k + "collisions", a.collisions(by));
        m.put(k + "acquire_ns", a.acquireNs(by));
      }
      m.put("work_lock.acquire_ns_on_worker_top", a.onWorkerTopNs());
    }
    if (s != null) {
      PeerReceiver peer = s.link.peer();
      m.put("tun_wq_lock.acquisitions", s.sockWqLock.stats().acquisitions());
      m.put("tun_wq_lock.contentions", s.sockWqLock.stats().contentions());
      m.put("rxq_lock.acquisitions", s.rxqLock.stats().acquisitions());
      m.put("rxq_lock.contentions", s.rxqLock.stats().contentions());
      m.put("tx_lock.contentions", s.txLock.stats().contentions());
      for (int i = 0; i < LOCK_LABELS.length; i++) {
        m.put("worker." + LOCK_LABELS[i] + ".acquisitions", workerAcquisitions[i]);
        m.put("worker." + LOCK_LABELS[i] + ".collisions", workerCollisions[i]);
      }
      m.put("worker.ttwu_remote_in_tun_read", ttwuRemoteInTunRead);
      m.put("tun_second_wakes", secondWakes);
      m.put("peer.interrupts", peer.interrupts());
      m.put("peer.frames", peer.frames());
      m.put("peer.gro_skbs", peer.skbs());
      m.put("peer.acks", peer.acks());
      m.put("peer.delayed_acks", peer.delayedAcks());
      if (s.link.flowDirector().enabled() && s.link.guestReceive == null) {
        m.put("link.interleaved_frames", s.link.interleavedFrames);
        m.put("link.atr_samples", s.link.flowDirector().samples);
      }
      m.put("acks_per_s", elapsed <= 0 ? 0.0 : peer.acks() * 1e9 / elapsed);
      m.put("bytes_per_ack", peer.acks() == 0 ? 0.0 : (double) peer.bytes() / peer.acks());
      m.put("kworker_injects", kworkerInjects);
      m.put("kworker_cpu_percent", elapsed <= 0 ? 0.0 : 100.0 * kworkerCpuNs() / elapsed);
      m.put("worker_softirq_ns", workerSoftirqNs());
      m.put("irq_time_accounting", s.host.irqTimeAccounting() ? 1 : 0);
    }
    GuestReceive rx = s == null ? null : s.link.guestReceive;
    if (rx != null) {
      m.put("direction_guest_receive", 1);
      m.put("rx.wire_frames", rx.frames);
      m.put("rx.host_skbs", rx.skbs);
      m.put("rx.unmerged_frames", rx.unmergedFrames);
      m.put("rx.tap_drops", rx.tapDrops);
      m.put("rx.time_squeezes", rx.softirqs.timeSqueezes);
      m.put("rx.ksoftirqd_wakes", rx.softirqs.ksoftirqdWakes);
      m.put("rx.ksoftirqd_runs", rx.softirqs.ksoftirqdRuns);
      m.put("rx.irq_exit_softirq_runs", rx.softirqs.irqExitRuns);
      m.put("rx.nic_missed", rx.rxMissed);
      m.put("rx.sender_fast_retransmits", rx.sender.fastRetransmits);
      m.put("rx.sender_timeouts", rx.sender.timeouts);
      m.put("rx.atr_samples", s.link.flowDirector().samples);
      m.put("rx.nic_irqs", rx.irqs);
      m.put("rx.nic_irqs_on_worker_cpu", rx.irqsOnWorkerCpu);
      m.put("rx.nic_irqs_hitting_worker", rx.irqsHittingWorker);
      m.put("rx.mean_skb_bytes", rx.skbs == 0 ? 0.0 : (double) rx.skbBytes / rx.skbs);
      m.put("rx.skbs_per_s", elapsed <= 0 ? 0.0 : rx.skbs * 1e9 / elapsed);
      m.put("rx.frames_per_skb", rx.skbs == 0 ? 0.0 : (double) rx.frames / rx.skbs);
    }
    return m.build();
  }

  void reset() {
    resetCounters();
    if (s == null) {
      return;
    }
    s.txVq.resetStats();
    s.rxVq.resetStats();
    if (s.workLock != null) {
      s.workLock.stats().reset();
      s.workLockAcquirers.reset();
    }
    s.sockWqLock.stats().reset();
    s.txKickWqLock.stats().reset();
    s.rxKickWqLock.stats().reset();
    s.txLock.stats().reset();
    statsSince = s.machine.sim().now();
    workerCpuBase = 0;
    workerCpuBase = workerCpuNs();
    kworkerCpuBase = 0;
    kworkerCpuBase = kworkerCpuNs();
    long[] c = classify(worker.id());
    workerSpinBase = c[0];
    workerIrqBase = c[1];
    workerSoftirqBase = c[2];
    s.rxqLock.stats().reset();
    s.link.peer().resetStats();
    s.link.interleavedFrames = 0;
    s.link.flowDirector().samples = 0;
    if (s.link.guestReceive != null) {
      s.link.guestReceive.resetStats();
    }
    workerWakeupsBase = worker.wakeups();
    workerFoundRunningBase = worker.ttwuFoundRunning();
    workerFoundOnRqBase = worker.ttwuFoundOnRq();
    workerSwitchesBase = worker.voluntarySwitches();
    hostOnCpuWaitsBase = s.host.ttwuOnCpuWaits();
  }
}
