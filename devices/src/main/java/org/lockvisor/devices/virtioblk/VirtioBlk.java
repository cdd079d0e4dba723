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
 * <p>Host: the notify exit is priced by the {@link NotifyPath}. QEMU's main-loop thread (a host
 * task, under the global lock when modelled) runs {@code virtio_blk_handle_output} when the
 * ioeventfd fired, and for each backend completion {@code virtio_blk_rw_complete}: push used,
 * and inject the interrupt unless EVENT_IDX suppresses it.
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

  /** A device with costs from the arch profile (given at attach). */
  public VirtioBlk(String name, VirtioBlkConfig config) {
    this(name, config, null);
  }

  /** A device with explicit costs (tests, what-ifs); null takes them from the context at attach. */
  public VirtioBlk(String name, VirtioBlkConfig config, VirtioBlkCosts costs) {
    checkArgument(name != null && !name.isEmpty(), "device needs a name");
    checkArgument(config != null, "config must be set");
    this.name = name;
    this.config = config;
    this.costOverride = costs;
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
    ioeventfdSignalled = true;
  }

  @Override
  public Task mainLoopThread() {
    return mainLoop;
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
    if (config.vmmGlobalLock()) {
      this.bql = ctx.locks().create(host, vm.name() + ".qemu_global_mutex", LockKind.MUTEX);
      checkArgument(bql.supports(LockMode.SLEEPING), "VMM lock algorithm %s does not support SLEEPING", bql.algorithm());
    }
    this.vq = new Virtqueue(name + ".vq0", config.queueSize(), config.eventIdx());
    this.descriptorsPerRequest = config.indirect() ? 1 : 3;
    this.tagsFree = config.indirect() ? config.queueSize() : config.queueSize() / 2;
    this.forcedExitPending = new boolean[guest.cpuCount()];
    this.notifyPath = NotifyPath.named(config.notifyPath());
    checkArgument(config.irqCpu() < guest.cpuCount(), "irq-cpu %s does not exist in a guest with %s cpus",
        config.irqCpu(), guest.cpuCount());
    this.backend = new StorageBackend(machine.sim(), vm.name() + "/" + name + "/backend", config.backendDepth(),
        config.backendServiceNs(), config.backendExponential(), this::onBackendDone);
    buildHostPrograms();
    buildGuestPrograms();
    checkArgument(config.vmmCpu() < host.cpuCount(), "vmm-cpu %s does not exist on a host with %s cpus",
        config.vmmCpu(), host.cpuCount());
    this.mainLoop = host.spawnSleeping("qemu-" + vm.name() + "/main-loop", mainLoopProgram(), config.vmmCpu());
    this.kblockd = guest.spawnSleeping("kworker/kblockd-" + name, kblockdProgram(), -1);
    this.statsSince = machine.sim().now();
  }

  private void buildHostPrograms() {
    Program handleRequest = Program.named("virtio_blk_handle_request")
        .run(t -> t.scratchObject = vq.token(vq.pop()))
        .work(costs.hostSubmitNs(), "laio_submit")
        .run(t -> {
          Object r = t.scratchObject;
          t.scratchObject = null;
          backend.submit(r);
        })
        .build();
    this.handleOutput = Program.named("virtio_blk_handle_output")
        .op(new LoopCall(t -> vq.hasAvail() ? handleRequest : null))
        .build();
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
          if (vqLock.owner() == t) {
            notifiesUnderLock++;
            notifyUnderLockNs += d;
            spinDuringLockedExitNs += vqLockSpinTotal() - spinAtExitStart;
          }
        })
        .build();
  }

  private Program mainLoopProgram() {
    Program inject = Program.named("virtio_notify")
        .work(costs.interruptInjectNs(), "kvm_set_irq")
        .run(t -> {
          Cpu target = interruptTarget();
          if (!config.postedInterrupts() && target.vcpuTask().hostState() == VcpuTask.HostState.IN_GUEST) {
            forcedExitPending[target.index()] = true; // the kick IPI exits the running vCPU
          }
          target.raiseInterrupt(vringInterrupt);
        })
        .build();
    Program complete = Program.named("virtio_blk_rw_complete")
        .work(costs.hostCompleteNs(), "virtio_blk_rw_complete")
        .run(t -> {
          VirtblkReq vr = aioCompletions.poll();
          vq.pushUsed(vr.head);
          t.scratch = vq.needInterrupt() ? 1 : 0;
        })
        .op(Ops.call(t -> t.scratch == 1 ? inject : null))
        .build();
    Program.Builder iteration = Program.named("main_loop_wait")
        .op(Ops.sleepUntil(null, t -> ioeventfdSignalled || !aioCompletions.isEmpty()));
    if (bql != null) {
      iteration.op(bql.lock(LockMode.SLEEPING));
    }
    iteration.op(Ops.call(t -> {
      if (!ioeventfdSignalled) {
        return null;
      }
      ioeventfdSignalled = false;
      return handleOutput;
    }));
    iteration.op(new LoopCall(t -> aioCompletions.isEmpty() ? null : complete));
    if (bql != null) {
      iteration.op(bql.unlock(LockMode.SLEEPING));
    }
    Program body = iteration.build();
    return Program.named("qemu_main_loop").loopWhile(t -> true, body).build();
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
    host.wakeUpNow(mainLoop, null);
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
    this.vringInterrupt = Program.interruptHandler("vring_interrupt")
        .op(Ops.call(t -> {
          int cpu = t.cpu().index();
          if (!forcedExitPending[cpu]) {
            return null;
          }
          forcedExitPending[cpu] = false;
          return externalInterruptExit; // charged where the interrupt lands, before the handler runs
        }))
        .work(costs.irqEntryNs(), "handle_edge_irq")
        .call(virtblkDone)
        .build();
    this.kblockdSubmit = submitPath(t -> kblockdBatch);
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
    m.put("virtblk_done_runs", doneRuns);
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
    return name + "(" + config.notifyMode().option() + ", " + config.notifyPath() + ")";
  }
}
