package org.lockvisor.reproductions.virtioblk;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.List;
import java.util.Map;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.HypervisorBehaviour;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.devices.spi.CostSource;
import org.lockvisor.devices.spi.DeviceContext;
import org.lockvisor.devices.spi.LockProvider;
import org.lockvisor.experiment.check.Checks;
import org.lockvisor.experiment.report.RunCapture;
import org.lockvisor.devices.virtioblk.VirtioBlk;
import org.lockvisor.devices.virtioblk.VirtioBlkConfig;
import org.lockvisor.devices.virtioblk.VirtioBlkConfig.NotifyMode;
import org.lockvisor.locking.builtin.CountMutexFactory;
import org.lockvisor.locking.builtin.TicketSpinLockFactory;
import org.lockvisor.locking.spi.LockCosts;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockFactory.LockKind;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.TtwuQueueMode;
import org.lockvisor.machine.Vm;
import org.lockvisor.platform.Platforms;
import org.lockvisor.scheduler.builtin.CfsScheduler;
import org.lockvisor.workloads.fio.FioConfig;
import org.lockvisor.workloads.fio.FioCosts;
import org.lockvisor.workloads.fio.FioWorkload;
import org.lockvisor.workloads.spi.WorkloadContext;

/**
 * One fio-on-virtio-blk run, assembled from an arch profile and the built-in plugins only: the
 * profile's host topology (CFS, vCPU and VMM threads floating), a 3.15-era guest (ticket
 * spinlocks, CFS, TTWU_QUEUE across LLCs), the VMM's global lock as a sleeping lock without
 * optimistic spinning (a futex-based pthread mutex), every cost from the profile's table.
 *
 * <p>What the scenario chooses (not costs): the notify variant, the notify path the profile's
 * hypervisor prescribes, the fio job, and the storage backend (a fast device that is not the
 * bottleneck; the seed does not name it).
 */
final class NotifyScenario {
  static final long MS = 1_000_000;

  /** Backend: parallel requests and mean service time (exponential), see the class comment. */
  static final int BACKEND_DEPTH = 64;
  static final long BACKEND_SERVICE_NS = 20_000;

  /**
   * The seed's setup that the sources leave open, as declared parameters of the reproduction:
   * the QEMU device model on x86 (arm64 in 2014 has only the main-loop device: x-data-plane needs
   * ioeventfd and irqfd, which KVM/ARM gained in 4.1), the arm64 completion interrupt's transport,
   * the device's ring policy (what-ifs of later QEMU), and the backend's mean service time.
   *
   * @param x86Vmm the device model on x86_64-kvm
   * @param arm64Transport the completion interrupt on arm64-kvm
   * @param queuePolicy the device-side ring behaviour on both ({@code auto}: the device model's own)
   * @param backendServiceNs the backend's mean (exponential) service time
   */
  record Setup(VirtioBlkConfig.Vmm x86Vmm, VirtioBlkConfig.InterruptTransport arm64Transport, String queuePolicy,
      long backendServiceNs) {
    /**
     * What the sources make most likely: x86 with x-data-plane (the author's QEMU commit
     * dd67c1d7e7 of July 2014 runs the same fio script and quotes "2.0.0 release (dataplane
     * using custom linux aio): 104K IOPS"); arm64 with the profile's era default (virtio-mmio on
     * the virt board, a level interrupt: see {@link #transportOf}); QEMU 2.0's own ring
     * behaviour; a fast backend (20 µs).
     */
    static Setup defaults() {
      return new Setup(VirtioBlkConfig.Vmm.QEMU_2_0_DATAPLANE, null, "auto", BACKEND_SERVICE_NS);
    }
  }

  /**
   * The profile's era default for the completion interrupt: where the notify exits to the
   * userspace VMM (no MMIO ioeventfd: KVM/ARM before 4.1), there is no irqfd either (both came to
   * arm in 4.1), and QEMU 2.0's arm {@code virt} board has only virtio-mmio: a level-triggered
   * interrupt. Elsewhere: MSI.
   */
  static VirtioBlkConfig.InterruptTransport transportOf(ArchProfile profile) {
    return profile.hypervisor().notifyPath() == HypervisorBehaviour.NotifyPath.USERSPACE_VMM_UNDER_GLOBAL_LOCK
        ? VirtioBlkConfig.InterruptTransport.MMIO_LEVEL : VirtioBlkConfig.InterruptTransport.MSI;
  }

  final String arch;
  final Machine machine;
  final VirtioBlk device;
  final FioWorkload fio;
  private final RunCapture capture;
  private long measuredNs;

  /**
   * @param profile the architecture (costs, topology, hypervisor)
   * @param costs the costs to price with (normally {@code CostSource.of(profile)}; a derived table
   *     only for sensitivity studies, reported as such)
   * @param vcpus guest vCPUs
   * @param mode notify inside vq_lock (baseline) or after the unlock (patched)
   * @param fioConfig the fio job
   * @param seed the run's seed (a baseline/patched pair shares it)
   */
  NotifyScenario(ArchProfile profile, CostSource costs, int vcpus, NotifyMode mode, FioConfig fioConfig, long seed) {
    this(profile, costs, vcpus, mode, fioConfig, seed, Setup.defaults(), null);
  }

  /**
   * @param capture captures the run's files (devices, workload, locks, measurement window), or
   *     {@code null}
   */
  NotifyScenario(ArchProfile profile, CostSource costs, int vcpus, NotifyMode mode, FioConfig fioConfig, long seed,
      Setup setup, RunCapture capture) {
    checkArgument(vcpus > 0, "vcpus must be positive: %s", vcpus);
    this.arch = profile.name();
    this.machine = new Machine(new Simulation(seed));
    int pcpus = profile.topology().sockets() * profile.topology().coresPerSocket() * profile.topology().threadsPerCore();
    machine.createHost("host", pcpus, Platforms.hostKernel(profile, TtwuQueueMode.CROSS_LLC, false),
        CfsScheduler.withDefaults());
    Platforms.configureCacheLines(machine, profile);
    // the profile's host domains and background activity, as the experiment runner applies them
    Platforms.configureHost(machine.host(), profile, Platforms.hypervisor(profile).hostActivity());
    Vm vm = machine.createVm("vm0", vcpus, Platforms.guestKernel(profile, vcpus, TtwuQueueMode.CROSS_LLC, false),
        CfsScheduler.withDefaults(), Platforms.hypervisor(profile));
    String path = switch (profile.hypervisor().notifyPath()) {
      case IOEVENTFD_IN_KERNEL -> "ioeventfd";
      case USERSPACE_VMM_UNDER_GLOBAL_LOCK -> "userspace";
      default -> throw new IllegalArgumentException(
          "profile " + profile.name() + " has no virtio notify path: " + profile.hypervisor().notifyPath());
    };
    boolean userspace = path.equals("userspace");
    VirtioBlkConfig.InterruptTransport transport = userspace && setup.arm64Transport() != null
        ? setup.arm64Transport() : transportOf(profile);
    VirtioBlkConfig config = VirtioBlkConfig.defaults()
        .withNotify(mode)
        .withNotifyPath(path)
        .withBackend(BACKEND_DEPTH, setup.backendServiceNs(), true)
        .withPostedInterrupts(profile.hypervisor().postedInterrupts())
        .withVmm(userspace ? VirtioBlkConfig.Vmm.QEMU_2_0_MAIN_LOOP : setup.x86Vmm())
        .withInterruptTransport(transport)
        .withQueuePolicy(setup.queuePolicy());
    this.device = new VirtioBlk("vdc", config);
    LockCosts lockCosts = LockCosts.fromProfile(profile);
    TicketSpinLockFactory ticket = new TicketSpinLockFactory();
    CountMutexFactory mutex = new CountMutexFactory();
    LockProvider locks = (kernel, name, kind) -> {
      if (kind == LockKind.SPINLOCK) {
        return LockContext.builder(kernel, lockCosts).name(name).create(ticket);
      }
      checkArgument(kind == LockKind.MUTEX, "no %s lock in this scenario", kind);
      return LockContext.builder(kernel, lockCosts).name(name).options(Map.of("optimistic-spin", "false")).create(mutex);
    };
    this.capture = capture;
    if (capture != null) {
      locks = capture.scheduler("cfs").locks(locks);
    }
    device.attach(new DeviceContext(machine, vm, Checks.guardedIfEnabled(machine, locks), costs));
    this.fio = new FioWorkload("fio", fioConfig, FioCosts.from(costs));
    fio.start(new WorkloadContext(machine, vm, List.of(device), costs));
    if (capture != null) {
      capture.device(vm.name(), device).workload(vm.name(), fio);
    }
    machine.sim().setEventBudget(400_000_000);
  }

  /** Warm-up, reset of statistics, measurement window. */
  NotifyScenario run(long warmupMs, long measureMs) {
    machine.sim().runUntil(warmupMs * MS);
    fio.resetStats();
    device.resetStats();
    if (capture != null) {
      capture.measurementStarted(machine);
    }
    machine.sim().runUntil((warmupMs + measureMs) * MS);
    if (capture != null) {
      capture.finished(machine);
    }
    this.measuredNs = measureMs * MS;
    return this;
  }

  double iops() {
    return fio.figures().get("iops").doubleValue();
  }

  long stat(String key) {
    Number n = device.stats().get(key);
    return n == null ? 0 : n.longValue();
  }

  double seconds() {
    return measuredNs / 1e9;
  }

  /** Notify exits per second of the measurement window. */
  double exitsPerSecond() {
    return stat("notify_exits") / seconds();
  }

  /** Kicks EVENT_IDX suppressed per second. */
  double kicksSuppressedPerSecond() {
    return stat("vq.kicks_suppressed") / seconds();
  }

  /** Share of kick decisions that EVENT_IDX suppressed. */
  double kickSuppressedShare() {
    long all = stat("vq.kicks") + stat("vq.kicks_suppressed");
    return all == 0 ? 0 : (double) stat("vq.kicks_suppressed") / all;
  }

  /** ms per second of guest CPU spent spinning on vq_lock while its holder was in a notify exit. */
  double spinDuringExitMsPerSecond() {
    return device.vqLockSpinNsDuringNotifyExit() / 1e6 / seconds();
  }

  /** ms per second of guest CPU spent spinning on vq_lock (submitters and virtblk_done). */
  double spinMsPerSecond() {
    return (device.vqLockSpinNsQueueRq() + device.vqLockSpinNsDone()) / 1e6 / seconds();
  }

  /** The {@code q}-quantile of the notify exits' durations in µs. */
  double exitQuantileUs(double q) {
    return device.notifyExitQuantileNs(q) / 1e3;
  }

  /** Mean notify exit duration in µs. */
  double meanExitUs() {
    long n = stat("notify_exits");
    return n == 0 ? 0 : stat("notify_exit_ns") / 1e3 / n;
  }

  /** Completion latency median in µs. */
  double clatP50Us() {
    Number n = fio.figures().get("clat_p50_ns");
    return n == null ? 0 : n.doubleValue() / 1e3;
  }
}
