package org.lockvisor.devices.vhostnet;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import com.google.common.collect.ImmutableMap;
import java.util.ArrayDeque;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import org.lockvisor.core.account.SymbolTable;
import org.lockvisor.core.sim.EventHandler;
import org.lockvisor.devices.spi.DeviceContext;
import org.lockvisor.devices.spi.NetDevice;
import org.lockvisor.devices.spi.Virtqueue;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockFactory.LockKind;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Cpu;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.SharedLine;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.TaskState;
import org.lockvisor.machine.Vm;

/**
 * virtio-net in a 3.0 guest over vhost-net in a 3.0 host ({@code drivers/net/virtio_net.c},
 * {@code drivers/vhost/vhost.c}, {@code drivers/vhost/net.c}), with the host NIC's link to an
 * external peer. Built to reproduce ac9fde2474d0 "vhost: wake up worker outside spin_lock" (seed
 * R1, KERNEL-MODEL 7).
 *
 * <p>Guest TX ({@code dev_hard_start_xmit}, any guest context): {@code HARD_TX_LOCK} (a guest
 * spinlock) · {@code free_old_xmit_skbs} · {@code xmit_skb} + {@code virtqueue_add_buf} ·
 * {@code virtqueue_kick} = kick_prepare ({@code vring_need_event}) + notify, a PIO exit handled
 * in the host kernel: {@code ioeventfd_write -> eventfd_signal} takes the eventfd's wait-queue
 * lock with interrupts off and calls {@code vhost_poll_wakeup -> vhost_work_queue(TX)} under it.
 *
 * <p>{@code vhost_work_queue} ({@link VhostNetConfig.WorkQueue}): {@code spin_lock_irqsave(
 * work_lock)}; if the work is not queued, add it and {@code wake_up_process(worker)} — before the
 * unlock (3.0), after it (the patch), or without any lock (llist, 4.6). The wake is the machine's
 * try_to_wake_up with its phases and cost classes; the lock is the host spinlock the experiment
 * chose (ticket on a 3.0 host).
 *
 * <p>The vhost worker is a host kernel thread running the 3.0 loop: {@code set_current_state(
 * TASK_INTERRUPTIBLE)}, {@code spin_lock_irq(work_lock)}, pop, unlock, then run the work or
 * {@code schedule()}. A waker that holds {@code work_lock} through its try_to_wake_up makes a
 * worker that is back at the top of its loop spin on {@code work_lock}: that spin is charged to
 * the worker, which is what the patch removes.
 *
 * <p>{@code handle_tx}: pop descriptors ({@code vhost_get_vq_desc}, which leaves avail_event
 * alone), {@code tun_sendmsg} (copy + the host stack down to the NIC), add used (TX interrupts
 * stay suppressed unless the guest stopped its queue), until the ring is empty
 * ({@code vhost_enable_notify} publishes avail_event and re-checks) or 512 KiB
 * ({@code VHOST_NET_WEIGHT}) moved, then requeue. The NIC's qdisc holds {@code txqueuelen}
 * packets and drops beyond; the link serialises frames at the line rate; the peer ACKs each
 * packet (GRO coalesces a TSO burst) after {@code ack-delay-ns}, a dropped packet comes back as a
 * duplicate ACK reporting the loss.
 *
 * <p>RX: an ACK arrives on the host NIC queue its flow hashes to; that queue's interrupt runs on
 * its host CPU (charged to whatever task it interrupts, as 3.0 accounting does) and NAPI takes
 * every pending packet through the bridge to the tap socket, whose {@code sk_data_ready} calls
 * {@code vhost_poll_wakeup -> vhost_work_queue(RX)} under the socket wait-queue lock.
 * {@code handle_rx} copies packets into posted guest buffers and signals (irqfd) when EVENT_IDX
 * asks; the guest's interrupt runs NAPI, hands each packet to the protocol, refills buffers when
 * half are used and kicks the RX queue if needed.
 *
 * <p>Simplifications: the guest's receive softirq runs in the RX interrupt handler (so the TX lock
 * is taken with interrupts off, standing for {@code local_bh_disable}); TCP segmentation is done
 * by the NIC (TSO), so a packet is one descriptor and one host-stack pass; no zero-copy TX; irqfd
 * injection is priced on the worker, not a kworker.
 */
public final class VhostNet implements NetDevice, EventHandler {
  static final String WORKER_LOCK_SYMBOL = LockMode.IRQ.lockSymbol();
  static final String WAKER_LOCK_SYMBOL = LockMode.IRQSAVE.lockSymbol();
  static final int ACK_WIRE_BYTES = 66;
  private static final int EV_LINK_DONE = 1;
  static final String SOFTIRQ_SYMBOL = "do_softirq";
  static final String NIC_IRQ_SYMBOL = "ixgbe_msix_clean_rings";
  private static final int EV_ACK_ARRIVE = 2;
  private static final int EV_DUP_ARRIVE = 3;

  private final String name;
  private final VhostNetConfig config;
  private final VhostNetCosts costOverride;
  private VhostNetCosts costs;
  private Machine machine;
  private Kernel guest;
  private Kernel host;
  private NetProtocol protocol;

  private KernelLock txLock;
  private KernelLock workLock;
  private KernelLock txKickWqLock;
  private KernelLock rxKickWqLock;
  /** {@code tun->wq.wait.lock}: tun_net_xmit's wakeup, and (3.0) the worker's add/remove on every read. */
  private KernelLock sockWqLock;
  /** {@code tun->socket.sk->sk_receive_queue.lock}: tun_net_xmit's enqueue, peek_head_len, skb_dequeue. */
  private KernelLock rxqLock;
  private PeerReceiver peer;
  /** The kworker of each host CPU (3.0 irqfd injection through {@code schedule_work}). */
  private Task[] kworkers;
  private ArrayDeque<Program>[] kworkerQueue;
  private boolean rxInjectPending;
  private boolean txInjectPending;
  private Program rxInject;
  private Program txInject;
  /** The worker is on {@code tun->wq.wait} (3.0 tun_do_read, between add and remove). */
  private boolean workerOnTunWq;
  /** The worker is inside tun_do_read's TASK_INTERRUPTIBLE section. */
  private boolean workerInTunRead;
  private Virtqueue txVq;
  private Virtqueue rxVq;
  private Task worker;

  /** A packet of one flow: TSO payload on the way out, then the ACK (or duplicate ACK) coming back. */
  static final class Packet {
    int flow;
    int bytes;
    long acked;
    long lost;
    long readyAt;
    int refs;
  }

  /** A posted guest RX buffer. */
  static final class RxBuf {
    Packet content;
  }

  /** A {@code struct vhost_work}: queued flag (on the list) and its function. */
  static final class VhostWork {
    final String name;
    Program fn;
    Program queue;
    /** llist variant: clear_bit(VHOST_WORK_QUEUED), set RUNNING, then fn. */
    Program run;
    /** The cache line of {@code work->flags} (and the node next to it). */
    SharedLine line;
    boolean queued;
    long queuedCount;

    VhostWork(String name) {
      this.name = name;
    }
  }

  private final VhostWork txKickWork = new VhostWork("handle_tx_kick");
  private final VhostWork rxNetWork = new VhostWork("handle_rx_net");
  private final VhostWork rxKickWork = new VhostWork("handle_rx_kick");
  private final ArrayDeque<VhostWork> workList = new ArrayDeque<>(4);
  private final ArrayDeque<VhostWork> workerBatch = new ArrayDeque<>(4);
  private VhostWork current;

  private final ArrayDeque<Packet> pool = new ArrayDeque<>(1024);
  private final ArrayDeque<Packet> guestRequeue = new ArrayDeque<>();
  private final ArrayDeque<RxBuf> rxToRefill = new ArrayDeque<>();
  private final ArrayDeque<Packet> linkQueue = new ArrayDeque<>(1024);
  private final ArrayDeque<Packet> ackQueue = new ArrayDeque<>(1024);
  private final ArrayDeque<Packet> dupQueue = new ArrayDeque<>(256);
  private final ArrayDeque<Packet> tapQueue = new ArrayDeque<>(1024);
  private ArrayDeque<Packet>[] nicPending;
  private boolean[] napiScheduled;
  private Program[] nicIrq;
  private boolean linkBusy;
  private long linkTailFinish;

  // per-call state of serialised paths (guest TX lock, worker, NAPI)
  private Packet txGuestPacket;
  private int reclaimed;
  private long txTotal;
  private boolean txDone;
  private int txHead;
  private Packet txPacket;
  private boolean txSignal;
  private long rxTotal;
  private boolean rxDone;
  private int rxHead;
  private boolean rxSignal;
  private Packet rxPacket;
  private Packet rxDequeued;
  private boolean rxPeeked;
  private int rxPeekLen;
  private int rxIrqCpu;

  // programs
  private Program txKickHandler;
  private Program rxKickHandler;
  private Program txNotify;
  private Program rxNotify;
  private Program rxInterrupt;
  private Program txInterrupt;
  private Program signalRx;
  private Program signalTx;
  private Program flushRequeue;

  // statistics
  private long xmits;
  private long txRingFull;
  private long txPackets;
  private long deliveredBytes;
  private long qdiscDrops;
  private long acks;
  private long rxPackets;
  private long rxStarved;
  private long txSignals;
  private long rxSignals;
  private long handleTxRuns;
  private long handleRxRuns;
  private long requeues;
  private long wakesIssued;
  private long wakesUnderWorkLock;
  private long ttwuRemoteInTunRead;
  private long secondWakes;
  private long kworkerInjects;
  private long kworkerCpuBase;
  private long statsSince;
  private long workerCpuBase;
  private long workerSpinBase;
  private long workerIrqBase;
  private long workerWakeupsBase;
  private long workerFoundRunningBase;
  private long workerFoundOnRqBase;
  private long workerSwitchesBase;
  private long hostOnCpuWaitsBase;
  private byte[] stackClass = new byte[0];
  private static final byte CLASS_OTHER = 1;
  private static final byte CLASS_SPIN = 2;
  private static final byte CLASS_IRQ = 3;
  private static final byte CLASS_IRQ_SPIN = 4;
  private static final byte CLASS_SOFTIRQ = 5;
  private long workerSoftirqBase;

  public VhostNet(String name, VhostNetConfig config) {
    this(name, config, null);
  }

  /** A device with explicit costs (tests, what-ifs); null takes them from the context at attach. */
  public VhostNet(String name, VhostNetConfig config, VhostNetCosts costs) {
    checkArgument(name != null && !name.isEmpty(), "device needs a name");
    checkArgument(config != null, "config must be set");
    this.name = name;
    this.config = config;
    this.costOverride = costs;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String model() {
    return VhostNetFactory.NAME;
  }

  public VhostNetConfig config() {
    return config;
  }

  public VhostNetCosts costs() {
    return costs;
  }

  /** Whether the worker is inside tun_do_read, between its state changes (tests). */
  boolean workerInTunRead() {
    return workerInTunRead;
  }

  /** The vhost worker thread ({@code vhost-<pid>}) on the host. */
  public Task worker() {
    return worker;
  }

  /** {@code vhost_dev.work_lock}, or null in the llist variant. */
  public KernelLock workLock() {
    return workLock;
  }

  /** {@code vhost_poll_queue(TX)}: the work-queue path of the TX kick work, as every waker runs it. */
  public Program txWorkQueuePath() {
    return txKickWork.queue;
  }

  public Virtqueue txVirtqueue() {
    return txVq;
  }

  public Virtqueue rxVirtqueue() {
    return rxVq;
  }

  @Override
  public int mss() {
    return config.mss();
  }

  @Override
  public int gsoMaxBytes() {
    return 65536 - 1 - 40 - 14; // GSO_MAX_SIZE minus headers, as tcp_xmit_size_goal in 3.0
  }

  @Override
  public void setProtocol(NetProtocol protocol) {
    checkArgument(protocol != null, "protocol must be set");
    this.protocol = protocol;
  }

  // -------------------------------------------------------------------------------------------
  // Attach.

  @Override
  @SuppressWarnings("unchecked")
  public void attach(DeviceContext ctx) {
    checkState(machine == null, "%s is attached already", name);
    Vm vm = ctx.vm();
    this.machine = ctx.machine();
    this.guest = vm.guest();
    this.host = machine.host();
    this.costs = costOverride != null ? costOverride : VhostNetCosts.from(ctx.costs());
    checkArgument(config.rxIrqCpu() < guest.cpuCount(), "rx-irq-cpu %s does not exist in a guest with %s cpus",
        config.rxIrqCpu(), guest.cpuCount());
    checkArgument(config.workerCpu() < host.cpuCount(), "worker-cpu %s does not exist on a host with %s cpus",
        config.workerCpu(), host.cpuCount());
    this.rxIrqCpu = config.rxIrqCpu();
    this.txLock = ctx.locks().create(guest, name + ".txq._xmit_lock", LockKind.SPINLOCK);
    checkArgument(txLock.supports(LockMode.IRQSAVE), "guest spinlock %s does not support IRQSAVE", txLock.algorithm());
    if (config.workQueue() != VhostNetConfig.WorkQueue.LLIST) {
      this.workLock = ctx.locks().create(host, "vhost-" + vm.name() + ".work_lock", LockKind.SPINLOCK);
      checkArgument(workLock.supports(LockMode.IRQ) && workLock.supports(LockMode.IRQSAVE),
          "host spinlock %s does not support IRQ and IRQSAVE", workLock.algorithm());
    }
    this.txKickWqLock = ctx.locks().create(host, name + ".tx_kick_eventfd.wqh.lock", LockKind.SPINLOCK);
    this.rxKickWqLock = ctx.locks().create(host, name + ".rx_kick_eventfd.wqh.lock", LockKind.SPINLOCK);
    this.sockWqLock = ctx.locks().create(host, name + ".tun.wq.wait.lock", LockKind.SPINLOCK);
    this.rxqLock = ctx.locks().create(host, name + ".tun.sk_receive_queue.lock", LockKind.SPINLOCK);
    this.peer = new PeerReceiver(machine.sim(), (flow, bytes, now) -> {
      Packet ack = allocAck(flow);
      ack.acked = bytes;
      deliveredBytes += bytes;
      scheduleAck(ack, now + config.ackDelayNs());
    }, config.peerQueues(), config.peerIrqIntervalNs(), config.peerNapiBudget(), config.peerGroSegments());
    this.txVq = new Virtqueue(name + ".txq", config.ringSize(), config.eventIdx());
    this.rxVq = new Virtqueue(name + ".rxq", config.ringSize(), config.eventIdx());
    txVq.disableCb(); // 3.0 virtio-net frees TX buffers in start_xmit; TX interrupts only when stopped
    for (int i = 0; i < config.ringSize(); i++) {
      rxVq.add(new RxBuf(), 1); // try_fill_recv at probe
    }
    rxVq.kickPrepare();
    for (int i = 0; i < 512; i++) {
      pool.add(new Packet());
    }
    int queues = config.nicQueues() == 0 ? host.cpuCount() : config.nicQueues();
    this.nicPending = new ArrayDeque[queues];
    this.napiScheduled = new boolean[queues];
    this.nicIrq = new Program[queues];
    this.workListHead = machine.cacheLines().line("vhost-" + vm.name() + ".work_list");
    buildHostPrograms(queues);
    buildGuestPrograms();
    this.worker = host.spawnSleeping("vhost-" + vm.name(), workerProgram(), config.workerCpu());
    if (config.irqfdInject() == VhostNetConfig.IrqfdInject.KWORKER) {
      this.kworkers = new Task[host.cpuCount()];
      this.kworkerQueue = new ArrayDeque[host.cpuCount()];
      for (int c = 0; c < host.cpuCount(); c++) {
        kworkerQueue[c] = new ArrayDeque<>(4);
        kworkers[c] = host.spawnSleeping("kworker/" + c + ":1", kworkerProgram(c), c);
      }
    }
    this.statsSince = machine.sim().now();
  }

  // -------------------------------------------------------------------------------------------
  // Host: vhost_work_queue, worker, handle_tx/handle_rx, NIC receive.

  private Program workQueueProgram(VhostWork w) {
    Op wakeWorker = Ops.wake(t -> {
      if (t.scratch2 != 1) {
        return null;
      }
      t.scratch2 = 0;
      return worker;
    });
    Op countWake = Ops.run(t -> {
      if (t.scratch2 == 1) {
        wakesIssued++;
        countRemoteInRead();
        if (workLock != null && workLock.owner() == t) {
          wakesUnderWorkLock++;
        }
      }
    });
    Op enqueue = Ops.run(t -> {
      t.scratch2 = 0;
      if (!w.queued) {
        w.queued = true;
        w.queuedCount++;
        t.scratch2 = 1;
        if (config.workQueue() == VhostNetConfig.WorkQueue.LLIST) {
          workerBatchPending.add(w);
        } else {
          workList.add(w);
        }
      }
    });
    return switch (config.workQueue()) {
      case WAKE_INSIDE_LOCK -> Program.named("vhost_work_queue")
          .op(counted(L_WORK)).op(workLock.lock(LockMode.IRQSAVE))
          .op(enqueue)
          .op(Ops.work(t -> t.scratch2 == 1 ? costs.listAddNs() + w.line.store(t) + workListHead.store(t) : 0,
              "list_add_tail"))
          .op(countWake)
          .op(wakeWorker)
          .op(workLock.unlock(LockMode.IRQSAVE))
          .build();
      case WAKE_OUTSIDE_LOCK -> Program.named("vhost_work_queue")
          .op(counted(L_WORK)).op(workLock.lock(LockMode.IRQSAVE))
          .op(enqueue)
          .op(Ops.work(t -> t.scratch2 == 1 ? costs.listAddNs() + w.line.store(t) + workListHead.store(t) : 0,
              "list_add_tail"))
          .op(workLock.unlock(LockMode.IRQSAVE))
          .op(countWake)
          .op(wakeWorker)
          .build();
      case LLIST -> Program.named("vhost_work_queue")
          .op(Ops.work(t -> w.line.rmw(t), "test_and_set_bit"))
          .op(enqueue)
          .op(Ops.work(t -> t.scratch2 == 1 ? workListHead.rmw(t) : 0, "llist_add"))
          .op(countWake)
          .op(wakeWorker)
          .build();
    };
  }

  /** The llist variant's list (lock-free: adds are instants, the worker takes all with one xchg). */
  private final ArrayDeque<VhostWork> workerBatchPending = new ArrayDeque<>(4);
  /**
   * The cache line of {@code dev->work_list}: llist_add's cmpxchg and llist_del_all's xchg (llist),
   * list_add_tail's and list_del_init's stores (3.0), priced by where the line last was.
   */
  private SharedLine workListHead;

  private Program pollWakeup(VhostWork w) {
    return Program.named("vhost_poll_wakeup").call(w.queue).build();
  }

  private void buildHostPrograms(int queues) {
    for (VhostWork w : new VhostWork[] {txKickWork, rxNetWork, rxKickWork}) {
      w.line = machine.cacheLines().line(w.name + ".flags");
      w.queue = workQueueProgram(w);
    }
    Program handleTx = handleTxProgram();
    Program handleRx = handleRxProgram();
    txKickWork.fn = Program.named("handle_tx_kick").call(handleTx).build();
    rxNetWork.fn = Program.named("handle_rx_net").call(handleRx).build();
    rxKickWork.fn = Program.named("handle_rx_kick").call(handleRx).build();
    for (VhostWork w : new VhostWork[] {txKickWork, rxNetWork, rxKickWork}) {
      w.run = Program.named("vhost_worker")
          .op(Ops.work(t -> w.line.rmw(t), "clear_bit"))
          .run(t -> {
            w.queued = false;
            t.setState(TaskState.RUNNING);
          })
          .call(w.fn)
          .build();
    }
    this.txKickHandler = kickHandler(txKickWqLock, txKickWork);
    this.rxKickHandler = kickHandler(rxKickWqLock, rxKickWork);
    // tun_net_xmit: wake_up_interruptible_poll(&tun->wq.wait) walks the wait queue under its lock;
    // a 3.0 reader inside tun_do_read is on it (added at the head, so first): default_wake_function
    // wakes the worker directly, then vhost_poll_wakeup queues the RX work (and wakes it again)
    Program secondWake = Program.named("default_wake_function")
        .run(t -> {
          secondWakes++;
          countRemoteInRead();
        })
        .op(Ops.wake(t -> worker))
        .build();
    Program sockDataReady = Program.named("wake_up_interruptible_poll")
        .op(counted(L_WQ)).op(sockWqLock.lock(LockMode.IRQSAVE))
        .op(Ops.call(t -> workerOnTunWq ? secondWake : null))
        .call(pollWakeup(rxNetWork))
        .op(sockWqLock.unlock(LockMode.IRQSAVE))
        .build();
    for (int q = 0; q < queues; q++) {
      final int queue = q;
      nicPending[q] = new ArrayDeque<>(256);
      Program one = Program.named("netif_receive_skb")
          .work(costs.nicRxPerPacketNs(), "br_handle_frame")
          .call(Program.named("tun_net_xmit")
              .op(counted(L_RXQ)).op(rxqLock.lock(LockMode.IRQSAVE)) // skb_queue_tail
              .run(t -> tapQueue.add(nicPending[queue].poll()))
              .op(rxqLock.unlock(LockMode.IRQSAVE))
              .call(sockDataReady)
              .build())
          .build();
      nicIrq[q] = Program.interruptHandler(NIC_IRQ_SYMBOL)
          .work(costs.nicRxIrqNs(), "handle_irq_event")
          .op(new LoopCall(t -> {
            if (nicPending[queue].isEmpty()) {
              napiScheduled[queue] = false;
              return null;
            }
            return one;
          }))
          .build();
    }
  }

  private Program kickHandler(KernelLock wqLock, VhostWork w) {
    Program signal = Program.named("eventfd_signal")
        .op(wqLock.lock(LockMode.IRQSAVE))
        .call(pollWakeup(w))
        .op(wqLock.unlock(LockMode.IRQSAVE))
        .build();
    return Program.named("handle_io")
        .work(costs.ioeventfdExitNs(), "ioeventfd_write")
        .call(signal)
        .build();
  }

  private Program workerProgram() {
    // The worker sleeps in a bare schedule() after set_current_state(TASK_INTERRUPTIBLE), not in
    // a wait_event: record what it waits for so the lost-wakeup detector can see it (queued work
    // and nobody waking it).
    boolean llist = config.workQueue() == VhostNetConfig.WorkQueue.LLIST;
    java.util.function.Predicate<Task> hasWork =
        llist ? t -> !workerBatchPending.isEmpty() : t -> !workList.isEmpty();
    String waitsFor = llist ? "vhost work_list (llist)" : "vhost work_list";
    Program sleep = Program.named("schedule")
        .run(t -> t.setBlockedOn(waitsFor, hasWork))
        .op(Ops.schedule())
        .run(Task::clearBlockedOn)
        .build();
    Program body;
    if (llist) {
      body = Program.named("vhost_worker")
          .op(Ops.setState(TaskState.INTERRUPTIBLE))
          .op(Ops.work(t -> workListHead.rmw(t), "llist_del_all"))
          .run(t -> {
            VhostWork w;
            while ((w = workerBatchPending.poll()) != null) {
              workerBatch.add(w);
            }
          })
          .op(Ops.call(t -> workerBatch.isEmpty() ? sleep : null))
          .op(new LoopCall(t -> {
            VhostWork w = workerBatch.poll();
            return w == null ? null : w.run;
          }))
          .op(Ops.condResched())
          .build();
    } else {
      body = Program.named("vhost_worker")
          .op(Ops.setState(TaskState.INTERRUPTIBLE))
          .op(counted(L_WORK)).op(workLock.lock(LockMode.IRQ))
          .run(t -> {
            current = workList.poll();
            if (current != null) {
              current.queued = false; // list_del_init
            }
          })
          // list_empty reads dev->work_list; list_del_init writes it and work->node: the lines the
          // waker's list_add_tail wrote (priced like the llist variant's atomics, by where they were)
          .op(Ops.work(t -> current != null ? current.line.store(t) + workListHead.store(t) : workListHead.load(t),
              "list_del_init"))
          .op(workLock.unlock(LockMode.IRQ))
          .run(t -> {
            if (current != null) {
              t.setState(TaskState.RUNNING);
            }
          })
          .op(Ops.call(t -> current != null ? current.fn : sleep))
          .op(Ops.condResched())
          .build();
    }
    return Program.named("kthread").loopWhile(t -> true, body).build();
  }

  private Program handleTxProgram() {
    Program requeue = Program.named("vhost_poll_queue").call(txKickWork.queue).build();
    // tun_get_user builds the skb (copy), then netif_rx_ni runs the receive softirq in the worker's
    // context: bridge, dev_queue_xmit, the NIC driver's xmit
    Program netifRxNi = Program.named("netif_rx_ni")
        .call(Program.named(SOFTIRQ_SYMBOL).work(costs.txSoftirqNs(), "net_rx_action").build())
        .build();
    Program one = Program.named("tun_sendmsg")
        .op(Ops.work(t -> costs.txPerPacketNs() - costs.txSoftirqNs() + costs.copyNs(txPacket.bytes), "tun_get_user"))
        .call(netifRxNi)
        .run(t -> {
          Packet p = txPacket;
          txPacket = null;
          txVq.pushUsed(txHead);
          txTotal += p.bytes;
          txPackets++;
          txSignal = txVq.needInterrupt();
          linkEnqueue(p);
        })
        .op(Ops.call(t -> txSignal ? signalTx : null))
        .build();
    return Program.named("handle_tx")
        .work(costs.handleNs(), "mutex_lock")
        .run(t -> {
          handleTxRuns++;
          txTotal = 0;
          txDone = false;
          txVq.disableNotify();
        })
        .op(new LoopCall(t -> {
          for (;;) {
            if (txDone) {
              return null;
            }
            if (txTotal >= config.weight()) {
              txDone = true;
              requeues++;
              return requeue;
            }
            if (!txVq.hasAvail()) {
              if (txVq.enableNotify()) {
                txVq.disableNotify();
                continue;
              }
              txDone = true;
              return null;
            }
            txHead = txVq.popQuiet();
            txPacket = (Packet) txVq.token(txHead);
            return one;
          }
        }))
        .build();
  }

  private Program handleRxProgram() {
    Program requeue = Program.named("vhost_poll_queue").call(rxNetWork.queue).build();
    VhostNetConfig.TunRead era = config.tunRead();
    Program.Builder read = Program.named("tun_do_read");
    if (era.waitQueue()) {
      read.op(counted(L_WQ)).op(sockWqLock.lock(LockMode.IRQSAVE)).run(t -> workerOnTunWq = true)
          .op(sockWqLock.unlock(LockMode.IRQSAVE)); // add_wait_queue
    }
    read.run(t -> {
      workerInTunRead = true;
      if (era.interruptible()) {
        t.setState(TaskState.INTERRUPTIBLE); // current->state = TASK_INTERRUPTIBLE
      }
    });
    read.op(counted(L_RXQ)).op(rxqLock.lock(LockMode.IRQSAVE)) // skb_dequeue
        .run(t -> rxDequeued = tapQueue.poll())
        .op(rxqLock.unlock(LockMode.IRQSAVE))
        .work(costs.rxPerPacketHostNs() / 2 + costs.copyNs(ACK_WIRE_BYTES + 12), "tun_put_user");
    read.run(t -> {
      workerInTunRead = false;
      if (era.interruptible()) {
        t.setState(TaskState.RUNNING); // current->state = TASK_RUNNING
      }
    });
    if (era.waitQueue()) {
      read.op(counted(L_WQ)).op(sockWqLock.lock(LockMode.IRQSAVE)).run(t -> workerOnTunWq = false)
          .op(sockWqLock.unlock(LockMode.IRQSAVE)); // remove_wait_queue
    }
    Program tunDoRead = read.build();
    Program one = Program.named("tun_recvmsg")
        .work(costs.rxPerPacketHostNs() - costs.rxPerPacketHostNs() / 2, "get_rx_bufs")
        .call(tunDoRead)
        .run(t -> {
          RxBuf b = (RxBuf) rxVq.token(rxHead);
          b.content = rxDequeued;
          rxDequeued = null;
          rxVq.pushUsed(rxHead);
          rxTotal += ACK_WIRE_BYTES;
          rxPackets++;
          rxSignal = rxVq.needInterrupt();
        })
        .op(Ops.call(t -> rxSignal ? signalRx : null))
        .build();
    // peek_head_len: sk_receive_queue.lock around skb_peek, once per packet and once to find the
    // queue empty (the loop condition of 3.0 handle_rx)
    Program peek = Program.named("peek_head_len")
        .op(counted(L_RXQ)).op(rxqLock.lock(LockMode.IRQSAVE))
        .run(t -> rxPeekLen = tapQueue.isEmpty() ? 0 : ACK_WIRE_BYTES)
        .op(rxqLock.unlock(LockMode.IRQSAVE))
        .build();
    return Program.named("handle_rx")
        .work(costs.handleNs(), "mutex_lock")
        .run(t -> {
          handleRxRuns++;
          rxTotal = 0;
          rxDone = false;
          rxPeeked = false;
          rxVq.disableNotify();
        })
        .op(new LoopCall(t -> {
          for (;;) {
            if (rxDone) {
              return null;
            }
            if (!rxPeeked) {
              rxPeeked = true;
              return peek;
            }
            rxPeeked = false;
            if (rxPeekLen == 0) {
              return null;
            }
            if (rxTotal >= config.weight()) {
              rxDone = true;
              requeues++;
              return requeue;
            }
            if (!rxVq.hasAvail()) {
              if (rxVq.enableNotify()) {
                rxVq.disableNotify();
                continue;
              }
              rxStarved++;
              rxDone = true;
              return null;
            }
            rxHead = rxVq.popQuiet();
            return one;
          }
        }))
        .build();
  }

  // -------------------------------------------------------------------------------------------
  // Guest: start_xmit, TX/RX interrupts, NAPI.

  private void buildGuestPrograms() {
    this.txNotify = Program.named("virtqueue_notify").op(Ops.vmExit("IO_INSTRUCTION", txKickHandler)).build();
    this.rxNotify = Program.named("virtqueue_notify").op(Ops.vmExit("IO_INSTRUCTION", rxKickHandler)).build();
    this.flushRequeue = Program.named("qdisc_restart")
        .run(t -> {
          Packet p;
          while ((p = guestRequeue.peek()) != null && txVq.add(p, 1) >= 0) {
            guestRequeue.poll();
          }
          if (!guestRequeue.isEmpty()) {
            txVq.enableCb(); // netif_stop_queue + virtqueue_enable_cb: wait for the TX interrupt
          }
        })
        .work(costs.kickPrepareNs(), "virtqueue_kick_prepare")
        .op(Ops.call(t -> txVq.kickPrepare() ? txNotify : null))
        .build();
    Program txDoneIrq = Program.named("skb_xmit_done")
        .run(t -> txVq.disableCb())
        .op(txLock.lock(LockMode.IRQSAVE))
        .run(t -> reclaimed = reclaimTx())
        .op(Ops.work(t -> reclaimed * costs.freeOldXmitNs(), "free_old_xmit_skbs"))
        .call(flushRequeue)
        .op(txLock.unlock(LockMode.IRQSAVE))
        .build();
    this.txInterrupt = Program.interruptHandler("vring_interrupt").work(costs.rxIrqEntryNs(), "handle_edge_irq")
        .call(txDoneIrq).build();
    this.txInject = Program.named("irqfd_inject")
        .work(costs.signalNs() - costs.eventfdSignalNs(), "kvm_set_irq")
        .run(t -> guest.cpu(rxIrqCpu).raiseInterrupt(txInterrupt))
        .build();
    this.signalTx = signal(false);

    Program receiveOne = Program.named("receive_buf")
        .work(costs.rxPerPacketNs(), "netif_receive_skb")
        .op(Ops.call(t -> protocol == null ? null : protocol.receivePath()))
        .run(t -> {
          Packet p = rxPacket;
          rxPacket = null;
          release(p);
        })
        .build();
    Program refill = Program.named("try_fill_recv")
        .op(Ops.work(t -> (long) rxToRefill.size() * costs.refillNs(), "add_recvbuf_small"))
        .run(t -> {
          RxBuf b;
          while ((b = rxToRefill.poll()) != null) {
            rxVq.add(b, 1);
          }
        })
        .work(costs.kickPrepareNs(), "virtqueue_kick_prepare")
        .op(Ops.call(t -> rxVq.kickPrepare() ? rxNotify : null))
        .build();
    Program poll = Program.named("virtnet_poll")
        .op(new LoopCall(t -> {
          for (;;) {
            RxBuf b = (RxBuf) rxVq.getBuf();
            if (b != null) {
              rxPacket = b.content;
              b.content = null;
              rxToRefill.add(b);
              acks++;
              return receiveOne;
            }
            if (rxVq.enableCb()) {
              return null; // napi_complete + virtqueue_enable_cb: nothing arrived meanwhile
            }
            rxVq.disableCb();
          }
        }))
        .op(Ops.call(t -> rxToRefill.size() >= config.ringSize() / 2 ? refill : null))
        .build();
    this.rxInterrupt = Program.interruptHandler("vring_interrupt")
        .work(costs.rxIrqEntryNs(), "handle_edge_irq")
        .run(t -> rxVq.disableCb()) // skb_recv_done -> napi_schedule
        .call(poll)
        .build();
    this.rxInject = Program.named("irqfd_inject")
        .work(costs.signalNs() - costs.eventfdSignalNs(), "kvm_set_irq")
        .run(t -> guest.cpu(rxIrqCpu).raiseInterrupt(rxInterrupt))
        .build();
    this.signalRx = signal(true);
  }

  /**
   * vhost_signal → eventfd_signal → irqfd_wakeup: in 3.0 {@code schedule_work(&irqfd->inject)} on
   * the signalling CPU (a no-op while the work is pending) and the kworker injects; with direct
   * injection the signaller does it all.
   */
  private Program signal(boolean rx) {
    if (config.irqfdInject() == VhostNetConfig.IrqfdInject.DIRECT) {
      return Program.named("vhost_signal")
          .work(costs.eventfdSignalNs(), "eventfd_signal")
          .run(t -> {
            if (rx) {
              rxSignals++;
            } else {
              txSignals++;
            }
          })
          .call(rx ? rxInject : txInject)
          .build();
    }
    return Program.named("vhost_signal")
        .work(costs.eventfdSignalNs(), "eventfd_signal")
        .run(t -> {
          t.scratch2 = 0;
          if (rx) {
            rxSignals++;
          } else {
            txSignals++;
          }
          boolean pending = rx ? rxInjectPending : txInjectPending;
          if (!pending) { // test_and_set_bit(WORK_STRUCT_PENDING)
            if (rx) {
              rxInjectPending = true;
            } else {
              txInjectPending = true;
            }
            int c = t.cpu().index();
            kworkerQueue[c].add(rx ? rxInject : txInject);
            t.scratch2 = c + 1;
          }
        })
        .op(Ops.call(t -> t.scratch2 > 0 ? wakeKworker : null))
        .build();
  }

  private final Program wakeKworker = Program.named("insert_work")
      .op(Ops.wake(t -> {
        int c = (int) t.scratch2 - 1;
        t.scratch2 = 0;
        return c >= 0 ? kworkers[c] : null;
      }))
      .build();

  /** worker_thread of a CPU-bound 3.0 workqueue: run queued items, sleep when none. */
  private Program kworkerProgram(int cpu) {
    Program sleep = Program.named("schedule")
        .run(t -> t.setBlockedOn("irqfd inject work", x -> !kworkerQueue[cpu].isEmpty()))
        .op(Ops.schedule())
        .run(Task::clearBlockedOn)
        .build();
    Program body = Program.named("worker_thread")
        .op(Ops.setState(TaskState.INTERRUPTIBLE))
        .op(Ops.call(t -> {
          Program item = kworkerQueue[cpu].poll();
          if (item == null) {
            return sleep;
          }
          t.setState(TaskState.RUNNING);
          if (item == rxInject) {
            rxInjectPending = false; // work_clear_pending before the function runs
          } else {
            txInjectPending = false;
          }
          kworkerInjects++;
          return item;
        }))
        .op(Ops.condResched())
        .build();
    return Program.named("kthread").loopWhile(t -> true, body).build();
  }

  static final int L_WORK = 0;
  static final int L_WQ = 1;
  static final int L_RXQ = 2;
  static final String[] LOCK_LABELS = {"work_lock", "tun.wq.wait.lock", "sk_receive_queue.lock"};
  private final long[] workerAcquisitions = new long[3];
  private final long[] workerCollisions = new long[3];

  /** Counts the worker's acquisition of lock {@code idx} and whether someone held it as it tried. */
  private Op counted(int idx) {
    return Ops.run(t -> {
      if (t == worker) {
        KernelLock l = idx == L_WORK ? workLock : idx == L_WQ ? sockWqLock : rxqLock;
        workerAcquisitions[idx]++;
        if (l.owner() != null) {
          workerCollisions[idx]++;
        }
      }
    });
  }

  /** A waker about to wake the worker while it is INTERRUPTIBLE and running inside tun_do_read. */
  private void countRemoteInRead() {
    if (workerInTunRead && worker.onCpu() && worker.state() == TaskState.INTERRUPTIBLE) {
      ttwuRemoteInTunRead++;
    }
  }

  @Override
  public Program xmitPath(ToIntFunction<Task> flow, ToIntFunction<Task> bytes) {
    checkState(machine != null, "%s: attach the device before building transmit paths", name);
    Program startXmit = Program.named("start_xmit")
        .run(t -> reclaimed = reclaimTx())
        .op(Ops.work(t -> reclaimed * costs.freeOldXmitNs(), "free_old_xmit_skbs"))
        .work(costs.xmitSkbNs(), "xmit_skb")
        .work(costs.addNs(), "virtqueue_add_buf")
        .run(t -> {
          Packet p = txGuestPacket;
          txGuestPacket = null;
          xmits++;
          Packet q;
          while ((q = guestRequeue.peek()) != null && txVq.add(q, 1) >= 0) {
            guestRequeue.poll(); // the qdisc's requeued packets go first
          }
          if (!guestRequeue.isEmpty() || txVq.add(p, 1) < 0) {
            txRingFull++;
            guestRequeue.add(p);
            txVq.enableCb();
          }
        })
        .work(costs.kickPrepareNs(), "virtqueue_kick_prepare")
        .op(Ops.call(t -> txVq.kickPrepare() ? txNotify : null))
        .build();
    return Program.named("dev_hard_start_xmit")
        .op(txLock.lock(LockMode.IRQSAVE))
        .run(t -> {
          Packet p = alloc();
          p.flow = flow.applyAsInt(t);
          p.bytes = bytes.applyAsInt(t);
          checkState(p.bytes > 0, "%s: transmit of %s bytes", name, p.bytes);
          txGuestPacket = p;
        })
        .call(startXmit)
        .op(txLock.unlock(LockMode.IRQSAVE))
        .build();
  }

  private int reclaimTx() {
    int n = 0;
    Object token;
    while ((token = txVq.getBuf()) != null) {
      release((Packet) token);
      n++;
    }
    return n;
  }

  @Override
  public int rxFlow(Task t) {
    return rxPacket.flow;
  }

  @Override
  public long rxAcked(Task t) {
    return rxPacket.acked;
  }

  @Override
  public long rxLost(Task t) {
    return rxPacket.lost;
  }

  // -------------------------------------------------------------------------------------------
  // Packets, the link and the peer.

  private Packet alloc() {
    Packet p = pool.poll();
    if (p == null) {
      p = new Packet(); // the pool grows to the peak number in flight, then allocation stops
    }
    p.refs = 2; // the guest's TX reclaim and the end of its transmission (or its drop)
    p.acked = 0;
    p.lost = 0;
    return p;
  }

  /** A packet from the peer for {@code flow}, freed when the guest has received it. */
  private Packet allocAck(int flow) {
    Packet p = alloc();
    p.refs = 1;
    p.flow = flow;
    p.bytes = ACK_WIRE_BYTES;
    return p;
  }

  private void release(Packet p) {
    if (--p.refs == 0) {
      pool.add(p);
    }
  }

  private void linkEnqueue(Packet p) {
    long now = machine.sim().now();
    if (linkQueue.size() >= config.txQueueLen()) {
      qdiscDrops++;
      Packet dup = allocAck(p.flow);
      dup.lost = p.bytes;
      release(p);
      // the peer notices the hole when the packets queued ahead of it arrive (duplicate ACKs)
      dup.readyAt = Math.max(now, linkTailFinish) + config.ackDelayNs();
      boolean wasEmpty = dupQueue.isEmpty();
      dupQueue.add(dup); // its own FIFO: duplicate ACK times grow with the queue's tail, not with data ACKs
      if (wasEmpty) {
        machine.sim().scheduleAt(dup.readyAt, this, EV_DUP_ARRIVE, 0);
      }
      return;
    }
    linkQueue.add(p);
    linkTailFinish = Math.max(now, linkTailFinish) + wireNs(p.bytes);
    if (!linkBusy) {
      startTransmit();
    }
  }

  private long wireNs(int bytes) {
    long frames = (bytes + config.mss() - 1) / config.mss();
    long wireBytes = bytes + frames * config.frameOverhead();
    return Math.max(1, wireBytes * 8000 / config.lineRateMbps());
  }

  private void startTransmit() {
    Packet p = linkQueue.peek();
    linkBusy = true;
    long now = machine.sim().now();
    long total = wireNs(p.bytes);
    peer.transmit(p.flow, p.bytes, config.mss(), now, wireNs(config.mss()), now + total);
    machine.sim().schedule(total, this, EV_LINK_DONE, 0);
  }

  private void scheduleAck(Packet p, long at) {
    p.readyAt = at;
    boolean wasEmpty = ackQueue.isEmpty();
    ackQueue.add(p);
    if (wasEmpty) {
      machine.sim().scheduleAt(at, this, EV_ACK_ARRIVE, 0);
    }
  }

  @Override
  public void onEvent(int kind, long arg) {
    switch (kind) {
      case EV_LINK_DONE -> {
        // the head packet's last frame is on the wire; the peer receives its frames (PeerReceiver)
        Packet p = linkQueue.poll();
        release(p);
        if (linkQueue.isEmpty()) {
          linkBusy = false;
        } else {
          startTransmit();
        }
      }
      case EV_DUP_ARRIVE -> {
        nicReceive(dupQueue.poll());
        Packet next = dupQueue.peek();
        if (next != null) {
          machine.sim().scheduleAt(Math.max(next.readyAt, machine.sim().now()), this, EV_DUP_ARRIVE, 0);
        }
      }
      case EV_ACK_ARRIVE -> {
        nicReceive(ackQueue.poll());
        Packet next = ackQueue.peek();
        if (next != null) {
          machine.sim().scheduleAt(Math.max(next.readyAt, machine.sim().now()), this, EV_ACK_ARRIVE, 0);
        }
      }
      default -> throw new IllegalStateException("unknown vhost-net event " + kind);
    }
  }

  /** A packet from the peer reaches the host NIC: RSS picks the queue, NAPI is scheduled on its CPU. */
  private void nicReceive(Packet p) {
    int q = Math.floorMod(p.flow * 0x9E3779B1, nicPending.length);
    nicPending[q].add(p);
    if (!napiScheduled[q]) {
      napiScheduled[q] = true;
      host.cpu(q % host.cpuCount()).raiseInterrupt(nicIrq[q]);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Statistics.

  @Override
  public double deliveredBitsPerSecond() {
    long elapsed = machine.sim().now() - statsSince;
    return elapsed <= 0 ? 0 : deliveredBytes * 8e9 / elapsed;
  }

  /**
   * CPU time of the worker thread since the last reset as the host's {@code top} shows it, ns:
   * everything it ran, minus the hardirq and softirq time in its context when the host has
   * {@code irq-time-accounting} (CONFIG_IRQ_TIME_ACCOUNTING).
   */
  public long workerCpuNs() {
    return topNs(worker) - workerCpuBase;
  }

  /** CPU time of the kworkers (3.0 irqfd injection) since the last reset, top view, ns; 0 with direct injection. */
  public long kworkerCpuNs() {
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
    machine.syncAccounting();
    long total = machine.account().threadTotal(t.id());
    return host.irqTimeAccounting() ? total - classify(t.id())[1] - classify(t.id())[2] : total;
  }

  /**
   * Worker CPU time spent acquiring {@code work_lock} (its own {@code spin_lock_irq} and any
   * {@code vhost_work_queue} it runs, in interrupts too), ns since the last reset.
   */
  public long workerWorkLockNs() {
    return classify(worker.id())[0] - workerSpinBase;
  }

  /** Worker CPU time in host interrupts that hit it (3.0 accounting charges them to it), ns. */
  public long workerIrqNs() {
    return classify(worker.id())[1] - workerIrqBase;
  }

  /** Worker CPU time in the receive softirq {@code netif_rx_ni} runs in its context (handle_tx), ns. */
  public long workerSoftirqNs() {
    return classify(worker.id())[2] - workerSoftirqBase;
  }

  /** [work_lock acquisition, NIC interrupt, softirq] time of thread {@code id}, ns, all time. */
  private long[] classify(int id) {
    long[] sum = new long[3];
    if (machine == null) {
      return sum;
    }
    machine.syncAccounting();
    SymbolTable symbols = machine.symbols();
    int workerSym = symbols.symbol("vhost_worker", Machine.DOMAIN_KERNEL);
    int queueSym = symbols.symbol("vhost_work_queue", Machine.DOMAIN_KERNEL);
    int lockIrq = symbols.symbol(WORKER_LOCK_SYMBOL, Machine.DOMAIN_KERNEL);
    int lockIrqsave = symbols.symbol(WAKER_LOCK_SYMBOL, Machine.DOMAIN_KERNEL);
    int irqSym = symbols.symbol(NIC_IRQ_SYMBOL, Machine.DOMAIN_KERNEL);
    int softirqSym = symbols.symbol(SOFTIRQ_SYMBOL, Machine.DOMAIN_KERNEL);
    machine.account().forEach((cpu, thread, stack, ns) -> {
      if (thread != id || stack < 0) {
        return;
      }
      if (stack >= stackClass.length) {
        stackClass = java.util.Arrays.copyOf(stackClass, Math.max(stack + 1, stackClass.length * 2));
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

  /** Elapsed simulated time since the last reset, ns. */
  public long elapsedNs() {
    return machine.sim().now() - statsSince;
  }

  @Override
  public ImmutableMap<String, Number> stats() {
    ImmutableMap.Builder<String, Number> m = ImmutableMap.builder();
    long elapsed = machine == null ? 0 : elapsedNs();
    m.put("elapsed_ns", elapsed);
    m.put("throughput_gbps", machine == null ? 0 : deliveredBitsPerSecond() / 1e9);
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
    if (txVq != null) {
      m.put("txq.kicks", txVq.kicks());
      m.put("txq.kicks_suppressed", txVq.kicksSuppressed());
      m.put("rxq.kicks", rxVq.kicks());
      m.put("rxq.interrupts", rxVq.interrupts());
      m.put("rxq.interrupts_suppressed", rxVq.interruptsSuppressed());
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
      m.put("host.ttwu_on_cpu_waits", host.ttwuOnCpuWaits() - hostOnCpuWaitsBase);
    }
    if (workLock != null) {
      m.put("work_lock.acquisitions", workLock.stats().acquisitions());
      m.put("work_lock.contentions", workLock.stats().contentions());
      m.put("work_lock.wait_total_ns", workLock.stats().waitTotalNs());
      m.put("work_lock.hold_total_ns", workLock.stats().holdTotalNs());
    }
    if (sockWqLock != null) {
      m.put("tun_wq_lock.acquisitions", sockWqLock.stats().acquisitions());
      m.put("tun_wq_lock.contentions", sockWqLock.stats().contentions());
      m.put("rxq_lock.acquisitions", rxqLock.stats().acquisitions());
      m.put("rxq_lock.contentions", rxqLock.stats().contentions());
      m.put("tx_lock.contentions", txLock.stats().contentions());
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
      m.put("acks_per_s", elapsed <= 0 ? 0.0 : peer.acks() * 1e9 / elapsed);
      m.put("bytes_per_ack", peer.acks() == 0 ? 0.0 : (double) peer.bytes() / peer.acks());
      m.put("kworker_injects", kworkerInjects);
      m.put("kworker_cpu_percent", elapsed <= 0 ? 0.0 : 100.0 * kworkerCpuNs() / elapsed);
      m.put("worker_softirq_ns", workerSoftirqNs());
      m.put("irq_time_accounting", host.irqTimeAccounting() ? 1 : 0);
    }
    return m.build();
  }

  @Override
  public void resetStats() {
    xmits = txRingFull = txPackets = deliveredBytes = qdiscDrops = acks = rxPackets = rxStarved = 0;
    txSignals = rxSignals = handleTxRuns = handleRxRuns = requeues = wakesIssued = wakesUnderWorkLock = 0;
    ttwuRemoteInTunRead = secondWakes = kworkerInjects = 0;
    java.util.Arrays.fill(workerAcquisitions, 0);
    java.util.Arrays.fill(workerCollisions, 0);
    if (machine == null) {
      return;
    }
    txVq.resetStats();
    rxVq.resetStats();
    if (workLock != null) {
      workLock.stats().reset();
    }
    sockWqLock.stats().reset();
    txKickWqLock.stats().reset();
    rxKickWqLock.stats().reset();
    txLock.stats().reset();
    statsSince = machine.sim().now();
    workerCpuBase = 0;
    workerCpuBase = workerCpuNs();
    kworkerCpuBase = 0;
    kworkerCpuBase = kworkerCpuNs();
    long[] c = classify(worker.id());
    workerSpinBase = c[0];
    workerIrqBase = c[1];
    workerSoftirqBase = c[2];
    rxqLock.stats().reset();
    peer.resetStats();
    workerWakeupsBase = worker.wakeups();
    workerFoundRunningBase = worker.ttwuFoundRunning();
    workerFoundOnRqBase = worker.ttwuFoundOnRq();
    workerSwitchesBase = worker.voluntarySwitches();
    hostOnCpuWaitsBase = host.ttwuOnCpuWaits();
  }

  @Override
  public String toString() {
    return name + "(" + config.workQueue().option() + ")";
  }

  /** Calls the program {@code chooser} picks until it picks null (a kernel loop over named bodies). */
  static final class LoopCall extends Op {
    private final Function<Task, Program> chooser;

    LoopCall(Function<Task, Program> chooser) {
      this.chooser = chooser;
    }

    @Override
    public int execute(Task t, int phase) {
      Program p = chooser.apply(t);
      if (p == null) {
        return NEXT;
      }
      t.call(p);
      return AGAIN;
    }
  }
}
