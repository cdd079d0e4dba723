package org.lockvisor.devices.virtioblk;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import com.google.common.collect.ImmutableMap;
import java.util.ArrayDeque;
import java.util.function.Function;
import org.lockvisor.devices.spi.BlockBatch;
import org.lockvisor.devices.spi.BlockCompletion;
import org.lockvisor.devices.spi.BlockDevice;
import org.lockvisor.devices.spi.BlockRequest;
import org.lockvisor.devices.spi.DeviceContext;
import org.lockvisor.devices.spi.Virtqueue;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.VcpuTask;
import org.lockvisor.machine.WaitQueue;

/**
 * virtio-blk with one blk-mq hardware queue, as in {@code drivers/block/virtio_blk.c} of Linux
 * 3.13–3.15 and after e8edca6f7f92 ("block: virtio_blk: don't hold spin lock during world
 * switch", Ming Lei, 2014), over a 2014 QEMU device model.
 *
 * <p>Guest, per request, in the submitter's context ({@code virtio_queue_rq}):
 * <pre>
 * setup (no lock) · lock(vq_lock, IRQSAVE) · __virtblk_add_req
 *   ring full: virtqueue_kick · stop hw queue · unlock · BUSY (request parked, kblockd retries)
 *   inside-lock:  if last: virtqueue_kick (kick_prepare + notify exit)  · unlock
 *   outside-lock: notify = last &amp;&amp; kick_prepare · unlock · if notify: virtqueue_notify exit
 * </pre>
 * Guest completion interrupt ({@code vring_interrupt -> virtblk_done}, hard-irq context):
 * {@code lock(vq_lock, IRQSAVE) · do { disable_cb; while get_buf: complete (wakes the waiter) }
 * while (!enable_cb) · unlock · restart a stopped queue}.
 *
 * <p>Host: the notify exit is priced by the {@link NotifyPath}. The device model is QEMU 2.0.0's
 * ({@link VirtioBlkConfig.Vmm}): the main-loop device ({@code hw/block/virtio-blk.c}, the loop of
 * {@code main-loop.c os_host_main_loop_wait} keeping the BQL across zero-timeout polls while
 * bottom halves are pending, completions through the block layer's coroutine and bottom half
 * {@code bdrv_co_em_bh -> virtio_blk_rw_complete}), or {@code x-data-plane}
 * ({@code hw/block/dataplane/virtio-blk.c}: own thread, no BQL, {@code handle_notify} pops every
 * available request before one {@code ioq_submit}, {@code handle_io} notifies once per completion
 * batch over the irqfd). The device side of the ring is a {@link QueuePolicy}. The completion
 * interrupt is an MSI or a virtio-mmio level interrupt ({@link VirtioBlkConfig.InterruptTransport}:
 * Linux 3.15 {@code drivers/virtio/virtio_mmio.c vm_interrupt} reads the status and writes the ACK
 * register, two exits to QEMU under the BQL; the 3.15 vGIC's EOI maintenance exit,
 * {@code virt/kvm/arm/vgic.c vgic_queue_irq}).
 *
 * <p>blk-mq tags: a request needs a tag before it reaches the driver; the tag space is the ring's
 * free descriptors (halved without indirect descriptors), as {@code virtblk_probe} sizes
 * {@code virtblk_queue_depth} in 3.13–3.16. A submitter that finds no free tag sleeps in
 * {@code bt_get} until a completion frees one (exclusive wake-up), so with tags sized to the
 * ring the ring-full path is the rare race it is in the kernel.
 *
 * <p>Simplifications: requests that meet a stopped queue or a full ring are parked on the
 * dispatch list under vq_lock and dispatched by a kblockd worker after the restart (the kernel
 * parks them after unlocking).
 *
 * <p>This class is the guest driver and the device's public face. At attach it builds what the
 * driver and the host share ({@link VirtioBlkState}: locks, ring, queue policy, the interrupt
 * between them), then the host's QEMU model {@link QemuVmm} (the {@link VmmSide} the notify path
 * runs against) and the statistics {@link VirtioBlkStats} from it; they never call back here.
 * Above 30 methods on purpose: the {@code BlockDevice} interface and the figures the reproductions
 * read (notify-exit quantiles, vq_lock spin by caller) are one-line accessors here; the driver's
 * own logic is a dozen program builders.
 */
public final class VirtioBlk implements BlockDevice {
  private final String name;
  private final VirtioBlkConfig config;
  private final VirtioBlkCosts costOverride;
  private final QueuePolicy policyOverride;
  /** What the driver and the device model share, built at attach; null before. */
  private VirtioBlkState state;
  private QueuePolicy policy;

  private VirtioBlkCosts costs;
  private Machine machine;
  private Kernel guest;
  private KernelLock vqLock;
  private KernelLock bql;
  private Virtqueue vq;
  private NotifyPath notifyPath;
  final VirtioBlkStats stats = new VirtioBlkStats();
  /** The host half: QEMU's main loop or dataplane thread, backend, interrupt injection; null before attach. */
  private QemuVmm vmm;
  private Task kblockd;
  private int descriptorsPerRequest;

  // guest driver state (under vq_lock)
  private boolean hwQueueStopped;
  private final ArrayDeque<BlockRequest> dispatchList = new ArrayDeque<>();
  private VirtblkReq completing;
  private boolean drainDone;
  private final BlockBatch kblockdBatch = new BlockBatch(256);
  private int tagsFree;
  private final WaitQueue tagWait = new WaitQueue("blk_mq_bitmap_tags.wait");
  /** virtio-mmio: the ISR each guest CPU's status read returned. */
  private boolean[] statusSeen = new boolean[0];

  // programs
  private Program notify;
  private Program kickInside;
  private Program kickPrepareOnly;
  private Program kblockdSubmit;

  /** A device with costs from the arch profile (given at attach). */
  public VirtioBlk(String name, VirtioBlkConfig config) {
    this(name, config, null);
  }

  /** A device with explicit costs (tests, what-ifs); null takes them from the context at attach. */
  public VirtioBlk(String name, VirtioBlkConfig config, VirtioBlkCosts costs) {
    this(name, config, costs, null);
  }

  /**
   * A device with explicit costs (null: from the context at attach) and its own device-side ring
   * behaviour (null: the one the {@code queue-policy} option selects): the extension point for a
   * QEMU version or a what-if, see {@link QueuePolicy}.
   */
  public VirtioBlk(String name, VirtioBlkConfig config, VirtioBlkCosts costs, QueuePolicy policy) {
    checkArgument(name != null && !name.isEmpty(), "device needs a name");
    checkArgument(config != null, "config must be set");
    this.name = name;
    this.config = config;
    this.costOverride = costs;
    this.policyOverride = policy;
  }

  /** The device-side ring behaviour in use (after attach). */
  public QueuePolicy queuePolicy() {
    return policy;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String model() {
    return VirtioBlkFactory.NAME;
  }

  public VirtioBlkConfig config() {
    return config;
  }

  public VirtioBlkCosts costs() {
    return costs;
  }

  public Virtqueue virtqueue() {
    return vq;
  }

  public KernelLock vqLock() {
    return vqLock;
  }

  /** The VMM's global lock (QEMU's BQL), or null when the model runs without it. */
  public KernelLock globalLock() {
    return bql;
  }

  /** The host thread that polls the ioeventfd: QEMU's main loop, or the dataplane thread. */
  public Task mainLoopThread() {
    return vmm == null ? null : vmm.mainLoopThread();
  }

  // -------------------------------------------------------------------------------------------
  // Attach: the shared state first, then the host's device model, programs, host and guest threads.

  @Override
  public void attach(DeviceContext ctx) {
    checkState(state == null, "%s is attached already", name);
    VirtioBlkState s = new VirtioBlkState(ctx, name, config, costOverride, policyOverride);
    this.state = s;
    this.machine = s.machine;
    this.guest = s.guest;
    this.costs = s.costs;
    this.vqLock = s.vqLock;
    this.bql = s.bql;
    this.vq = s.vq;
    this.policy = s.policy;
    this.descriptorsPerRequest = config.indirect() ? 1 : 3;
    this.tagsFree = config.indirect() ? config.queueSize() : config.queueSize() / 2;
    this.statusSeen = new boolean[guest.cpuCount()];
    this.notifyPath = NotifyPath.named(config.notifyPath());
    checkArgument(config.irqCpu() < guest.cpuCount(), "irq-cpu %s does not exist in a guest with %s cpus",
        config.irqCpu(), guest.cpuCount());
    this.vmm = new QemuVmm(s, stats);
    buildHostPrograms();
    buildGuestPrograms();
    s.vringInterrupt = vringInterrupt;
    checkArgument(config.vmmCpu() < s.host.cpuCount(), "vmm-cpu %s does not exist on a host with %s cpus",
        config.vmmCpu(), s.host.cpuCount());
    vmm.spawn(config.vmmCpu());
    this.kblockd = guest.spawnSleeping("kworker/kblockd-" + name, kblockdProgram(), -1);
    stats.attached(s, vmm.backend());
  }

  /** The guest's completion interrupt handler, built by {@link #buildGuestPrograms}. */
  private Program vringInterrupt;

  private void buildHostPrograms() {
    vmm.buildHandleOutput();
    this.notify = Program.named("virtqueue_notify")
        .run(t -> {
          t.scratch2 = machine.sim().now();
          if (vqLock.owner() == t) {
            stats.spinAtExitStart = stats.vqLockSpinTotal();
          }
        })
        .op(Ops.vmExit(notifyPath.exitReason(), notifyPath.hostHandler(vmm)))
        .run(t -> {
          long d = machine.sim().now() - t.scratch2;
          stats.notifies++;
          stats.notifyNs += d;
          stats.exitHistogram[(int) Math.min(d / VirtioBlkStats.EXIT_BUCKET_NS,
              VirtioBlkStats.EXIT_HISTOGRAM_BUCKETS - 1)]++;
          stats.exitMaxNs = Math.max(stats.exitMaxNs, d);
          if (vqLock.owner() == t) {
            stats.notifiesUnderLock++;
            stats.notifyUnderLockNs += d;
            stats.spinDuringLockedExitNs += stats.vqLockSpinTotal() - stats.spinAtExitStart;
          }
        })
        .build();
  }

  private void buildGuestPrograms() {
    this.kickInside = Program.named("virtqueue_kick")
        .work(costs.kickPrepareNs(), "virtqueue_kick_prepare")
        .op(Ops.call(t -> vq.kickPrepare() ? notify : null))
        .build();
    this.kickPrepareOnly = Program.named("virtqueue_kick_prepare")
        .work(costs.kickPrepareNs(), "virtqueue_kick_prepare")
        .build();
    Program restart = Program.named("blk_mq_start_stopped_hw_queues")
        .work(costs.restartQueueNs(), "blk_mq_start_hw_queue")
        .run(t -> hwQueueStopped = false)
        .op(Ops.wake(t -> dispatchList.isEmpty() ? null : kblockd))
        .build();
    Program completeOne = Program.named("blk_mq_complete_request")
        .run(t -> completing = (VirtblkReq) vq.getBuf())
        .work(costs.completeNs(), "virtblk_request_done")
        .op(Ops.wake(t -> finishCompletion()))
        .op(Ops.wake(t -> tagsFree > 0 && !tagWait.isEmpty() ? tagWait.poll() : null)) // bt_clear_tag
        .build();
    Program enableCb = Program.named("virtqueue_enable_cb")
        .work(costs.enableCbNs(), "virtqueue_enable_cb")
        .run(t -> {
          if (vq.enableCb()) {
            drainDone = true;
          } else {
            vq.disableCb();
          }
        })
        .build();
    Program virtblkDone = Program.named("virtblk_done")
        .op(vqLock.lock(LockMode.IRQSAVE))
        .run(t -> {
          stats.doneRuns++;
          drainDone = false;
          vq.disableCb();
        })
        .op(Ops.loopCall(t -> vq.moreUsed() ? completeOne : drainDone ? null : enableCb))
        .op(vqLock.unlock(LockMode.IRQSAVE))
        .op(Ops.call(t -> hwQueueStopped ? restart : null))
        .build();
    Program externalInterruptExit = Program.named("kvm_vcpu_kick")
        .run(t -> stats.forcedExits++)
        .op(Ops.vmExit("EXTERNAL_INTERRUPT", Program.named("handle_external_intr").build()))
        .build();
    boolean[] forcedExitPending = state.forcedExitPending;
    Op forcedExit = Ops.call(t -> {
      int cpu = t.cpu().index();
      if (!forcedExitPending[cpu]) {
        return null;
      }
      forcedExitPending[cpu] = false;
      return externalInterruptExit; // charged where the interrupt lands, before the handler runs
    });
    if (!state.mmioLevel()) {
      this.vringInterrupt = Program.interruptHandler("vring_interrupt")
          .op(forcedExit)
          .work(costs.irqEntryNs(), "handle_edge_irq")
          .call(virtblkDone)
          .build();
    } else {
      // drivers/virtio/virtio_mmio.c 3.15 vm_interrupt: readl(INTERRUPT_STATUS), writel(ACK), then
      // vring_interrupt for each vq; each register access is an MMIO exit that QEMU handles under
      // the BQL (kvm-all.c kvm_cpu_exec: qemu_mutex_lock_iothread after KVM_RUN returns)
      Program readStatus = mmioRegisterAccess("virtio_mmio_read",
          t -> statusSeen[((VcpuTask) t).guestCpu().index()] = state.isr, false); // on the vCPU thread in QEMU
      Program writeAck = mmioRegisterAccess("virtio_mmio_write", t -> {
        state.isr = false; // vdev->isr &= ~value; virtio_update_irq -> qemu_set_irq(level 0) -> KVM_IRQ_LINE
        state.lineHigh = false;
      }, true);
      Program vring = Program.named("vring_interrupt").call(virtblkDone).build();
      Program eoi = Program.named("vgic_maintenance_handler")
          .run(t -> stats.eoiMaintenanceExits++)
          .work(costs.eoiMaintenanceNs(), "vgic_process_maintenance")
          .build();
      this.vringInterrupt = Program.interruptHandler("vm_interrupt")
          .op(forcedExit)
          .work(costs.irqEntryNs(), "gic_handle_irq")
          .op(Ops.vmExit("MMIO", readStatus))
          .op(Ops.vmExit("MMIO", writeAck))
          .op(Ops.call(t -> statusSeen[t.cpu().index()] ? vring : null))
          // GICH_LR_EOI on a level interrupt: the guest's EOI raises a maintenance interrupt
          .op(Ops.vmExit("IRQ", eoi))
          .build();
    }
    this.kblockdSubmit = submitPath(t -> kblockdBatch);
  }

  /**
   * The host side of one virtio-mmio register access from the guest: exit to QEMU ({@code
   * KVM_EXIT_MMIO}), BQL, {@code virtio_mmio_read}/{@code _write} ({@code VMM_MMIO_DISPATCH}, not the
   * notify's {@code VMM_NOTIFY_BQL}), and for the ACK the line lowered with {@code KVM_IRQ_LINE}; the
   * BQL dropped before {@code KVM_RUN}.
   */
  private Program mmioRegisterAccess(String handler, java.util.function.Consumer<Task> access, boolean lowerLine) {
    long half = costs.userspaceExitNs() / 2;
    Program.Builder b = Program.named("kvm_handle_mmio")
        .run(t -> stats.mmioRegisterExits++)
        .work(half, "kvm_arch_vcpu_ioctl_run")
        .op(Ops.vmmUserspace(true));
    if (bql != null) {
      b.op(bql.lock(LockMode.SLEEPING));
    }
    b.work(costs.registerDispatchNs(), handler).run(access);
    if (lowerLine) {
      b.work(costs.interruptInjectNs(), "kvm_set_irq");
    }
    if (bql != null) {
      b.op(bql.unlock(LockMode.SLEEPING));
    }
    return b.op(Ops.vmmUserspace(false)).work(costs.userspaceExitNs() - half, "kvm_arch_vcpu_ioctl_run").build();
  }

  private Task finishCompletion() {
    VirtblkReq vr = completing;
    completing = null;
    long now = machine.sim().now();
    vr.head = -1;
    tagsFree++;
    stats.completed++;
    stats.inFlight--;
    vr.request.markCompleted(now);
    return vr.request.completion().complete(vr.request, now);
  }

  private Program kblockdProgram() {
    Program run = Program.named("blk_mq_run_work_fn")
        .op(Ops.sleepUntil(null, t -> !hwQueueStopped && !dispatchList.isEmpty()))
        .run(t -> {
          kblockdBatch.clear();
          while (!dispatchList.isEmpty() && kblockdBatch.size() < kblockdBatch.capacity()) {
            kblockdBatch.add(dispatchList.poll());
          }
        })
        .op(Ops.call(t -> kblockdSubmit))
        .build();
    return Program.named("worker_thread").loopWhile(t -> true, run).build();
  }

  // -------------------------------------------------------------------------------------------
  // Submission.

  @Override
  public BlockRequest newRequest(BlockCompletion completion) {
    VirtblkReq vr = new VirtblkReq();
    BlockRequest r = new BlockRequest(completion, vr);
    vr.request = r;
    return r;
  }

  @Override
  public Program submitPath(Function<Task, BlockBatch> batchOf) {
    checkState(state != null, "%s: attach the device before building submission paths", name);
    Function<Task, VirtblkReq> current = t -> (VirtblkReq) batchOf.apply(t).current().driverData();
    Op addReq = Ops.run(t -> {
      VirtblkReq vr = current.apply(t);
      int head = vq.add(vr, descriptorsPerRequest);
      vr.busy = head < 0;
      vr.head = head;
    });
    Op kick = Ops.call(t -> {
      VirtblkReq vr = current.apply(t);
      if (vr.busy) {
        return kickInside; // the error path kicks under the lock in both variants
      }
      if (!batchOf.apply(t).isLast()) {
        return null;
      }
      return config.notifyMode() == VirtioBlkConfig.NotifyMode.INSIDE_LOCK ? kickInside : kickPrepareOnly;
    });
    Op prepareOutside = Ops.run(t -> {
      VirtblkReq vr = current.apply(t);
      if (!vr.busy && config.notifyMode() == VirtioBlkConfig.NotifyMode.OUTSIDE_LOCK && batchOf.apply(t).isLast()) {
        vr.notify = vq.kickPrepare();
      }
    });
    Op stopIfBusy = Ops.run(t -> {
      VirtblkReq vr = current.apply(t);
      if (vr.busy) {
        vr.busy = false;
        hwQueueStopped = true;
        stats.hwQueueStops++;
        dispatchList.add(vr.request); // under vq_lock, so a concurrent restart cannot miss it
        stats.parked++;
      }
    });
    Op notifyAfterUnlock = Ops.call(t -> {
      BlockBatch b = batchOf.apply(t);
      VirtblkReq vr = (VirtblkReq) b.current().driverData();
      if (!vr.notify) {
        return null; // no kick needed, or parked (the error path kicked under the lock)
      }
      vr.notify = false;
      return notify;
    });
    Op advance = Ops.run(t -> batchOf.apply(t).advance());
    // blk_mq_make_request: a tag per request before it reaches the driver. Take as many as are free
    // for the rest of the batch; with none free, sleep in bt_get (the plug holds nothing untagged).
    Program waitTag = Program.named("bt_get")
        .run(t -> stats.tagWaits++)
        .op(Ops.sleepUntil(tagWait, t -> tagsFree > 0))
        .build();
    Program getTags = Program.named("blk_mq_get_tag")
        .op(Ops.loopWhile(t -> {
          BlockBatch b = batchOf.apply(t);
          int k = Math.min(tagsFree, b.remainingCount());
          if (k == 0) {
            return true;
          }
          tagsFree -= k;
          b.flushUpTo(b.position() + k);
          return false;
        }, waitTag))
        .build();
    Program queueRq = Program.named("virtio_queue_rq")
        .work(costs.requestSetupNs(), "blk_rq_map_sg")
        .op(vqLock.lock(LockMode.IRQSAVE))
        .work(costs.addNs(), "virtqueue_add_sgs")
        .op(addReq)
        .op(kick)
        .op(prepareOutside)
        .op(stopIfBusy)
        .op(vqLock.unlock(LockMode.IRQSAVE))
        .op(notifyAfterUnlock)
        .op(advance)
        .build();
    Program parkOne = Program.named("blk_mq_insert_request")
        .run(t -> {
          BlockBatch b = batchOf.apply(t);
          dispatchList.add(b.current());
          stats.parked++;
          b.advance();
        })
        .build();
    Program dispatchOne = Program.named("blk_mq_make_request")
        .op(Ops.call(t -> hwQueueStopped ? parkOne : queueRq))
        .build();
    return Program.named("blk_mq_run_hw_queue")
        .run(t -> {
          BlockBatch b = batchOf.apply(t);
          if (b != kblockdBatch) {
            stats.submitted += b.size();
            stats.inFlight += b.size();
          }
        })
        .op(Ops.loopCall(t -> {
          BlockBatch b = batchOf.apply(t);
          if (!b.hasNext()) {
            return null;
          }
          if (b != kblockdBatch && b.position() >= b.flushEnd()) {
            return getTags; // parked requests of the kblockd batch hold their tags already
          }
          return dispatchOne;
        }))
        .build();
  }

  // -------------------------------------------------------------------------------------------
  // Statistics ({@link VirtioBlkStats}).

  @Override
  public long submitted() {
    return stats.submitted;
  }

  @Override
  public long completed() {
    return stats.completed;
  }

  @Override
  public long inFlight() {
    return stats.inFlight;
  }

  /** Notify exits since the last reset. */
  public long notifies() {
    return stats.notifies;
  }

  /**
   * The {@code q}-quantile (0 &lt; q &lt;= 1) of the notify exits' durations since the last reset, in
   * ns: from the vCPU's exit to its re-entry, the hardware round trip included, to the 100 ns bucket
   * (the bucket's upper edge; exits over 4 ms count as the maximum); 0 when there were none.
   */
  public long notifyExitQuantileNs(double q) {
    return stats.notifyExitQuantileNs(q);
  }

  /** Bottom halves scheduled and not yet run by QEMU's main loop (tests). */
  int pendingBottomHalves() {
    return vmm == null ? 0 : vmm.pendingBottomHalves();
  }

  /** QEMU 2.0's main loop of the main-loop device (tests); null with x-data-plane. */
  QemuMainLoop mainLoop() {
    return vmm == null ? null : vmm.mainLoop();
  }

  /** The longest notify exit since the last reset, in ns. */
  public long notifyExitMaxNs() {
    return stats.exitMaxNs;
  }

  /** Guest CPU time spinning on vq_lock (ns) from {@code virtio_queue_rq} since the last reset. */
  public long vqLockSpinNsQueueRq() {
    return stats.vqLockSpinNsQueueRq();
  }

  /** Guest CPU time spinning on vq_lock (ns) from {@code virtblk_done} since the last reset. */
  public long vqLockSpinNsDone() {
    return stats.vqLockSpinNsDone();
  }

  /** Guest CPU time spinning on vq_lock (ns) while its holder was in a notify exit, since the last reset. */
  public long vqLockSpinNsDuringNotifyExit() {
    return stats.spinDuringLockedExitNs;
  }

  @Override
  public ImmutableMap<String, Number> stats() {
    return stats.map();
  }

  @Override
  public void resetStats() {
    stats.reset();
  }

  @Override
  public String toString() {
    return name + "(" + config.notifyMode().option() + ", " + config.notifyPath() + ", " + config.vmm().option() + ", "
        + config.interruptTransport().option() + ")";
  }
}
