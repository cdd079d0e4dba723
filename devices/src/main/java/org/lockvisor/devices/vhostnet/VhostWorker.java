package org.lockvisor.devices.vhostnet;

import java.util.ArrayDeque;
import org.lockvisor.devices.spi.Virtqueue;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.SharedLine;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.TaskState;

/**
 * The host half of {@link VhostNet}: 3.0 {@code drivers/vhost/vhost.c} and {@code
 * drivers/vhost/net.c}. {@code vhost_work_queue} in the three {@link VhostNetConfig.WorkQueue}
 * variants; the worker thread's loop ({@code vhost_worker}); the kick handlers ({@code
 * ioeventfd_write -> eventfd_signal -> vhost_poll_wakeup}); {@code handle_tx} ({@code
 * tun_sendmsg} down to the NIC) and {@code handle_rx} ({@code peek_head_len}, {@code
 * tun_do_read} of the era in {@link VhostNetConfig.TunRead}); the NIC queues' NAPI into the tap
 * socket ({@code tun_net_xmit}, {@code sk_data_ready}); and {@code vhost_signal} through irqfd,
 * directly or by a 3.0 kworker ({@link IrqfdSignal}, split off along its own state). The class
 * comment of {@link VhostNet} describes the paths. The handlers, the work queue and the worker
 * loop share the worker's per-call state and the same locks, one 3.0 kernel thread's code in one
 * place.
 *
 * <p>Split out of {@link VhostNet}: the locks, rings and NIC come from {@link VhostNetState}; the
 * guest's kick exits run {@link #txKickHandler} and {@link #rxKickHandler}, and the guest's irqfd
 * injection comes in as programs ({@link #signals}), so this class names neither the device nor
 * its guest driver.
 */
final class VhostWorker {
  /** The receive softirq {@code netif_rx_ni} runs in the worker's context ({@code handle_tx}). */
  static final String SOFTIRQ_SYMBOL = "do_softirq";

  private final VhostNetConfig config;
  private final VhostNetCosts costs;
  private final Machine machine;
  private final Kernel host;
  private final KernelLock workLock;
  /** Who acquires work_lock, collisions and acquisition time per acquirer (null in the llist variant). */
  private final WorkLockAcquirers acquirers;
  private final KernelLock txKickWqLock;
  private final KernelLock rxKickWqLock;
  private final KernelLock sockWqLock;
  private final KernelLock rxqLock;
  private final Virtqueue txVq;
  private final Virtqueue rxVq;
  private final NicLink link;
  private final VhostNetCounters stats;

  /** vhost_signal through irqfd, and the 3.0 kworkers that inject (their own state: no call back here). */
  final IrqfdSignal irqfd;
  /** The worker is on {@code tun->wq.wait} (3.0 tun_do_read, between add and remove). */
  private boolean workerOnTunWq;
  /** The worker is inside tun_do_read's TASK_INTERRUPTIBLE section. */
  boolean workerInTunRead;
  Task worker;

  /** A {@code struct vhost_work}: queued flag (on the list) and its function. */
  static final class VhostWork {
    final String name;
    Program fn;
    /** vhost_work_queue as the worker runs it (its weight requeue). */
    Program queue;
    /** vhost_work_queue per acquirer ({@link WorkLockAcquirers.Acquirer}), each counted as that acquirer. */
    final Program[] queueBy = new Program[WorkLockAcquirers.N];
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

  final VhostWork txKickWork = new VhostWork("handle_tx_kick");
  private final VhostWork rxNetWork = new VhostWork("handle_rx_net");
  private final VhostWork rxKickWork = new VhostWork("handle_rx_kick");
  private final ArrayDeque<VhostWork> workList = new ArrayDeque<>(4);
  private final ArrayDeque<VhostWork> workerBatch = new ArrayDeque<>(4);
  private VhostWork current;

  private final ArrayDeque<Packet> tapQueue = new ArrayDeque<>(1024);

  // per-call state of the worker's serialised paths
  private long txTotal;
  private boolean txDone;
  private int txHead;
  private Packet txPacket;
  private boolean txSignal;
  private long rxTotal;
  private boolean rxDone;
  private int rxHead;
  private boolean rxSignal;
  private Packet rxDequeued;
  private boolean rxPeeked;
  private int rxPeekLen;
  private int rxHeadcount;

  // programs
  Program txKickHandler;
  Program rxKickHandler;
  /** vhost_signal of each queue, built with the guest's irqfd injection ({@link #signals}). */
  Program signalRx;
  Program signalTx;

  VhostWorker(VhostNetState s) {
    this.config = s.config;
    this.costs = s.costs;
    this.machine = s.machine;
    this.host = s.host;
    this.workLock = s.workLock;
    this.acquirers = s.workLockAcquirers;
    this.txKickWqLock = s.txKickWqLock;
    this.rxKickWqLock = s.rxKickWqLock;
    this.sockWqLock = s.sockWqLock;
    this.rxqLock = s.rxqLock;
    this.txVq = s.txVq;
    this.rxVq = s.rxVq;
    this.link = s.link;
    this.stats = s.stats;
    this.irqfd = new IrqfdSignal(config, costs, host, stats);
  }

  /** Builds the host's programs: the work queue, the worker's handlers, the kick handlers, the NIC's NAPI. */
  void buildPrograms(String vmName) {
    this.workListHead = machine.cacheLines().line("vhost-" + vmName + ".work_list");
    buildHostPrograms(link.queues());
  }

  /**
   * Builds {@code vhost_signal} of each queue ({@link IrqfdSignal#signal}) around the guest's
   * {@code irqfd_inject} programs of its TX and RX interrupts.
   */
  void signals(Program txInject, Program rxInject) {
    this.signalTx = irqfd.signal(false, txInject);
    this.signalRx = irqfd.signal(true, rxInject);
  }

  /** Spawns the worker thread (and the 3.0 kworkers); the programs are built. */
  void spawn(String vmName) {
    this.worker = host.spawnSleeping("vhost-" + vmName, workerProgram(), config.workerCpu());
    if (acquirers != null) {
      acquirers.worker(worker);
    }
    irqfd.start();
  }

  private Program workQueueProgram(VhostWork w, WorkLockAcquirers.Acquirer by) {
    Op wakeWorker = Ops.wake(t -> {
      if (t.scratch2 != 1) {
        return null;
      }
      t.scratch2 = 0;
      return worker;
    });
    Op countWake = Ops.run(t -> {
      if (t.scratch2 == 1) {
        stats.wakesIssued++;
        countRemoteInRead();
        if (workLock != null && workLock.owner() == t) {
          stats.wakesUnderWorkLock++;
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
    if (config.workQueue() != VhostNetConfig.WorkQueue.LLIST) {
      // 3.0 drivers/vhost/vhost.c vhost_work_queue: spin_lock_irqsave(work_lock) on every call, queued
      // or not; list_add_tail and wake_up_process inside (3.0) or the wake after the unlock (ac9fde2474d0)
      Program.Builder b = Program.named("vhost_work_queue")
          .op(counted(L_WORK)).op(acquirers.reaching(by)).op(workLock.lock(LockMode.IRQSAVE)).op(acquirers.owning(by))
          .op(enqueue)
          .op(Ops.work(t -> t.scratch2 == 1 ? costs.listAddNs() + w.line.store(t) + workListHead.store(t) : 0,
              "list_add_tail"));
      return config.workQueue() == VhostNetConfig.WorkQueue.WAKE_INSIDE_LOCK
          ? b.op(countWake).op(wakeWorker).op(workLock.unlock(LockMode.IRQSAVE)).build()
          : b.op(workLock.unlock(LockMode.IRQSAVE)).op(countWake).op(wakeWorker).build();
    }
    return Program.named("vhost_work_queue") // llist (4.6)
        .op(Ops.work(t -> w.line.rmw(t), "test_and_set_bit"))
        .op(enqueue)
        .op(Ops.work(t -> t.scratch2 == 1 ? workListHead.rmw(t) : 0, "llist_add"))
        .op(countWake)
        .op(wakeWorker)
        .build();
  }

  /** The llist variant's list (lock-free: adds are instants, the worker takes all with one xchg). */
  private final ArrayDeque<VhostWork> workerBatchPending = new ArrayDeque<>(4);
  /**
   * The cache line of {@code dev->work_list}: llist_add's cmpxchg and llist_del_all's xchg (llist),
   * list_add_tail's and list_del_init's stores (3.0), priced by where the line last was.
   */
  private SharedLine workListHead;

  private Program pollWakeup(VhostWork w, WorkLockAcquirers.Acquirer by) {
    return Program.named("vhost_poll_wakeup").call(w.queueBy[by.ordinal()]).build();
  }

  private void buildHostPrograms(int queues) {
    for (VhostWork w : new VhostWork[] {txKickWork, rxNetWork, rxKickWork}) {
      w.line = machine.cacheLines().line(w.name + ".flags");
      for (WorkLockAcquirers.Acquirer by : WorkLockAcquirers.Acquirer.values()) {
        w.queueBy[by.ordinal()] = workQueueProgram(w, by);
      }
      w.queue = w.queueBy[WorkLockAcquirers.Acquirer.WORKER.ordinal()];
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
          stats.secondWakes++;
          countRemoteInRead();
        })
        .op(Ops.wake(t -> worker))
        .build();
    Program sockDataReady = Program.named("wake_up_interruptible_poll")
        .op(counted(L_WQ)).op(sockWqLock.lock(LockMode.IRQSAVE))
        .op(Ops.call(t -> workerOnTunWq ? secondWake : null))
        .call(pollWakeup(rxNetWork, WorkLockAcquirers.Acquirer.SOFTIRQ))
        .op(sockWqLock.unlock(LockMode.IRQSAVE))
        .build();
    this.sockDataReady = sockDataReady;
    for (int q = 0; q < queues; q++) {
      final int queue = q;
      ArrayDeque<Packet> pending = new ArrayDeque<>(256);
      Program one = tunNetXmit(pending);
      link.receiveQueue(q, pending, Program.interruptHandler(NicLink.IRQ_SYMBOL)
          .work(costs.nicRxIrqNs(), "handle_irq_event")
          .op(Ops.loopCall(t -> {
            if (pending.isEmpty()) {
              link.napiComplete(queue);
              return null;
            }
            return one;
          }))
          .build());
    }
  }

  private Program sockDataReady;
  /** Guest-receive (issue 32): the external sender and the host NIC's receive side, or null. */
  private GuestReceive guestRx;

  /**
   * One skb from a NIC queue's NAPI up the host stack into the tap: {@code netif_receive_skb} →
   * bridge → {@code tun_net_xmit} ({@code skb_queue_tail} under {@code sk_receive_queue.lock},
   * then the socket wakeup: 3.0.27 drivers/net/tun.c). In the guest-receive direction a tap
   * holding {@link GuestReceive#TAP_LIMIT} skbs drops.
   */
  private Program tunNetXmit(ArrayDeque<Packet> pending) {
    return Program.named("netif_receive_skb")
        .work(costs.nicRxPerPacketNs(), "br_handle_frame")
        .call(Program.named("tun_net_xmit")
            .op(counted(L_RXQ)).op(rxqLock.lock(LockMode.IRQSAVE)) // skb_queue_tail
            .run(t -> {
              Packet p = pending.poll();
              if (guestRx != null && tapQueue.size() >= GuestReceive.TAP_LIMIT) {
                guestRx.tapDrop(p);
              } else {
                tapQueue.add(p);
              }
            })
            .op(rxqLock.unlock(LockMode.IRQSAVE))
            .call(sockDataReady)
            .build())
        .build();
  }

  /** Switches to the guest-receive direction: the host NIC queues of {@code rx} deliver through the tap. */
  void guestReceive(GuestReceive rx) {
    this.guestRx = rx;
    rx.worker = worker;
    for (int q = 0; q < rx.ready.length; q++) {
      rx.buildQueue(q, costs, tunNetXmit(rx.ready[q]));
    }
  }

  private Program kickHandler(KernelLock wqLock, VhostWork w) {
    Program signal = Program.named("eventfd_signal")
        .op(wqLock.lock(LockMode.IRQSAVE))
        .call(pollWakeup(w, WorkLockAcquirers.Acquirer.VCPU_KICK))
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
          .op(Ops.loopCall(t -> {
            VhostWork w = workerBatch.poll();
            return w == null ? null : w.run;
          }))
          .op(Ops.condResched())
          .build();
    } else {
      body = Program.named("vhost_worker")
          .op(Ops.setState(TaskState.INTERRUPTIBLE))
          .op(counted(L_WORK)).op(acquirers.reaching(WorkLockAcquirers.Acquirer.WORKER)).op(workLock.lock(LockMode.IRQ))
          .op(acquirers.owning(WorkLockAcquirers.Acquirer.WORKER))
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
          stats.txPackets++;
          txSignal = txVq.needInterrupt();
          link.enqueue(p, t.cpu().index());
        })
        .op(Ops.call(t -> txSignal ? signalTx : null))
        .build();
    return Program.named("handle_tx")
        .work(costs.handleNs(), "mutex_lock")
        .run(t -> {
          stats.handleTxRuns++;
          txTotal = 0;
          txDone = false;
          txVq.disableNotify();
        })
        .op(Ops.loopCall(t -> {
          for (;;) {
            if (txDone) {
              return null;
            }
            if (txTotal >= config.weight()) {
              txDone = true;
              stats.requeues++;
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
        .op(Ops.work(t -> costs.rxPerPacketHostNs() / 2 + costs.copyNs(rxDequeued.bytes + GuestReceive.VNET_HDR_BYTES),
            "tun_put_user"));
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
          rxTotal += rxDequeued.bytes;
          rxDequeued = null;
          rxVq.pushUsed(rxHead);
          for (int k = 1; k < rxHeadcount; k++) { // mergeable: the packet's further pages (vhost_add_used_n)
            int h = rxVq.popQuiet();
            ((RxBuf) rxVq.token(h)).content = null;
            rxVq.pushUsed(h);
          }
          stats.rxPackets++;
          rxSignal = rxVq.needInterrupt();
        })
        .op(Ops.call(t -> rxSignal ? signalRx : null))
        .build();
    // peek_head_len: sk_receive_queue.lock around skb_peek, once per packet and once to find the
    // queue empty (the loop condition of 3.0 handle_rx)
    Program peek = Program.named("peek_head_len")
        .op(counted(L_RXQ)).op(rxqLock.lock(LockMode.IRQSAVE))
        .run(t -> rxPeekLen = tapQueue.isEmpty() ? 0 : tapQueue.peek().bytes)
        .op(rxqLock.unlock(LockMode.IRQSAVE))
        .build();
    return Program.named("handle_rx")
        .work(costs.handleNs(), "mutex_lock")
        .run(t -> {
          stats.handleRxRuns++;
          rxTotal = 0;
          rxDone = false;
          rxPeeked = false;
          rxVq.disableNotify();
        })
        .op(Ops.loopCall(t -> {
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
              stats.requeues++;
              return requeue;
            }
            // get_rx_bufs (3.0.27 drivers/vhost/net.c, mergeable buffers): one page-sized guest
            // buffer per 4 KiB of the packet and its 12-byte virtio_net_hdr_mrg_rxbuf
            rxHeadcount = (rxPeekLen + GuestReceive.VNET_HDR_BYTES + GuestReceive.MERGEABLE_BUFFER_BYTES - 1)
                / GuestReceive.MERGEABLE_BUFFER_BYTES;
            // get_rx_bufs reads avail->idx; too few buffers: vhost_discard_vq_desc, headcount 0;
            // vhost_enable_notify is true only if the guest added some since that read (3.0.27)
            if (rxVq.readAvail() < rxHeadcount) {
              if (rxVq.enableNotifySinceRead()) {
                rxVq.disableNotify();
                continue;
              }
              stats.rxStarved++;
              rxDone = true;
              return null;
            }
            rxHead = rxVq.popQuiet();
            return one;
          }
        }))
        .build();
  }

  private static final int L_WORK = VhostNetCounters.L_WORK;
  private static final int L_WQ = VhostNetCounters.L_WQ;
  private static final int L_RXQ = VhostNetCounters.L_RXQ;

  /** Counts the worker's acquisition of lock {@code idx} and whether someone held it as it tried. */
  private Op counted(int idx) {
    return Ops.run(t -> {
      if (t == worker) {
        KernelLock l = idx == L_WORK ? workLock : idx == L_WQ ? sockWqLock : rxqLock;
        stats.workerAcquisitions[idx]++;
        if (l.owner() != null) {
          stats.workerCollisions[idx]++;
        }
      }
    });
  }

  /** A waker about to wake the worker while it is INTERRUPTIBLE and running inside tun_do_read. */
  private void countRemoteInRead() {
    if (workerInTunRead && worker.onCpu() && worker.state() == TaskState.INTERRUPTIBLE) {
      stats.ttwuRemoteInTunRead++;
    }
  }
}
