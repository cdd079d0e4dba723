package org.lockvisor.arch.builtin;

import static org.lockvisor.arch.spi.Cost.Confidence.E;
import static org.lockvisor.arch.spi.Cost.Confidence.M;
import static org.lockvisor.arch.spi.Cost.Confidence.V;
import static org.lockvisor.arch.spi.CostKey.*;

import com.google.auto.service.AutoService;
import java.util.Set;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.ArchProfileFactory;
import org.lockvisor.core.plugin.PluginContext;
import org.lockvisor.arch.spi.CostTable;
import org.lockvisor.arch.spi.HypervisorBehaviour;
import org.lockvisor.arch.spi.HypervisorBehaviour.NotifyPath;
import org.lockvisor.arch.spi.HypervisorBehaviour.SpinTrap;
import org.lockvisor.arch.spi.HypervisorBehaviour.VcpuPreemptedSemantics;
import org.lockvisor.arch.spi.KernelEra;
import org.lockvisor.arch.spi.Topology;

/**
 * arm64 host running KVM/ARM in 2014 (APM X-Gene 1 era, before VHE): every exit switches the whole
 * EL1 context, so exits and hypercalls cost several times the x86 figures (Dall et al. ISCA'16);
 * guest WFE traps into kvm_handle_wfx -> kvm_vcpu_on_spin; vcpu_is_preempted() is constant false;
 * there is no MMIO ioeventfd yet, so a virtio-mmio notify exits to QEMU, which takes its BQL and
 * processes the queue in the vCPU thread (QEMU commit "memory: emulate ioeventfd").
 *
 * <p>Where no arm64 measurement exists the x86 estimate of KERNEL-MODEL section 10 is reused and
 * the source says so.
 */
@AutoService(ArchProfileFactory.class)
public final class Arm64KvmArchProfile implements ArchProfileFactory {

  public static final String NAME = "arm64-kvm";

  private static final String KM = "KERNEL-MODEL §10";
  private static final String REUSED = " (x86 estimate reused: no arm64 measurement)";

  private static final ArchProfile PROFILE = new ArchProfile(
      NAME,
      "arm64 KVM host, 2014 X-Gene era; WFE trapping, no vcpu_is_preempted, notify exits to QEMU under its BQL",
      "A 2014 single-socket APM X-Gene 1 server (8 cores, no SMT) running KVM/ARM without VHE: every "
          + "exit switches the full EL1 state, so exits and hypercalls cost several thousand cycles. "
          + "Guest spinlock waits use WFE, which traps (HCR_EL2.TWE) into kvm_vcpu_on_spin; loops on "
          + "cpu_relax() do not trap. vcpu_is_preempted() is constant false and there is no steal time. "
          + "Without MMIO ioeventfd a virtio-mmio notify is an exit to QEMU in the vCPU thread, which "
          + "takes the BQL and processes the queue before the vCPU re-enters.",
      new Topology(1, 8, 1),
      CostTable.builder()
          .put(CPU_CYCLE, 1 / 2.4, M, "APM X-Gene 1 at 2.4 GHz (HP Moonshot m400, the ARM host of Dall et al.)")
          .put(ATOMIC_RMW, 10, E, "estimate 10 (5-20): LDAXR/STLXR pair, ARMv8.0 has no LSE atomics")
          .put(L1_ACCESS, 2, E, "estimate 2 (1-3): ~5-cycle L1 hit")
          .put(CACHELINE_XFER_SMT, 15, E, "estimate 15 (10-30): X-Gene has no SMT; priced as the L2 shared by the "
              + "two cores of a PMD, for topologies that model a PMD as a 2-thread core")
          .put(CACHELINE_XFER_SOCKET, 80, E, "estimate 80 (50-150): across PMDs through the L3 / coherent "
              + "network; no core-to-core measurement found")
          .put(CACHELINE_XFER_REMOTE, 200, E, "estimate 200 (150-400): X-Gene 1 is single-socket; used only "
              + "by multi-socket topologies")
          .put(PAUSE, 1, E, "estimate 1 (0.5-5): cpu_relax() is the YIELD hint; spinlock waits use WFE and are "
              + "priced by trapping")
          .put(SPIN_THRESHOLD_LOOPS, 1 << 15, M, "no upstream arm64 paravirt spinlock; the x86/generic "
              + "SPIN_THRESHOLD (1 << 15) is kept for what-if pv locks")
          .put(QSPINLOCK_PENDING_LOOPS, 1, V, "kernel/locking/qspinlock.c generic _Q_PENDING_LOOPS 1 "
              + "(arm64 ticket locks until 4.19)")
          .put(VCPU_PREEMPTED_CHECK, 3, E, "estimate 3 (1-10), read only under arm64-pv-sched (a 5.x-era guest): "
              + "the indirect call to kvm_vcpu_is_preempted and one load of the vCPU's pvsched area "
              + "(openEuler arch/arm64/kernel/paravirt.c), as x86's steal_time read; under the default none "
              + "(2014, and mainline arm64: vcpu_is_preempted is constant false in "
              + "arch/arm64/include/asm/spinlock.h) nothing is read or charged")
          .put(SYSCALL, 100, E, "estimate 100 (50-200): SVC entry and ERET")
          .put(TTWU_RUNNING, 100, E, KM + ": 100 (50-200)" + REUSED)
          .put(TTWU_ON_RQ, 500, E, KM + ": 500 (300-1000)" + REUSED)
          .put(TTWU_FULL, 1000, E, KM + ": 1000 (500-1500)" + REUSED)
          .put(IPI_SEND, 300, E, "estimate 300 (100-1000): GICv2 GICD_SGIR write" + REUSED)
          .put(IPI_SEND_GUEST, 3000, M, "GICD_SGIR write traps to the in-kernel vGIC: Dall et al. ISCA'16 "
              + "interrupt-controller trap ~7,400 cycles (~3.1 us at 2.4 GHz), not re-verified")
          .put(WAKEE_IDLE_EXIT, 5000, E, KM + ": 5000 (2000-10000)" + REUSED)
          .put(CONTEXT_SWITCH, 1500, E, KM + ": 1500 (1000-5000)" + REUSED)
          .put(SCHED_TICK, 1000, E, "estimate 1000 (500-3000): arch timer interrupt + scheduler_tick")
          .put(VMEXIT_ROUNDTRIP, 6500, M, "KVM/ARM without VHE switches all EL1 state on every exit, so a null "
              + "hypercall (Dall et al. ISCA'16: ~6,500 cycles) is the exit round trip")
          .put(EXIT_IO_KERNEL, 3500, E, "estimate 3500 (3000-6000): in-kernel MMIO emulation (vGIC); "
              + "interrupt-controller trap ~7,400 cycles [M, Dall et al.] plus handler")
          .put(EXIT_USERSPACE, 10_000, E, "estimate 10000 (6000-20000): x86 ratio userspace ~3x kernel exit "
              + "(kvm-unit-tests inl_from_qemu/inl_from_kernel [V]) applied to EXIT_IO_KERNEL")
          .put(EXIT_HLT, 3500, E, "estimate 3500 (2000-6000): WFI trap -> kvm_vcpu_block entry and exit, "
              + "dominated by the world switch")
          .put(HYPERCALL, 6500, M, "Dall et al. ISCA'16 table, KVM/ARM ~6,500 cycles (not re-verified)")
          .put(PV_KICK, 4000, E, "estimate 4000 (3000-8000): no upstream arm64 pv kick; HYPERCALL + host "
              + "TTWU_FULL, for what-if pv locks")
          .put(KVM_VCPU_ON_SPIN, 2000, E, "KERNEL-MODEL §6.2 'several us': 2000 (1000-5000) for the yield_to path "
              + "when a candidate is boosted (the scan is priced per vCPU), excluding the exit"
              + REUSED)
          .put(HALT_POLL, 0, M, "no halt polling in 2014: halt_poll_ns arrived in Linux 4.0 (2015); the later "
              + "arm64 default is 500000 [V: arch/arm64/include/asm/kvm_host.h KVM_HALT_POLL_NS_DEFAULT]")
          .put(PLE_WINDOW, 200, E, "estimate 200 (100-1000) cycles: a waiting ticket lock reaches WFE after one "
              + "load/compare, and a WFE that would wait traps (kvm_handle_wfx -> kvm_vcpu_on_spin [V])")
          .put(IRQ_INJECT, 4000, E, "estimate 4000 (2000-8000): the running vCPU is kicked out and the vGIC "
              + "list registers are written at entry")
          .put(IRQ_ENTRY, 500, E, "estimate 500 (200-1500): GIC virtualization extensions complete the "
              + "virtual interrupt without a trap")
          .put(VIRTQUEUE_ADD, 1000, E, KM + ": T_add under vq_lock 500-1500" + REUSED)
          .put(VIRTQUEUE_KICK_PREPARE, 100, E, "estimate 100 (30-200): full barrier + read of avail_event")
          .put(BLK_MQ_SUBMIT, 500, E, "500 (0-3000): " + KM + " guest submission 1500 (1000-4000) minus VIRTQUEUE_ADD (1000)" + REUSED)
          .put(BLK_MQ_COMPLETE, 1500, E, "estimate 1500 (800-3000): get_buf + blk_mq_complete_request + "
              + "aio_complete per request" + REUSED)
          .put(AIO_SUBMIT_PER_IO, 1000, E, "estimate 1000 (500-2000): io_submit per iocb above the driver" + REUSED)
          .put(AIO_REAP_PER_IO, 200, E, "estimate 200 (100-500): io_getevents per event" + REUSED)
          .put(BENCH_USER_PER_IO, 1000, E, "estimate 1000 (500-3000): fio user-space work per I/O" + REUSED)
          .put(VMM_REQUEST_EMULATION, 7000, E, KM + ": QEMU virtio-blk 2014 7000 (5000-20000)" + REUSED
              + "; slower cores likely cost more")
          .put(VMM_NOTIFY_BQL, 2000, E, "estimate 2000 (1000-5000): qemu_mutex_lock_iothread + dispatch to the "
              + "virtio-mmio notify handler. The whole notify is EXIT_USERSPACE + this + VMM_REQUEST_EMULATION "
              + "per popped request; KERNEL-MODEL's aggregate notify figure was fitted to a seed and is not used")
          .put(VMM_MMIO_DISPATCH, 1200, E, "estimate 1200 (600-3000): the BQL section of one virtio-mmio register "
              + "access in QEMU 2.0 kvm-all.c kvm_cpu_exec (qemu_mutex_lock_iothread, cpu_physical_memory_rw -> "
              + "memory dispatch -> hw/virtio/virtio-mmio.c virtio_mmio_read/_write) [V: read at v2.0.0]; the x86 "
              + "figure (600, from QEMU 22773d6066's pci-testdev cycles) scaled by this profile's ATOMIC_RMW and "
              + "SYSCALL ratio to x86 (~1.5-2x); no arm64 measurement")
          .put(QEMU_MAIN_LOOP_PASS, 2500, E, "estimate 2500 (1200-5000): the x86 profile's sum over the same code "
              + "(QEMU 2.0.0 main-loop.c, iohandler.c, async.c, qemu-timer.c; glib 2.40 gmain.c: about 25 pthread "
              + "mutex pairs, ~9 clock reads, the walks) [V: read], on X-Gene: LDAXR/STLXR mutexes (this profile's "
              + "ATOMIC_RMW 10 ns against 6), clock reads through the 3.15 arm64 vDSO (the arch timer counter) and a "
              + "slower core, ~2x; no measurement of an iteration was found")
          .put(QEMU_MAIN_LOOP_POLL_FDS, 2200, E, "2200 (1000-5000): ppoll over the main loop's 10-20 descriptors "
              + "(F. Zheng, qemu-devel 2014 [V]: 10~20 in a plain QEMU, ~88 ns each on x86) at ~150 ns each: the x86 "
              + "slope scaled by this profile's ATOMIC_RMW/SYSCALL ratio to x86 (~1.5-2x); no arm64 measurement")
          .put(NIC_RX_PER_FRAME, 200, E, "estimate 200 (100-400): NIC driver receive per descriptor and "
              + "napi_gro_receive per frame" + REUSED)
          .put(MEMCPY_PER_BYTE, 0.25, E, "estimate 0.25 (0.15-0.5) ns/B: ~4 GB/s single-core copy")
          .notApplicable(H_CEDE, "PowerVM hcall; arm64 idles with WFI (EXIT_HLT)")
          .notApplicable(H_CONFER, "PowerVM hcall; arm64 yields through WFE trapping and kvm_vcpu_on_spin")
          .notApplicable(H_PROD, "PowerVM hcall; arm64 wakes a vCPU by interrupt injection")
          .build(),
      new HypervisorBehaviour(
          VcpuPreemptedSemantics.NONE,
          // WFE traps on every wait; no PLE-style window growth or gap on ARM.
          new SpinTrap(true, SpinTrap.Trigger.WFE, 0, 1, true),
          false, // [M] arm64 PV steal time arrived in 2019 (Linux 5.5)
          NotifyPath.USERSPACE_VMM_UNDER_GLOBAL_LOCK,
          true, // GICv2 SGIR write traps
          false, // [M] GICv4 direct injection came years later
          250, // [M] arm64 default CONFIG_HZ
          250,
          0,
          1.0),
      org.lockvisor.arch.spi.KernelSymbols.ARM64);

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String summary() {
    return PROFILE.summary();
  }

  /**
   * {@code none} (the 2014 era and mainline arm64: vcpu_is_preempted is always false) or {@code
   * arm64-pv-sched} (the openEuler PV scheduling series, on a 4.19/5.x-era kernel and host).
   */
  @Override
  public Set<VcpuPreemptedSemantics> vcpuPreemptedSemantics() {
    return Set.of(VcpuPreemptedSemantics.NONE, VcpuPreemptedSemantics.ARM64_PV_SCHED);
  }

  /**
   * {@code 3.15} (the profile's 2014 era, and its default: vcpu_is_preempted does not exist on
   * arm64), {@code 5.10} (mainline: arch/arm64/include/asm/spinlock.h still defines it constant
   * false, "Changing this will break osq_lock()"; PV steal time exists since 5.5 but carries no
   * preempted flag) and {@code 5.10-openeuler} (openEuler's 5.10 guest and host with the PV
   * scheduling series: {@code arm64-pv-sched}). The series — Zengruan Ye 2019-2020, Usama Arif's
   * 2022 RFC on top of it — was posted to kvmarm and not merged upstream.
   */
  @Override
  public java.util.List<KernelEra> kernelEras() {
    return ERAS;
  }

  private static final java.util.List<KernelEra> ERAS = java.util.List.of(
      new KernelEra("3.15", "2014 KVM/ARM host and guest (the profile's era): no vcpu_is_preempted on arm64",
          VcpuPreemptedSemantics.NONE),
      new KernelEra("5.10", "mainline 5.10: arm64 vcpu_is_preempted is constant false "
          + "(arch/arm64/include/asm/spinlock.h)", VcpuPreemptedSemantics.NONE),
      new KernelEra("5.10-openeuler", "openEuler 5.10 guest and host with the arm64 PV scheduling series "
          + "(CONFIG_PARAVIRT_SCHED: kvm_vcpu_is_preempted reads a per-vCPU pvsched area the host writes at "
          + "vcpu_put/vcpu_load; never merged upstream)", VcpuPreemptedSemantics.ARM64_PV_SCHED));

  @Override
  public ArchProfile create(PluginContext context) {
    return PROFILE;
  }
}
