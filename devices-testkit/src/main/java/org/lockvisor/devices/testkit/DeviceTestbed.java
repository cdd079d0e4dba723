package org.lockvisor.devices.testkit;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.lockvisor.core.plugin.OptionBinder;
import org.lockvisor.arch.builtin.X86KvmArchProfile;
import org.lockvisor.devices.spi.BlockBatch;
import org.lockvisor.devices.spi.BlockCompletion;
import org.lockvisor.devices.spi.BlockDevice;
import org.lockvisor.devices.spi.BlockRequest;
import org.lockvisor.arch.spi.ArchCosts;
import org.lockvisor.devices.spi.Device;
import org.lockvisor.devices.spi.DeviceContext;
import org.lockvisor.devices.spi.DeviceFactory;
import org.lockvisor.locking.builtin.OwnerMutexFactory;
import org.lockvisor.locking.builtin.QueuedRwlockFactory;
import org.lockvisor.locking.builtin.TicketSpinLockFactory;
import org.lockvisor.locking.builtin.XaddRwsemFactory;
import org.lockvisor.locking.spi.KernelLocks;
import org.lockvisor.arch.spi.ArchCosts;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.locking.testkit.LockTestbed;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.TaskAttachment;
import org.lockvisor.machine.TaskState;
import org.lockvisor.machine.Vm;

/**
 * A machine to run one block device on: the lock kit's {@link LockTestbed} (a host with a few
 * physical CPUs, one VM whose vCPU threads are pinned round-robin over them, optionally host "hog"
 * threads on every physical CPU so that vCPUs are preempted often; one machine testbed for both
 * kits), the device attached with the {@code x86_64-kvm} costs and
 * ticket spinlocks / owner mutexes for its locks, and {@code jobs} guest submitters.
 *
 * <p>A submitter is fio's libaio loop reduced to its protocol: fill a batch with every free slot
 * (at most {@code depth} in flight), run the device's {@link BlockDevice#submitPath}, sleep until a
 * completion has arrived ({@code io_getevents}), reap, repeat. Its {@link BlockCompletion} records
 * every completion per slot, so the kit can tell a lost request from a doubled one.
 */
public final class DeviceTestbed {
  private static final TaskAttachment<Submitter> SUBMITTER = TaskAttachment.of("testbed submitter", Submitter.class);


  private final LockTestbed machine;
  private final Vm vm;
  private final BlockDevice device;
  private final List<Submitter> submitters = new ArrayList<>();
  private boolean stopping;
  private long completionErrors;
  private String firstCompletionError;

  private DeviceTestbed(Builder b) {
    // The machine is the lock kit's testbed, the one both kits share: host and guest round-robin,
    // vCPU threads pinned round-robin, optional host hogs, the lock kit's guest kernel and costs.
    this.machine = LockTestbed.builder().seed(b.seed).physicalCpus(b.physicalCpus).vcpus(b.vcpus)
        .hostHogsPerCpu(b.hostHogsPerCpu).build();
    this.vm = machine.vm();
    ArchCosts lockCosts = machine.costs();
    // The device's context, as the framework makes it: options bound by the one binder, the
    // x86_64-kvm profile's costs, the kernel locks (spinlock ticket, mutex owner, rwsem xadd, qrwlock).
    KernelLocks locks = KernelLocks.of(lockCosts, kind -> switch (kind) {
      case SPINLOCK -> new TicketSpinLockFactory();
      case MUTEX -> new OwnerMutexFactory();
      case RWSEM -> new XaddRwsemFactory();
      case RWLOCK -> new QueuedRwlockFactory();
      case OSQ -> throw new IllegalArgumentException("no OSQ for devices");
    });
    DeviceContext context = DeviceContext.of("vdk", OptionBinder.bind(b.factory, b.options),
        ArchCosts.of(new X86KvmArchProfile().create()), locks, vm);
    Device created = b.factory.create(context);
    checkArgument(created instanceof BlockDevice, "device plugin [%s] does not create a BlockDevice: %s",
        b.factory.name(), created.getClass().getName());
    this.device = (BlockDevice) created;
    device.attach(context);
    Program submitPath = device.submitPath(t -> submitter(t).batch);
    Program iteration = Program.named("kit_io_loop")
        .run(t -> submitter(t).prepare())
        .op(Ops.call(t -> submitter(t).batch.size() > 0 ? submitPath : null))
        .op(Ops.sleepUntil(null, t -> !submitter(t).done.isEmpty() || submitter(t).inFlight == 0))
        .run(t -> submitter(t).reap())
        // fio's user-space work per round, and the return to user space where a non-preemptible
        // guest reschedules: a submitter whose completions are all inline never sleeps.
        .userWork(500, "kit_user")
        .op(Ops.condResched())
        .build();
    Program loop = Program.named("kit_submitter")
        .loopWhile(t -> !(stopping && submitter(t).inFlight == 0), iteration)
        .build();
    for (int i = 0; i < b.jobs; i++) {
      Submitter s = new Submitter(b.depth);
      submitters.add(s);
      s.task = vm.guest().spawn("kit/job" + i, loop);
      SUBMITTER.set(s.task, s);
    }
  }

  public static Builder builder(DeviceFactory factory) {
    return new Builder(factory);
  }

  private static Submitter submitter(Task t) {
    return SUBMITTER.get(t);
  }

  public Machine machine() {
    return machine.machine();
  }

  /** The machine testbed this device runs on (shared with the lock kit). */
  public LockTestbed testbed() {
    return machine;
  }

  public Vm vm() {
    return vm;
  }

  public BlockDevice device() {
    return device;
  }

  /** Runs the simulation until {@code ns} of simulated time. */
  public void runUntil(long ns) {
    machine.sim().runUntil(ns);
  }

  /** Submitters issue nothing more; they exit once their last request has completed. */
  public void stopSubmitting() {
    stopping = true;
  }

  /** Requests submitted by every submitter. */
  public long submitted() {
    return submitters.stream().mapToLong(s -> s.submitted).sum();
  }

  /** Completions delivered to every submitter. */
  public long completed() {
    return submitters.stream().mapToLong(s -> s.completed).sum();
  }

  /** Completions reaped per submitter (a submitter that was never woken reaps nothing). */
  public List<Long> reapedPerSubmitter() {
    return submitters.stream().map(s -> s.reaped).toList();
  }

  /** Requests in flight (submitted, not completed) summed over submitters. */
  public long inFlight() {
    return submitters.stream().mapToLong(s -> s.inFlight).sum();
  }

  /** Submitter tasks that have exited. */
  public long exitedSubmitters() {
    return submitters.stream().filter(s -> s.task.state() == TaskState.DEAD).count();
  }

  /** Sum of completion latencies (completeNs - submitNs) over every completion, in ns. */
  public long latencySumNs() {
    return submitters.stream().mapToLong(s -> s.latencySumNs).sum();
  }

  /** Completions that broke the protocol (a second completion of one submission, time going back). */
  public long completionErrors() {
    return completionErrors;
  }

  /** The first protocol error, for a failure message; null when there was none. */
  public String firstCompletionError() {
    return firstCompletionError;
  }

  /** Slots with a submission that has not completed. */
  public long unfinishedSlots() {
    return submitters.stream().flatMap(s -> s.slots.stream()).filter(slot -> slot.submissions != slot.completions)
        .count();
  }

  private void error(String message) {
    completionErrors++;
    if (firstCompletionError == null) {
      firstCompletionError = message + " at " + machine.sim().now() + " ns";
    }
  }

  /** One request slot's record: how often it was submitted and completed. */
  private static final class Slot {
    BlockRequest request;
    long submissions;
    long completions;
  }

  private final class Submitter implements BlockCompletion {
    final List<Slot> slots = new ArrayList<>();
    final ArrayDeque<BlockRequest> free;
    final ArrayDeque<BlockRequest> done;
    final BlockBatch batch;
    Task task;
    long submitted;
    long completed;
    long reaped;
    long inFlight;
    long latencySumNs;
    long nextSector;

    Submitter(int depth) {
      this.free = new ArrayDeque<>(depth);
      this.done = new ArrayDeque<>(depth);
      this.batch = new BlockBatch(depth);
      for (int i = 0; i < depth; i++) {
        Slot slot = new Slot();
        slot.request = device.newRequest(this);
        slot.request.owner = slot;
        slots.add(slot);
        free.add(slot.request);
      }
    }

    void prepare() {
      batch.clear();
      if (stopping) {
        return;
      }
      long now = machine.sim().now();
      while (!free.isEmpty()) {
        BlockRequest r = free.poll();
        r.set(BlockRequest.Direction.READ, nextSector, 4096);
        nextSector += 8;
        r.markSubmitted(now);
        ((Slot) r.owner).submissions++;
        batch.add(r);
        submitted++;
        inFlight++;
      }
    }

    @Override
    public Task complete(BlockRequest request, long nowNs) {
      Slot slot = (Slot) request.owner;
      if (slot == null || !slots.contains(slot)) {
        error("completion of a request this submitter does not own");
        return null;
      }
      if (slot.completions >= slot.submissions) {
        error("request completed twice (" + (slot.completions + 1) + " completions of " + slot.submissions
            + " submissions)");
        return null;
      }
      if (request.completeNs() != nowNs || nowNs < request.submitNs()) {
        error("completion stamped " + request.completeNs() + " ns (submitted " + request.submitNs()
            + " ns, completed now " + nowNs + " ns): call markCompleted(now) before complete()");
      }
      slot.completions++;
      completed++;
      inFlight--;
      latencySumNs += nowNs - request.submitNs();
      done.add(request);
      return task.state() == TaskState.RUNNING ? null : task;
    }

    void reap() {
      while (!done.isEmpty()) {
        free.add(done.poll());
        reaped++;
      }
    }
  }

  /** Builds a {@link DeviceTestbed}. */
  public static final class Builder {
    private final DeviceFactory factory;
    private Map<String, String> options = Map.of();
    private long seed = 1;
    private int physicalCpus = 2;
    private int vcpus = 2;
    private int hostHogsPerCpu;
    private int jobs = 2;
    private int depth = 4;

    private Builder(DeviceFactory factory) {
      checkArgument(factory != null, "factory must be set");
      this.factory = factory;
    }

    public Builder options(Map<String, String> options) {
      this.options = Map.copyOf(options);
      return this;
    }

    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    public Builder physicalCpus(int n) {
      checkArgument(n > 0, "physical cpus must be positive: %s", n);
      this.physicalCpus = n;
      return this;
    }

    public Builder vcpus(int n) {
      checkArgument(n > 0, "vcpus must be positive: %s", n);
      this.vcpus = n;
      return this;
    }

    /** Host threads pinned to every physical CPU that compete with the vCPU threads. */
    public Builder hostHogsPerCpu(int n) {
      checkArgument(n >= 0, "hogs must not be negative: %s", n);
      this.hostHogsPerCpu = n;
      return this;
    }

    public Builder jobs(int n) {
      checkArgument(n > 0, "jobs must be positive: %s", n);
      this.jobs = n;
      return this;
    }

    /** Requests each submitter keeps in flight at most. */
    public Builder depth(int n) {
      checkArgument(n > 0, "depth must be positive: %s", n);
      this.depth = n;
      return this;
    }

    public DeviceTestbed build() {
      checkState(factory != null, "no factory");
      return new DeviceTestbed(this);
    }
  }
}
