package org.lockvisor.platform;

import static org.lockvisor.arch.spi.CostKey.ATOMIC_RMW;
import static org.lockvisor.arch.spi.CostKey.CACHELINE_XFER_REMOTE;
import static org.lockvisor.arch.spi.CostKey.CACHELINE_XFER_SMT;
import static org.lockvisor.arch.spi.CostKey.CACHELINE_XFER_SOCKET;
import static org.lockvisor.arch.spi.CostKey.CONTEXT_SWITCH;
import static org.lockvisor.arch.spi.CostKey.EXIT_HLT;
import static org.lockvisor.arch.spi.CostKey.HALT_POLL;
import static org.lockvisor.arch.spi.CostKey.IPI_SEND;
import static org.lockvisor.arch.spi.CostKey.IPI_SEND_GUEST;
import static org.lockvisor.arch.spi.CostKey.IRQ_ENTRY;
import static org.lockvisor.arch.spi.CostKey.KVM_VCPU_ON_SPIN;
import static org.lockvisor.arch.spi.CostKey.L1_ACCESS;
import static org.lockvisor.arch.spi.CostKey.PLE_WINDOW;
import static org.lockvisor.arch.spi.CostKey.SCHED_TICK;
import static org.lockvisor.arch.spi.CostKey.TTWU_FULL;
import static org.lockvisor.arch.spi.CostKey.TTWU_ON_RQ;
import static org.lockvisor.arch.spi.CostKey.TTWU_RUNNING;
import static org.lockvisor.arch.spi.CostKey.VCPU_PREEMPTED_CHECK;
import static org.lockvisor.arch.spi.CostKey.VMEXIT_ROUNDTRIP;
import static org.lockvisor.arch.spi.CostKey.WAKEE_IDLE_EXIT;

import com.google.common.collect.ImmutableSet;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.HypervisorBehaviour;
import org.lockvisor.arch.spi.Topology;
import org.lockvisor.machine.CacheLines;
import org.lockvisor.machine.CpuTopology;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.VcpuPreemptedHook;
import org.lockvisor.machine.Vm;
import org.lockvisor.machine.config.DirectedYield;
import org.lockvisor.machine.config.HostActivity;
import org.lockvisor.machine.config.HypervisorConfig;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.machine.config.SpinTrapConfig;
import org.lockvisor.machine.config.TtwuQueueMode;

/**
 * Turns an {@link ArchProfile} into what the machine needs: kernel configurations for the host
 * and guests, hypervisor costs, and the guest-visible {@code vcpu_is_preempted} semantics. One
 * profile serves every experiment on its architecture; nothing here is experiment-specific.
 */
public final class Platforms {
  private Platforms() {}

  /** The host kernel on {@code profile}'s hardware. */
  public static KernelConfig hostKernel(ArchProfile profile, TtwuQueueMode ttwuQueue, boolean preemptibleKernel) {
    var topo = profile.topology();
    var hv = profile.hypervisor();
    if (hv.hostTickNs() == 0) {
      // A partition hypervisor (PowerVM) has no Linux tick: its dispatcher works on the dispatch
      // window, which stands in for the tick period; no tick handler runs on its processors.
      return new KernelConfig(hv.dispatchWindowNs(), preemptibleKernel, ttwuQueue,
          topo.coresPerSocket() * topo.threadsPerCore(), profile.ns(CONTEXT_SWITCH), profile.ns(WAKEE_IDLE_EXIT),
          profile.ns(TTWU_RUNNING), profile.ns(TTWU_ON_RQ), profile.ns(TTWU_FULL), profile.ns(IPI_SEND), false, 0);
    }
    return new KernelConfig(
        profile.hypervisor().hostTickNs(),
        preemptibleKernel,
        ttwuQueue,
        topo.coresPerSocket() * topo.threadsPerCore(),
        profile.ns(CONTEXT_SWITCH),
        profile.ns(WAKEE_IDLE_EXIT),
        profile.ns(TTWU_RUNNING),
        profile.ns(TTWU_ON_RQ),
        profile.ns(TTWU_FULL),
        profile.ns(IPI_SEND),
        false,
        profile.ns(SCHED_TICK));
  }

  /**
   * The host's scheduling-domain topology from the profile's hardware: SMT threads of a core, the
   * LLC = a socket's cores (x86 {@code default_topology} MC level = {@code cpu_coregroup_mask};
   * arm64 and s390 build their MC level on the cluster/chip the same way), one die per socket.
   */
  public static CpuTopology hostTopology(ArchProfile profile) {
    var topo = profile.topology();
    return new CpuTopology(topo.threadsPerCore(), topo.coresPerSocket(), 1);
  }

  /**
   * What the hypervisor presents to a guest of {@code vcpus} vCPUs, as its scheduling domains
   * see it. KVM (QEMU {@code -smp N,sockets=1}): one socket of single-threaded cores, so every
   * vCPU shares the LLC (QEMU's own default before 6.2 was N sockets; set the topology per VM
   * with {@link Kernel#setTopology} to model that). PowerVM shared-processor LPAR: each VP is a
   * core of {@code smt} threads and 4.8's {@code powerpc_topology} is {SMT, DIE}, with the
   * {@code SD_SHARE_PKG_RESOURCES} flag on the SMT level only, so the LLC is the VP's threads:
   * with one thread per VP, every vCPU is its own LLC.
   */
  public static CpuTopology guestTopology(ArchProfile profile, int vcpus, int smt) {
    if (profile.hypervisor().hostHz() == 0) {
      return new CpuTopology(Math.max(1, smt), 1, Math.max(1, vcpus / Math.max(1, smt)));
    }
    return CpuTopology.flat(Math.max(1, vcpus));
  }

  /**
   * Applies the profile's host side to the host kernel: its scheduling-domain topology and, for a
   * Linux host, the background activity of {@link #hostActivity}. Call before creating VMs.
   */
  public static void configureHost(Kernel host, ArchProfile profile, HostActivity activity) {
    host.setTopology(hostTopology(profile));
    host.setHostActivity(activity);
  }

  /**
   * The host background activity by default on this profile. A Linux/KVM host (every profile
   * with a host tick): ticks on the jiffy grid without skew ({@code sched_skew_tick=0}, the
   * default), softirqs at 1000/s of 3 us per CPU (timer, RCU and block/net completions of an
   * otherwise idle host) and a bound kworker woken 100/s for 10 us per CPU (vmstat, writeback,
   * flush work); estimates, not measurements, documented in docs/machine.md. A partition
   * hypervisor (PowerVM): none, PHYP has no Linux background on its processors.
   */
  public static HostActivity hostActivity(ArchProfile profile) {
    if (profile.hypervisor().hostHz() == 0) {
      return HostActivity.OFF;
    }
    return new HostActivity(HostActivity.TickPhase.ALIGNED, 1000, 3_000, 100, 10_000);
  }

  /**
   * How shared cache lines are priced on {@code profile}'s host of {@code hostCpus} CPUs:
   * ATOMIC_RMW and L1_ACCESS on a local line, CACHELINE_XFER_SMT / _SOCKET / _REMOTE by the
   * topology distance the line moves. A host with more CPUs than the profile's topology (an
   * experiment's {@code host.cpus}, PowerVM SMT threads) gets further sockets of the same shape.
   */
  public static CacheLines cacheLines(ArchProfile profile, int hostCpus) {
    Topology t = profile.topology();
    int perSocket = t.coresPerSocket() * t.threadsPerCore();
    Topology host = hostCpus <= t.cpus() ? t
        : new Topology((hostCpus + perSocket - 1) / perSocket, t.coresPerSocket(), t.threadsPerCore());
    return CacheLines.of(host, profile.ns(ATOMIC_RMW), profile.ns(L1_ACCESS),
        profile.ns(CACHELINE_XFER_SMT), profile.ns(CACHELINE_XFER_SOCKET), profile.ns(CACHELINE_XFER_REMOTE));
  }

  /** Sets {@code machine}'s cache-line pricing from {@code profile}, for the host it has. */
  public static void configureCacheLines(Machine machine, ArchProfile profile) {
    machine.setCacheLines(cacheLines(profile, machine.host().cpuCount()));
  }

  /**
   * A guest kernel with {@code vcpus} vCPUs; its LLC follows {@link #guestTopology} with one
   * thread per vCPU core (flat under KVM; one CPU per LLC on a PowerVM LPAR). Its IPIs cost a VM
   * exit where the profile says so.
   */
  public static KernelConfig guestKernel(ArchProfile profile, int vcpus, TtwuQueueMode ttwuQueue, boolean preemptibleKernel) {
    boolean exits = profile.hypervisor().guestIpiExits();
    return new KernelConfig(
        profile.hypervisor().guestTickNs(),
        preemptibleKernel,
        ttwuQueue,
        guestTopology(profile, vcpus, 1).llcCpus(),
        profile.ns(CONTEXT_SWITCH),
        0, // an idle guest CPU halts: its wake latency is the host's (kick + vCPU thread switch)
        profile.ns(TTWU_RUNNING),
        profile.ns(TTWU_ON_RQ),
        profile.ns(TTWU_FULL),
        profile.ns(exits ? IPI_SEND_GUEST : IPI_SEND),
        exits,
        profile.ns(SCHED_TICK));
  }

  /**
   * Hypervisor costs of exits and halts; a hypervisor without a host tick (PowerVM) is partition
   * firmware: no halt polling, hcall symbols in the hypervisor domain.
   */
  public static HypervisorConfig hypervisor(ArchProfile profile) {
    boolean partition = profile.hypervisor().hostHz() == 0;
    // the x86 seeds' hosts are 3.0-3.12: kvm_vcpu_on_spin with dy_eligible and -ESRCH tries
    // (3.7/3.8), the middle of that range; the vcpu->preempted filter (V3_10) is an option.
    // ple_window_shrink 0 (the 3.18+ default; no dynamic window before it)
    return new HypervisorConfig(profile.ns(VMEXIT_ROUNDTRIP), profile.ns(EXIT_HLT),
        partition ? 0 : profile.ns(HALT_POLL), spinTrap(profile), partition, DirectedYield.V3_8, 0,
        hostActivity(profile));
  }

  /**
   * Pause-loop exiting (x86: every PAUSE loop traps after ple_window) or WFE trapping (arm64:
   * only WFE waits, i.e. spinlocks; cpu_relax() loops do not), with kvm_vcpu_on_spin's directed
   * yield as the profile says; {@link SpinTrapConfig#OFF} where nothing traps (PowerVM, s390).
   */
  public static SpinTrapConfig spinTrap(ArchProfile profile) {
    HypervisorBehaviour.SpinTrap trap = profile.hypervisor().spinTrap();
    if (!trap.enabled()) {
      return SpinTrapConfig.OFF;
    }
    boolean wfe = trap.trigger() == HypervisorBehaviour.SpinTrap.Trigger.WFE;
    long window = Math.max(1, profile.ns(PLE_WINDOW));
    // ple_window_max: INT_MAX cycles in b4a2d31da812, i.e. unbounded for a simulation
    return new SpinTrapConfig(
        window,
        wfe ? "WFx" : "PAUSE_INSTRUCTION",
        // the scan reads each vCPU's preempted flag, a line its own CPU writes
        profile.ns(CACHELINE_XFER_SOCKET),
        profile.ns(KVM_VCPU_ON_SPIN),
        trap.directedYield(),
        trap.growFactor(),
        trap.growFactor() > 1 ? Long.MAX_VALUE / 4 : window,
        wfe ? SpinTrapConfig.CPU_RELAX_LOOPS : ImmutableSet.of());
  }

  /**
   * Applies the profile's guest-visible hypervisor behaviour to a VM's guest kernel: the
   * {@code vcpu_is_preempted} semantics and, where the hypervisor publishes steal time, a task
   * clock that excludes it (CONFIG_PARAVIRT_TIME_ACCOUNTING).
   */
  public static void configureGuest(Vm vm, ArchProfile profile) {
    vm.guest().setTopology(guestTopology(profile, vm.guest().cpuCount(), 1));
    configureVcpuPreempted(vm.guest(), profile);
    vm.guest().setStealTimeAccounting(profile.hypervisor().stealTime());
  }

  /**
   * A guest kernel's {@code vcpu_is_preempted} as the profile's hypervisor makes it: what it
   * answers ({@link #vcpuPreempted}) and what one read costs ({@code VCPU_PREEMPTED_CHECK}, in
   * {@link #vcpuPreemptedFunction}; nothing under NONE).
   */
  public static void configureVcpuPreempted(Kernel guest, ArchProfile profile) {
    guest.setVcpuPreemptedHook(vcpuPreempted(profile));
    var semantics = profile.hypervisor().vcpuPreempted();
    guest.vcpuPreemptedReads().setCheckCost(
        semantics == HypervisorBehaviour.VcpuPreemptedSemantics.NONE ? 0 : profile.ns(VCPU_PREEMPTED_CHECK),
        vcpuPreemptedFunction(semantics));
  }

  /**
   * The guest function a {@code vcpu_is_preempted} read runs in, as perf shows it, or null where
   * the arch inlines it into the spinning caller: x86 KVM's pv-op thunk {@code
   * __raw_callee_save___kvm_vcpu_is_preempted} around {@code __kvm_vcpu_is_preempted}
   * (arch/x86/kernel/kvm.c, 4.10), s390's {@code arch_vcpu_is_preempted} (arch/s390/kernel/smp.c),
   * openEuler arm64's {@code kvm_vcpu_is_preempted} behind {@code pv_ops} (arch/arm64/kernel/
   * paravirt.c, CONFIG_PARAVIRT_SCHED); powerpc's {@code vcpu_is_preempted} is a static inline
   * in asm/spinlock.h (a {@code yield_count} load in the loop). NONE reads nothing.
   */
  public static String vcpuPreemptedFunction(HypervisorBehaviour.VcpuPreemptedSemantics semantics) {
    return switch (semantics) {
      case X86_STEAL_TIME_ANY_PUT, X86_STEAL_TIME_INVOLUNTARY -> "__raw_callee_save___kvm_vcpu_is_preempted";
      case S390 -> "arch_vcpu_is_preempted";
      case ARM64_PV_SCHED -> "kvm_vcpu_is_preempted";
      case PPC_YIELD_COUNT, NONE -> null;
    };
  }

  /**
   * Configures how {@code vm}'s guest sends and takes reschedule IPIs on this platform: a wakeup
   * that preempts a task on another running vCPU sends an IPI (resched_curr); on a partition
   * hypervisor (PowerVM, XICS emulated by PHYP) the target accepts it with the H_XIRR and H_EOI
   * hcalls, each priced at half of {@code IRQ_ENTRY} ("external interrupt entry, XICS accept and
   * EOI") plus the hcall round trip.
   */
  public static void configureIpis(ArchProfile profile, Vm vm) {
    vm.guest().setReschedIpiOnPreempt(true);
    if (vm.partitionFirmware()) {
      long half = profile.ns(IRQ_ENTRY) / 2;
      vm.guest().setIpiAccept(Program.named("xics_get_irq")
          .call(vm.hypervisorCall("H_XIRR", half))
          .call(vm.hypervisorCall("H_EOI", half))
          .build());
    }
  }

  /** What the guest's vcpu_is_preempted() sees on this hypervisor. */
  public static VcpuPreemptedHook vcpuPreempted(ArchProfile profile) {
    return switch (profile.hypervisor().vcpuPreempted()) {
      case NONE -> VcpuPreemptedHook.NEVER;
      case X86_STEAL_TIME_ANY_PUT, ARM64_PV_SCHED -> VcpuPreemptedHook.ANY_PUT;
      case X86_STEAL_TIME_INVOLUNTARY -> VcpuPreemptedHook.INVOLUNTARY;
      case PPC_YIELD_COUNT, S390 -> VcpuPreemptedHook.NOT_DISPATCHED;
    };
  }
}
