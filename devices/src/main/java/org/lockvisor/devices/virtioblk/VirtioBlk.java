package org.lockvisor.devices.virtioblk;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import com.google.common.collect.ImmutableMap;
import java.util.ArrayDeque;
import java.util.function.Function;
import org.lockvisor.core.account.CpuTimeAccount;
import org.lockvisor.core.account.SymbolTable;
import org.lockvisor.devices.spi.BlockBatch;
import org.lockvisor.devices.spi.BlockCompletion;
import org.lockvisor.devices.spi.BlockDevice;
import org.lockvisor.devices.spi.BlockRequest;
import org.lockvisor.devices.spi.DeviceContext;
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
import org.lockvisor.machine.Task;
import org.lockvisor.machine.VcpuTask;
import org.lockvisor.machine.Vm;
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
 */
public final class VirtioBlk implements BlockDevice, VmmSide {
  static final String VQ_LOCK_SPIN = LockMode.IRQSAVE.lockSymbol();

  private final String name;
  private final VirtioBlkConfig config;
  private final VirtioBlkCosts costOverride;
  private final QueuePolicy policyOverride;
  private QueuePolicy policy;

  private VirtioBlkCosts costs;
  private Machine machine;
  private Kernel guest;
  private Kernel host;
  private KernelLock vqLock;
  private KernelLock bql;
  private Virtqueue vq;
  private NotifyPath notifyPath;
  private StorageBackend backend;
  private Task mainLoop;
  private Task kblockd;
  private int descriptorsPerRequest;

  // guest driver state (under vq_lock)
  private boolean hwQueueStopped;
  private final ArrayDeque<BlockRequest> dispatchList = new ArrayDeque<>();
  private VirtblkReq completing;
  private boolean drainDone;
  private final BlockBatch kblockdBatch = new BlockBatch(256);
  private int nextIrqCpu;
  private int tagsFree;
  private final WaitQueue tagWait = new WaitQueue("blk_mq_bitmap_tags.wait");
  private long tagWaits;
  private boolean[] forcedExitPending = new boolean[0];
  private long forcedExits;

  // host VMM state
  private boolean ioeventfdSignalled;
  private final ArrayDeque<VirtblkReq> aioCompletions = new ArrayDeque<>();
  // QEMU 2.0 main loop: bottom halves scheduled by completed coroutines, zero-timeout spins
  private final ArrayDeque<VirtblkReq> bottomHalves = new ArrayDeque<>();
  private int spinCounter;
  private long mainLoopIterations;
  private long bqlHeldIterations;
  private long forcedPollTimeouts;
  // QEMU 2.0 x-data-plane thread
  private Task ioThread;
  private boolean hostNotifierSet;
  private final ArrayDeque<VirtblkReq> ioqBatch = new ArrayDeque<>();
  private int ioqReap;
  private long ioqSubmits;
  private long iocbsSubmitted;
  // virtio-mmio level interrupt: the device's ISR and the line as KVM_IRQ_LINE left it
  private boolean isr;
  private boolean lineHigh;
  private boolean[] statusSeen = new boolean[0];
  private long mmioRegisterExits;
  private long eoiMaintenanceExits;

  // programs
  private Program notify;
  private Program kickInside;
  private Program kickPrepareOnly;
  private Program vringInterrupt;
  private Program handleOutput;
  private Program kblockdSubmit;

  // statistics
  private long inFlight;
  private long submitted;
  private long completed;
  private long parked;
  private long hwQueueStops;
  private long notifies;
  private long notifyNs;
  private long notifiesUnderLock;
  private long notifyUnderLockNs;
  private long doneRuns;
  private long spinAtExitStart;
  private long spinDuringLockedExitNs;
  private byte[] stackClass = new byte[0]; // per stack id: 0 unknown, 1 other, 2 queue_rq spin, 3 done spin
  private boolean[] guestCpu = new boolean[0];
  // The account entries (cpu, thread, stack triples) of each spin kind, found by the last full
  // scan, and the account's entry count then: spinUnder sums these and rescans only new entries.
  private int[][] spinEntries = {new int[0], new int[0], new int[0], new int[0]};
  private int[] spinEntryCount = new int[4];
  private int scannedEntries = -1;
  private long statsSince;
  private long spinBaseQueueRq;
  private long spinBaseDone;
  // notify exit durations, 1 µs buckets; the last bucket collects everything longer
  static final int EXIT_HISTOGRAM_BUCKETS = 4001;
  private final long[] exitHistogram = new long[EXIT_HISTOGRAM_BUCKETS];
  private long exitMaxNs;

  /**
   * QEMU 2.0 main-loop.c {@code MAX_MAIN_LOOP_SPIN}: zero-timeout iterations (the BQL kept) before
   * {@code os_host_main_loop_wait} forces a timeout and drops the BQL.
   */
  public static final int MAX_MAIN_LOOP_SPIN = 1000;

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

  /** Per-request driver state ({@code struct virtblk_req}). */
  static final class VirtblkReq {
    BlockRequest request;
    int head = -1;
    boolean busy;
    boolean notify;
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

  @Override
  public VirtioBlkCosts costs() {
    return costs;
  }

  public Virtqueue virtqueue() {
    return vq;
  }

  public KernelLock vqLock() {
    return vqLock;
  }

  @Override
  public KernelLock globalLock() {
    return bql;
  }

  @Override
  public Program handleOutput() {
    return handleOutput;
  }

  @Override
  public void signalMainLoop() {
    if (dataplane()) {
      hostNotifierSet = true; // the dataplane thread's host notifier (the same ioeventfd)
    } else {
      ioeventfdSignalled = true;
    }
  }

  /** The host thread that polls the ioeventfd: QEMU's main loop, or the dataplane thread. */
  @Override
  public Task mainLoopThread() {
    return dataplane() ? ioThread : mainLoop;
  }

  private boolean dataplane() {
    return config.vmm() == VirtioBlkConfig.Vmm.QEMU_2_0_DATAPLANE;
  }

  private boolean mmioLevel() {
    return config.interruptTransport() == VirtioBlkConfig.InterruptTransport.MMIO_LEVEL;
  }

  // -------------------------------------------------------------------------------------------
  // Attach: locks, ring, programs, host and guest threads.

  @Override
  public void attach(DeviceContext ctx) {
    checkState(machine == null, "%s is attached already", name);
    Vm vm = ctx.vm();
    this.machine = ctx.machine();
    this.guest = vm.guest();
    this.host = machine.host();
    this.costs = costOverride != null ? costOverride : VirtioBlkCosts.from(ctx.costs());
    this.vqLock = ctx.locks().create(guest, name + ".vq_lock", LockKind.SPINLOCK);
    checkArgument(vqLock.supports(LockMode.IRQSAVE), "vq_lock algorithm %s does not support IRQSAVE", vqLock.algorithm());
    if (config.vmmGlobalLock() && config.vmm() != VirtioBlkConfig.Vmm.QEMU_2_0_DATAPLANE) {
      // the dataplane thread never takes the BQL, and nothing else of this device does
      this.bql = ctx.locks().create(host, vm.name() + ".qemu_global_mutex", LockKind.MUTEX);
      checkArgument(bql.supports(LockMode.SLEEPING), "VMM lock algorithm %s does not support SLEEPING", bql.algorithm());
    }
    this.vq = new Virtqueue(name + ".vq0", config.queueSize(), config.eventIdx());
    this.descriptorsPerRequest = config.indirect() ? 1 : 3;
    this.tagsFree = config.indirect() ? config.queueSize() : config.queueSize() / 2;
    this.forcedExitPending = new boolean[guest.cpuCount()];
    this.statusSeen = new boolean[guest.cpuCount()];
    this.policy = policyOverride != null ? policyOverride : config.resolveQueuePolicy();
    this.notifyPath = NotifyPath.named(config.notifyPath());
    checkArgument(config.irqCpu() < guest.cpuCount(), "irq-cpu %s does not exist in a guest with %s cpus",
        config.irqCpu(), guest.cpuCount());
    this.backend = new StorageBackend(machine.sim(), vm.name() + "/" + name + "/backend", config.backendDepth(),
        config.backendServiceNs(), config.backendExponential(), this::onBackendDone);
    buildHostPrograms();
    buildGuestPrograms();
    checkArgument(config.vmmCpu() < host.cpuCount(), "vmm-cpu %s does not exist on a host with %s cpus",
        config.vmmCpu(), host.cpuCount());
    if (dataplane()) {
      this.ioThread = host.spawnSleeping("qemu-" + vm.name() + "/" + name + "-dataplane", dataplaneProgram(),
          config.vmmCpu());
    } else {
      this.mainLoop = host.spawnSleeping("qemu-" + vm.name() + "/main-loop", mainLoopProgram(), config.vmmCpu());
    }
    this.kblockd = guest.spawnSleeping("kworker/kblockd-" + name, kblockdProgram(), -1);
    this.statsSince = machine.sim().now();
  }

  private void buildHostPrograms() {
    Program handleRequest = Program.named("virtio_blk_handle_request")
        .run(t -> t.scratchObject = vq.token(policy.pop(vq)))
        .work(costs.hostSubmitNs(), "laio_submit")
        .run(t -> {
          Object r = t.scratchObject;
          t.scratchObject = null;
          backend.submit(r);
        })
        .build();
    this.handleOutput = popLoop("virtio_blk_handle_output", handleRequest);
    this.notify = Program.named("virtqueue_notify")
        .run(t -> {
          t.scratch2 = machine.sim().now();
          if (vqLock.owner() == t) {
            spinAtExitStart = vqLockSpinTotal();
          }
        })
        .op(Ops.vmExit(notifyPath.exitReason(), notifyPath.hostHandler(this)))
        .run(t -> {
          long d = machine.sim().now() - t.scratch2;
          notifies++;
          notifyNs += d;
          exitHistogram[(int) Math.min(d / 1000, EXIT_HISTOGRAM_BUCKETS - 1)]++;
          exitMaxNs = Math.max(exitMaxNs, d);
          if (vqLock.owner() == t) {
            notifiesUnderLock++;
            notifyUnderLockNs += d;
            spinDuringLockedExitNs += vqLockSpinTotal() - spinAtExitStart;
          }
        })
        .build();
  }

  /**
   * One processing pass as the queue policy runs it: {@code beforePopLoop}, {@code perRequest}
   * while the ring has entries, {@code afterPopLoop}, and again while that says more arrived.
   */
  private Program popLoop(String function, Program perRequest) {
    Program again = Program.named("virtio_queue_set_notification").run(t -> policy.beforePopLoop(vq)).build();
    return Program.named(function)
        .run(t -> policy.beforePopLoop(vq))
        .op(new LoopCall(t -> vq.hasAvail() ? perRequest : policy.afterPopLoop(vq) ? again : null))
        .build();
  }

  /**
   * {@code virtio_notify}: {@code kvm_set_irq} on the VMM thread, then the interrupt. With a
   * level-triggered virtio-mmio line ({@code virtio_mmio_update_irq} -> {@code qemu_set_irq}),
   * the ISR bit is set and the guest is interrupted only when the line goes from low to high; the
   * ioctl is paid either way (QEMU 2.0 {@code kvm_arm_gic_set_irq} calls {@code kvm_set_irq} on
   * every update).
   */
  private Program injectProgram() {
    return Program.named("virtio_notify")
        .work(costs.interruptInjectNs(), "kvm_set_irq")
        .run(t -> {
          if (mmioLevel()) {
            isr = true;
            if (lineHigh) {
              return;
            }
            lineHigh = true;
          }
          Cpu target = interruptTarget();
          if (!config.postedInterrupts() && target.vcpuTask().hostState() == VcpuTask.HostState.IN_GUEST) {
            forcedExitPending[target.index()] = true; // the kick IPI exits the running vCPU
          }
          target.raiseInterrupt(vringInterrupt);
        })
        .build();
  }

  /**
   * QEMU 2.0's main loop ({@code main-loop.c main_loop_wait -> os_host_main_loop_wait}), one
   * iteration: when bottom halves are pending the timeout is zero ({@code aio_ctx_prepare}), and a
   * zero timeout keeps the BQL across the poll ({@code spin_counter++}) until
   * {@link #MAX_MAIN_LOOP_SPIN} such iterations force a timeout; otherwise the BQL is dropped
   * around {@code qemu_poll_ns}. Then, under the BQL: {@code aio_ctx_dispatch -> aio_poll}:
   * {@code aio_bh_poll} runs the pending bottom halves ({@code bdrv_co_em_bh ->
   * virtio_blk_rw_complete}: push, {@code virtio_notify}), then the linux-aio eventfd handler
   * ({@code block/linux-aio.c qemu_laio_completion_cb}: {@code io_getevents}, and per completion
   * the coroutine re-entered, which schedules its bottom half: {@code block.c bdrv_co_do_rw});
   * then {@code qemu_iohandler_poll} runs the ioeventfd handler ({@code
   * virtio_queue_host_notifier_read -> virtio_blk_handle_output}).
   */
  private Program mainLoopProgram() {
    Program inject = injectProgram();
    Program complete = Program.named("virtio_blk_rw_complete")
        .work(costs.hostCompleteNs(), "virtio_blk_rw_complete")
        .run(t -> {
          VirtblkReq vr = bottomHalves.poll();
          vq.pushUsed(vr.head);
          t.scratch = vq.needInterrupt() ? 1 : 0;
        })
        .op(Ops.call(t -> t.scratch == 1 ? inject : null))
        .build();
    Program laio = Program.named("qemu_laio_completion_cb")
        .work(costs.syscallNs(), "io_getevents")
        .run(t -> {
          while (!aioCompletions.isEmpty()) {
            bottomHalves.add(aioCompletions.poll()); // bdrv_co_io_em_complete -> ... -> qemu_bh_schedule
          }
        })
        .build();
    Program spinPoll = Program.named("os_host_main_loop_wait")
        .run(t -> {
          spinCounter++;
          bqlHeldIterations++;
        })
        .work(costs.syscallNs(), "qemu_poll_ns")
        .build();
    Program.Builder release = Program.named("os_host_main_loop_wait")
        .run(t -> {
          if (!bottomHalves.isEmpty()) {
            forcedPollTimeouts++; // spun MAX_MAIN_LOOP_SPIN times: timeout = SCALE_MS
          }
          spinCounter = 0;
        });
    if (bql != null) {
      release.op(bql.unlock(LockMode.SLEEPING));
    }
    release.op(Ops.sleepUntil(null, t -> ioeventfdSignalled || !aioCompletions.isEmpty() || !bottomHalves.isEmpty()))
        .work(costs.syscallNs(), "qemu_poll_ns");
    if (bql != null) {
      release.op(bql.lock(LockMode.SLEEPING));
    }
    Program releaseAndPoll = release.build();
    Program iteration = Program.named("main_loop_wait")
        .run(t -> mainLoopIterations++)
        .op(Ops.call(t -> !bottomHalves.isEmpty() && spinCounter <= MAX_MAIN_LOOP_SPIN ? spinPoll : releaseAndPoll))
        .op(new LoopCall(t -> bottomHalves.isEmpty() ? null : complete)) // aio_bh_poll
        .op(Ops.call(t -> aioCompletions.isEmpty() ? null : laio))
        .op(Ops.call(t -> {
          if (!ioeventfdSignalled) {
            return null;
          }
          ioeventfdSignalled = false;
          return handleOutput;
        }))
        .build();
    Program.Builder main = Program.named("qemu_main_loop");
    if (bql != null) {
      main.op(bql.lock(LockMode.SLEEPING)); // qemu_init_main_loop: the main loop runs holding the BQL
    }
    return main.loopWhile(t -> true, iteration).build();
  }

  /**
   * QEMU 2.0 {@code x-data-plane} ({@code hw/block/dataplane/virtio-blk.c}): {@code
   * data_plane_thread} loops in {@code aio_poll(ctx, true)} on its own AioContext, no BQL. The
   * host notifier (the ioeventfd) runs {@code handle_notify}: the queue policy's pop loop
   * ({@code vring_pop} + {@code process_request}, which only prepares an iocb with {@code ioq_rdwr})
   * and then one {@code ioq_submit} for the whole batch. The linux-aio eventfd runs {@code
   * handle_io}: {@code ioq_run_completion} ({@code io_getevents}, {@code complete_request} and
   * {@code vring_push} per event) and one {@code notify_guest} ({@code vring_should_notify}, then
   * {@code event_notifier_set} on the irqfd) for the batch.
   */
  private Program dataplaneProgram() {
    Program inject = injectProgram();
    Program processRequest = Program.named("process_request")
        .run(t -> ioqBatch.add((VirtblkReq) vq.token(policy.pop(vq))))
        .work(costs.dataplaneSubmitNs(), "ioq_rdwr")
        .build();
    Program popAll = popLoop("vring_pop_loop", processRequest);
    Program ioqSubmit = Program.named("ioq_submit")
        .work(costs.syscallNs(), "io_submit")
        .run(t -> {
          ioqSubmits++;
          iocbsSubmitted += ioqBatch.size();
          while (!ioqBatch.isEmpty()) {
            backend.submit(ioqBatch.poll());
          }
        })
        .build();
    Program handleNotify = Program.named("handle_notify")
        .run(t -> hostNotifierSet = false) // event_notifier_test_and_clear
        .call(popAll)
        .op(Ops.call(t -> ioqBatch.isEmpty() ? null : ioqSubmit))
        .build();
    Program completeRequest = Program.named("complete_request")
        .work(costs.dataplaneCompleteNs(), "vring_push")
        .run(t -> {
          ioqReap--;
          vq.pushUsed(aioCompletions.poll().head);
        })
        .build();
    Program handleIo = Program.named("handle_io")
        .work(costs.syscallNs(), "io_getevents")
        .run(t -> ioqReap = aioCompletions.size()) // the events io_getevents returned
        .op(new LoopCall(t -> ioqReap > 0 ? completeRequest : null))
        .op(Ops.call(t -> vq.needInterrupt() ? inject : null)) // notify_guest, once per batch
        .build();
    Program poll = Program.named("aio_poll")
        .op(Ops.sleepUntil(null, t -> hostNotifierSet || !aioCompletions.isEmpty()))
        .op(Ops.call(t -> hostNotifierSet ? handleNotify : null))
        .op(Ops.call(t -> aioCompletions.isEmpty() ? null : handleIo))
        .build();
    return Program.named("data_plane_thread").loopWhile(t -> true, poll).build();
  }

  private Cpu interruptTarget() {
    if (config.irqCpu() >= 0) {
      return guest.cpu(config.irqCpu());
    }
    Cpu c = guest.cpu(nextIrqCpu);
    nextIrqCpu = (nextIrqCpu + 1) % guest.cpuCount();
    return c;
  }

  private void onBackendDone(Object r) {
    aioCompletions.add((VirtblkReq) r);
    host.wakeUpNow(dataplane() ? ioThread : mainLoop, null);
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
          doneRuns++;
          drainDone = false;
          vq.disableCb();
        })
        .op(new LoopCall(t -> vq.moreUsed() ? completeOne : drainDone ? null : enableCb))
        .op(vqLock.unlock(LockMode.IRQSAVE))
        .op(Ops.call(t -> hwQueueStopped ? restart : null))
        .build();
    Program externalInterruptExit = Program.named("kvm_vcpu_kick")
        .run(t -> forcedExits++)
        .op(Ops.vmExit("EXTERNAL_INTERRUPT", Program.named("handle_external_intr").build()))
        .build();
    Op forcedExit = Ops.call(t -> {
      int cpu = t.cpu().index();
      if (!forcedExitPending[cpu]) {
        return null;
      }
      forcedExitPending[cpu] = false;
      return externalInterruptExit; // charged where the interrupt lands, before the handler runs
    });
    if (!mmioLevel()) {
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
          t -> statusSeen[((VcpuTask) t).guestCpu().index()] = isr, false); // on the vCPU thread in QEMU
      Program writeAck = mmioRegisterAccess("virtio_mmio_write", t -> {
        isr = false; // vdev->isr &= ~value; virtio_update_irq -> qemu_set_irq(level 0) -> KVM_IRQ_LINE
        lineHigh = false;
      }, true);
      Program vring = Program.named("vring_interrupt").call(virtblkDone).build();
      Program eoi = Program.named("vgic_maintenance_handler")
          .run(t -> eoiMaintenanceExits++)
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
   * KVM_EXIT_MMIO}), BQL, {@code virtio_mmio_read}/{@code _write}, and for the ACK the line
   * lowered with {@code KVM_IRQ_LINE}; the BQL dropped before {@code KVM_RUN}.
   */
  private Program mmioRegisterAccess(String handler, java.util.function.Consumer<Task> access, boolean lowerLine) {
    long half = costs.userspaceExitNs() / 2;
    Program.Builder b = Program.named("kvm_handle_mmio")
        .run(t -> mmioRegisterExits++)
        .work(half, "kvm_arch_vcpu_ioctl_run")
        .op(Ops.vmmUserspace(true));
    if (bql != null) {
      b.op(bql.lock(LockMode.SLEEPING));
    }
    b.work(costs.mmioDispatchNs(), handler).run(access);
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
    completed++;
    inFlight--;
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
    checkState(machine != null, "%s: attach the device before building submission paths", name);
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
        hwQueueStops++;
        dispatchList.add(vr.request); // under vq_lock, so a concurrent restart cannot miss it
        parked++;
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
        .run(t -> tagWaits++)
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
          parked++;
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
            submitted += b.size();
            inFlight += b.size();
          }
        })
        .op(new LoopCall(t -> {
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
  // Statistics.

  @Override
  public long submitted() {
    return submitted;
  }

  @Override
  public long completed() {
    return completed;
  }

  @Override
  public long inFlight() {
    return inFlight;
  }

  /** Notify exits since the last reset. */
  public long notifies() {
    return notifies;
  }

  /**
   * The {@code q}-quantile (0 &lt; q &lt;= 1) of the notify exits' durations since the last reset, in
   * ns, to the 1 µs bucket (the bucket's upper edge; exits over 4 ms count as the maximum); 0 when
   * there were none.
   */
  public long notifyExitQuantileNs(double q) {
    checkArgument(q > 0 && q <= 1, "quantile must be in (0, 1]: %s", q);
    if (notifies == 0) {
      return 0;
    }
    long rank = (long) Math.ceil(q * notifies);
    long seen = 0;
    for (int i = 0; i < EXIT_HISTOGRAM_BUCKETS - 1; i++) {
      seen += exitHistogram[i];
      if (seen >= rank) {
        return Math.min((i + 1) * 1000L, exitMaxNs);
      }
    }
    return exitMaxNs;
  }

  /** Bottom halves scheduled and not yet run by QEMU's main loop (tests). */
  int pendingBottomHalves() {
    return bottomHalves.size();
  }

  /** The longest notify exit since the last reset, in ns. */
  public long notifyExitMaxNs() {
    return exitMaxNs;
  }

  /** Guest CPU time spinning on vq_lock (ns) from {@code virtio_queue_rq} since the last reset. */
  public long vqLockSpinNsQueueRq() {
    return spinUnder("virtio_queue_rq") - spinBaseQueueRq;
  }

  /** Guest CPU time spinning on vq_lock (ns) from {@code virtblk_done} since the last reset. */
  public long vqLockSpinNsDone() {
    return spinUnder("virtblk_done") - spinBaseDone;
  }

  /** Guest CPU time spinning on vq_lock (ns) while its holder was in a notify exit, since the last reset. */
  public long vqLockSpinNsDuringNotifyExit() {
    return spinDuringLockedExitNs;
  }

  private long vqLockSpinTotal() {
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
    if (machine == null) {
      return 0;
    }
    machine.syncAccounting();
    CpuTimeAccount account = machine.account();
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
    SymbolTable symbols = machine.symbols();
    if (guestCpu.length == 0) {
      int max = 0;
      for (Cpu c : guest.cpus()) {
        max = Math.max(max, c.id() + 1);
      }
      guestCpu = new boolean[max];
      for (Cpu c : guest.cpus()) {
        guestCpu[c.id()] = true;
      }
    }
    int queueRqSym = symbols.symbol("virtio_queue_rq", Machine.DOMAIN_KERNEL);
    int doneSym = symbols.symbol("virtblk_done", Machine.DOMAIN_KERNEL);
    int spinSym = symbols.symbol(VQ_LOCK_SPIN, Machine.DOMAIN_KERNEL);
    java.util.Arrays.fill(spinEntryCount, 0);
    account.forEach((cpu, thread, stack, ns) -> {
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

  @Override
  public ImmutableMap<String, Number> stats() {
    long now = machine == null ? 0 : machine.sim().now();
    ImmutableMap.Builder<String, Number> m = ImmutableMap.builder();
    m.put("submitted", submitted);
    m.put("completed", completed);
    m.put("in_flight", inFlight);
    m.put("parked", parked);
    m.put("hw_queue_stops", hwQueueStops);
    m.put("tag_waits", tagWaits);
    if (vq != null) {
      m.put("vq.adds", vq.adds());
      m.put("vq.ring_full", vq.addsRingFull());
      m.put("vq.kicks", vq.kicks());
      m.put("vq.kicks_suppressed", vq.kicksSuppressed());
      m.put("vq.interrupts", vq.interrupts());
      m.put("vq.interrupts_suppressed", vq.interruptsSuppressed());
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
    if (vqLock != null) {
      m.put("vq_lock.acquisitions", vqLock.stats().acquisitions());
      m.put("vq_lock.contentions", vqLock.stats().contentions());
      m.put("vq_lock.wait_total_ns", vqLock.stats().waitTotalNs());
    }
    if (bql != null) {
      m.put("vmm_lock.acquisitions", bql.stats().acquisitions());
      m.put("vmm_lock.contentions", bql.stats().contentions());
    }
    if (backend != null) {
      m.put("backend.served", backend.served());
      m.put("backend.utilisation", backend.utilisation(statsSince));
    }
    m.put("elapsed_ns", now - statsSince);
    return m.build();
  }

  @Override
  public void resetStats() {
    submitted = completed = parked = hwQueueStops = tagWaits = 0;
    notifies = notifyNs = notifiesUnderLock = notifyUnderLockNs = doneRuns = spinDuringLockedExitNs = forcedExits = 0;
    mainLoopIterations = bqlHeldIterations = forcedPollTimeouts = mmioRegisterExits = eoiMaintenanceExits = 0;
    ioqSubmits = iocbsSubmitted = 0;
    java.util.Arrays.fill(exitHistogram, 0);
    exitMaxNs = 0;
    if (vq != null) {
      vq.resetStats();
      vqLock.stats().reset();
      if (bql != null) {
        bql.stats().reset();
      }
      backend.resetStats();
      spinBaseQueueRq = spinUnder("virtio_queue_rq");
      spinBaseDone = spinUnder("virtblk_done");
      statsSince = machine.sim().now();
    }
  }

  @Override
  public String toString() {
    return name + "(" + config.notifyMode().option() + ", " + config.notifyPath() + ", " + config.vmm().option() + ", "
        + config.interruptTransport().option() + ")";
  }
}
