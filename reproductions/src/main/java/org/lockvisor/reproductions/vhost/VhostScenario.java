package org.lockvisor.reproductions.vhost;

import static org.lockvisor.arch.spi.CostKey.EXIT_IO_KERNEL;
import static org.lockvisor.arch.spi.CostKey.IRQ_ENTRY;
import static org.lockvisor.arch.spi.CostKey.MEMCPY_PER_BYTE;
import static org.lockvisor.arch.spi.CostKey.SYSCALL;
import static org.lockvisor.arch.spi.CostKey.VIRTQUEUE_ADD;
import static org.lockvisor.arch.spi.CostKey.VIRTQUEUE_KICK_PREPARE;
import static org.lockvisor.arch.spi.CostKey.VMEXIT_ROUNDTRIP;

import java.util.List;
import java.util.Map;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.devices.spi.CostSource;
import org.lockvisor.devices.spi.DeviceContext;
import org.lockvisor.devices.spi.LockProvider;
import org.lockvisor.experiment.check.Checks;
import org.lockvisor.experiment.model.PluginRegistry;
import org.lockvisor.experiment.report.RunCapture;
import org.lockvisor.devices.vhostnet.VhostNet;
import org.lockvisor.devices.vhostnet.VhostNetConfig;
import org.lockvisor.locking.spi.LockCosts;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.TtwuQueueMode;
import org.lockvisor.machine.Vm;
import org.lockvisor.platform.Platforms;
import org.lockvisor.scheduler.builtin.CfsSchedulerFactory;
import org.lockvisor.workloads.iperf.IperfConfig;
import org.lockvisor.workloads.iperf.IperfWorkload;
import org.lockvisor.workloads.spi.WorkloadContext;

/**
 * One iperf-over-vhost-net run of the R1 scenario (KERNEL-MODEL 13.2) on the x86_64-kvm profile:
 * a two-socket host (the profile's topology) running 3.0 kernels — ticket spinlocks, TTWU_QUEUE
 * for any remote CPU, try_to_wake_up waiting for a wakee still being switched out, a
 * non-preemptible kernel — with CFS on host and guest, one VM whose vCPU
 * threads float, a vhost-net device and an iperf client. Every cost comes from the profile or
 * from the plugins' documented estimates; nothing here is specific to this reproduction but the
 * choice of kernels, which is the seed's.
 */
final class VhostScenario {
  static final String PROFILE = "x86_64-kvm";
  static final String SPINLOCK = "ticket"; // x86 host and guest kernels 3.0: ticket spinlocks

  final Machine machine;
  final VhostNet device;
  final IperfWorkload iperf;
  private final RunCapture capture;

  VhostScenario(long seed, int vcpus, int streams, VhostNetConfig.WorkQueue variant) {
    this(seed, vcpus, streams, variant, null);
  }

  VhostScenario(ArchProfile profile, long seed, VhostSetup setup, int streams, VhostNetConfig.WorkQueue variant,
      RunCapture capture) {
    this(profile, seed, setup.vcpus(), streams, setup.device(variant), setup.irqTimeAccounting(), capture);
  }

  /**
   * @param capture captures the run's files (device, workload, locks, measurement window), or
   *     {@code null}
   */
  VhostScenario(long seed, int vcpus, int streams, VhostNetConfig.WorkQueue variant, RunCapture capture) {
    this(PluginRegistry.classPath().archProfile(PROFILE), seed, vcpus, streams, variant, capture);
  }

  /**
   * @param profile the {@value #PROFILE} profile, as the reproduction's options give it (with a
   *     what-if's cost overrides, if any)
   */
  VhostScenario(ArchProfile profile, long seed, int vcpus, int streams, VhostNetConfig.WorkQueue variant,
      RunCapture capture) {
    this(profile, seed, vcpus, streams, VhostNetConfig.defaults().withWorkQueue(variant), false, capture);
  }

  VhostScenario(ArchProfile profile, long seed, int vcpus, int streams, VhostNetConfig deviceConfig,
      boolean irqTimeAccounting, RunCapture capture) {
    this.capture = capture;
    this.machine = new Machine(new Simulation(seed));
    int pcpus = profile.topology().cpus();
    machine.createHost("host", pcpus, Platforms.hostKernel(profile, TtwuQueueMode.ANY_REMOTE, false),
        new CfsSchedulerFactory().create(Map.of()));
    Platforms.configureCacheLines(machine, profile);
    // the profile's host domains and background activity, as the experiment runner applies them
    Platforms.configureHost(machine.host(), profile, Platforms.hypervisor(profile).hostActivity());
    Vm vm = machine.createVm("vm0", vcpus, Platforms.guestKernel(profile, vcpus, TtwuQueueMode.ANY_REMOTE, false),
        new CfsSchedulerFactory().create(Map.of()), Platforms.hypervisor(profile));
    // 3.0 try_to_wake_up on x86 (no __ARCH_WANT_INTERRUPTS_ON_CTXSW): while (p->on_cpu) cpu_relax()
    machine.host().setTtwuWaitsOnCpu(true);
    vm.guest().setTtwuWaitsOnCpu(true);
    LockFactory spin = PluginRegistry.classPath().get(PluginRegistry.LOCK, SPINLOCK);
    LockCosts lockCosts = LockCosts.fromProfile(profile);
    LockProvider spinlocks = (Kernel kernel, String name, LockFactory.LockKind kind) -> {
      if (kind != LockFactory.LockKind.SPINLOCK) {
        throw new IllegalArgumentException("the vhost-wakeup scenario has no " + kind + " locks");
      }
      return LockContext.builder(kernel, lockCosts).name(name).create(spin);
    };
    LockProvider locks = capture == null ? spinlocks : capture.scheduler("cfs").locks(spinlocks);
    CostSource costs = costs(profile);
    machine.host().setIrqTimeAccounting(irqTimeAccounting);
    this.device = new VhostNet("eth0", deviceConfig);
    device.attach(new DeviceContext(machine, vm, Checks.guardedIfEnabled(machine, locks), costs));
    this.iperf = new IperfWorkload("iperf", IperfConfig.defaults(streams));
    iperf.start(new WorkloadContext(machine, vm, List.of(device), costs));
    if (capture != null) {
      capture.device(vm.name(), device).workload(vm.name(), iperf);
    }
  }

  /** Warm-up, reset, measurement window. */
  VhostScenario run(long warmupNs, long measureNs) {
    machine.sim().runUntil(warmupNs);
    device.resetStats();
    iperf.resetStats();
    if (capture != null) {
      capture.measurementStarted(machine);
    }
    machine.sim().runUntil(warmupNs + measureNs);
    if (capture != null) {
      capture.finished(machine);
    }
    return this;
  }

  /** The profile's costs; the plugins read the keys they price from it. */
  static CostSource costs(ArchProfile p) {
    return CostSource.of(p);
  }

}
