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
import org.lockvisor.arch.spi.Topology;

/**
 * x86-64 host running KVM, Nehalem/Sandy Bridge era (2013–2014), two sockets: VMX exits without
 * APICv, pause-loop exiting with directed yield, virtio-pci PIO notify handled in the host kernel
 * by ioeventfd, steal time with the 2016 "preempted on any vcpu_put" semantics (configurable).
 *
 * <p>Values are the defaults of KERNEL-MODEL section 10; kernel constants are from
 * arch/x86/include/asm/spinlock.h, qspinlock.h and arch/x86/kvm/vmx.c. Nothing here was tuned to a
 * seed result.
 */
@AutoService(ArchProfileFactory.class)
public final class X86KvmArchProfile implements ArchProfileFactory {

  public static final String NAME = "x86_64-kvm";

  private static final String KM = "KERNEL-MODEL §10";
  private static final String HALT_POLL_NOTE =
      "0: this profile is a 2013-2014 host and KVM halt polling arrived in Linux 4.0 (2015) [M]; "
          + "modern hosts use KVM_HALT_POLL_NS_DEFAULT 200000 (arch/x86/include/asm/kvm_host.h, seen in a "
          + "kvm mail patch): override it in YAML to model them";

  private static final ArchProfile PROFILE = new ArchProfile(
      NAME,
      "x86-64 KVM host, Nehalem/Sandy Bridge era, 2 sockets; ioeventfd notify; PLE with directed yield",
      "A 2013-2014 two-socket Intel server (Nehalem-EP/Sandy Bridge-EP) running KVM: VMX without "
          + "APICv or posted interrupts, so guest IPIs and interrupt injection into a running vCPU cost "
          + "exits; pause-loop exiting with kvm_vcpu_on_spin; virtio-pci notify is a PIO exit handled in "
          + "the host kernel (ioeventfd). vcpu_is_preempted follows the 2016 steal-time semantics "
          + "(set on every vcpu_put); set hypervisor.vcpuPreempted to X86_STEAL_TIME_INVOLUNTARY for "
          + "modern kernels.",
      // The R2 x86 host of the seed mail (2 sockets x 4 cores x 2 threads) is a hardware fact, not a fit.
      new Topology(2, 4, 2),
      CostTable.builder()
          .put(CPU_CYCLE, 1 / 2.93, M, "Intel Xeon X5570 (Nehalem-EP) nominal 2.93 GHz, the SplitX measurement host; "
              + "Sandy Bridge-EP parts run 2.0-2.9 GHz")
          .put(ATOMIC_RMW, 6, M, KM + ": 6 (5-10) ns, 18-25 cycles; Agner Fog tables / common measurements")
          .put(L1_ACCESS, 1, M, KM + ": plain L1 load/store 1 ns")
          .put(CACHELINE_XFER_SMT, 4, M, "KERNEL-MODEL §1.2: siblings share L1/L2, transfer ~ L2 latency "
              + "(~10-12 cycles on Nehalem/SNB); range 3-10")
          .put(CACHELINE_XFER_SOCKET, 60, V, KM + ": 60 (40-100); chipsandcheese core-to-core CAS bounce data, "
              + "David et al. SOSP'13")
          .put(CACHELINE_XFER_REMOTE, 150, M, KM + ": 150 (100-300); same sources, cross-socket not re-verified")
          .put(PAUSE, 4, M, KM + ": ~10 cycles before Skylake (Intel optimization manual); Skylake+ ~140 cycles, "
              + "override with 50")
          .put(SPIN_THRESHOLD_LOOPS, 1 << 15, V, "arch/x86/include/asm/spinlock.h SPIN_THRESHOLD (1 << 15)")
          .put(QSPINLOCK_PENDING_LOOPS, 1 << 9, V, "arch/x86/include/asm/qspinlock.h _Q_PENDING_LOOPS (1 << 9)")
          .put(VCPU_PREEMPTED_CHECK, 3, E, "KERNEL-MODEL §5: 1-5 ns when steal_time is in the checker's L1; "
              + "a miss is priced as a cache-line transfer")
          .put(SYSCALL, 70, M, KM + ": 70 (50-150)")
          .put(TTWU_RUNNING, 100, E, KM + ", §2.1: 100 (50-200)")
          .put(TTWU_ON_RQ, 500, E, KM + ", §2.1: 500 (300-1000)")
          .put(TTWU_FULL, 1000, E, KM + ", §2.1: 1000 (500-1500)")
          .put(IPI_SEND, 300, E, KM + ": bare-metal x2APIC 300 (100-1000)")
          .put(IPI_SEND_GUEST, 2000, E, KM + ": ICR/MSR write exit, no PV or posted IPI, 2000 (1000-3000); "
              + "PV IPI commit 4180bf1b655a reports benchmark totals only")
          .put(WAKEE_IDLE_EXIT, 5000, E, KM + ", §2.1: shallow C-state 5000 (2000-10000); deep C-states 20-100 us")
          .put(CONTEXT_SWITCH, 1500, M, KM + ": 1500 (1000-5000); tsuna 'How long does it take to make a "
              + "context switch?' (pinned ~1-2 us)")
          .put(SCHED_TICK, 1000, E, "estimate 1000 (500-3000): timer interrupt + scheduler_tick + "
              + "update_process_times; no measurement in KERNEL-MODEL")
          .put(VMEXIT_ROUNDTRIP, 2000, V, "SplitX (KVM 2.6.34, Xeon X5570): direct exit cost 2,000 cycles; "
              + KM + ": 700 (500-1000) ns")
          .put(EXIT_IO_KERNEL, 2500, E, KM + ": 2500 (1500-8000), from the vCPU's exit to its re-entry, the eventfd "
              + "signal and a full wakeup of the waiting VMM thread included; ratio from kvm-unit-tests inl_from_kernel "
              + "15,218 vs inl_from_qemu 46,747 cycles [V]; QEMU 22773d6066 (pci-testdev, M. Tsirkin 2013): a port-I/O "
              + "exit with a wildcard ioeventfd costs 1,762 cycles against 5,287 cycles through QEMU [V] (a later core "
              + "than this profile's, whose exit round trip alone is 2,000 cycles), so 1,500 is the floor with a "
              + "wakeup; the seed mail: \"qemu-system-x86_64 only takes several microseconds to handle the "
              + "notification\" [B] (the x86 host of R2), the ceiling")
          .put(EXIT_USERSPACE, 8000, E, KM + ": 8000 (5000-15000), same ratio")
          .put(EXIT_HLT, 1500, E, "estimate 1500 (1000-3000): handle_halt + kvm_vcpu_block entry and exit, "
              + "excluding polling and sleep")
          .put(HYPERCALL, 1300, M, "Dall et al. ISCA'16 table, KVM x86 ~1,300 cycles (not re-verified); measured "
              + "on a later Intel core than this era's, whose bare exit alone costs 2,000 cycles (SplitX), so "
              + "likely low for Nehalem")
          .put(PV_KICK, 2000, E, "estimate 2000 (1000-5000): KVM_HC_KICK_CPU hypercall + kvm_vcpu_kick host "
              + "wakeup; the pv_wait/pv_kick round trip of KERNEL-MODEL §10 emerges from this, EXIT_HLT and "
              + "the host wakeup")
          .put(KVM_VCPU_ON_SPIN, 2000, E, "KERNEL-MODEL §6.2 'several us' per PLE exit: 2000 (1000-5000) for "
              + "the yield_to path when a candidate is boosted (the scan is priced per vCPU), excluding the exit")
          .put(HALT_POLL, 0, M, HALT_POLL_NOTE)
          .put(PLE_WINDOW, 4096, V, "arch/x86/kvm/vmx.c ple_window default 4096 TSC cycles (~1.5 us); "
              + "gap 128; fixed before 3.18 (b4a2d31da812 made it grow x2 per exit)")
          .put(IRQ_INJECT, 3000, E, "estimate 3000 (1500-5000): no posted interrupts before APICv "
              + "(Ivy Bridge-EP), so injection kicks the vCPU out with a host IPI and injects at entry")
          .put(IRQ_ENTRY, 500, E, "estimate 500 (200-1500): vector dispatch, irq_enter/irq_exit, EOI "
              + "(PV EOI avoids the EOI exit)")
          .put(VIRTQUEUE_ADD, 1000, E, KM + ": T_add under vq_lock 500-1500")
          .put(VIRTQUEUE_KICK_PREPARE, 100, E, "estimate 100 (30-200): full barrier + read of avail_event, "
              + "usually a miss (the device writes it)")
          .put(BLK_MQ_SUBMIT, 500, E, "500 (0-3000): " + KM + " guest submission 1500 (1000-4000) per request minus VIRTQUEUE_ADD (1000)")
          .put(BLK_MQ_COMPLETE, 1500, E, "estimate 1500 (800-3000): virtqueue_get_buf + virtblk_request_done + "
              + "blk_mq_end_request + aio_complete per request, without the wakeup (priced by try_to_wake_up)")
          .put(AIO_SUBMIT_PER_IO, 1000, E, "estimate 1000 (500-2000): io_submit per iocb: aio_run_iocb, "
              + "blkdev_direct_IO bio build, blk_mq_make_request (not measured for this era)")
          .put(AIO_REAP_PER_IO, 200, E, "estimate 200 (100-500): io_getevents per event: ring read and copy_to_user")
          .put(BENCH_USER_PER_IO, 1000, E, "estimate 1000 (500-3000): fio user-space work per I/O (io_u get/put, "
              + "offset generation, latency accounting)")
          .put(VMM_REQUEST_EMULATION, 7000, E, KM + ": QEMU virtio-blk 2014 single I/O thread 7000 (5000-10000); "
              + "KERNEL-MODEL derived this default from the R2 x86 result, so that result does not test it")
          .put(VMM_NOTIFY_BQL, 1000, E, "estimate 1000 (500-3000): uncontended qemu_mutex_lock_iothread + "
              + "memory dispatch; only used if the notify path is set to USERSPACE_VMM_UNDER_GLOBAL_LOCK")
          .put(VMM_MMIO_DISPATCH, 600, E, "estimate 600 (300-1500): QEMU 2.0 kvm-all.c kvm_cpu_exec after KVM_RUN "
              + "returns: qemu_mutex_lock_iothread (uncontended futex), kvm_arch_post_run, cpu_physical_memory_rw -> "
              + "address_space_rw -> memory_region_dispatch_read/write -> the register handler "
              + "(hw/virtio/virtio-mmio.c virtio_mmio_read/_write), the unlock before KVM_RUN; QEMU 22773d6066 "
              + "(pci-testdev, 2013): an exit to QEMU and back with a trivial handler costs 5,287 - 1,762 = 3,525 "
              + "cycles more than one handled in the kernel [V], of which this is the part after the return to "
              + "userspace (EXIT_USERSPACE prices the rest)")
          .put(QEMU_MAIN_LOOP_PASS, 1200, E, "estimate 1200 (600-2500): one iteration of QEMU 2.0.0 main-loop.c "
              + "main_loop_wait without its handlers, summed from the code [V: read at v2.0.0]: qemu_iohandler_fill "
              + "and qemu_iohandler_poll over the io_handlers list (iohandler.c); glib 2.40 gmain.c "
              + "g_main_context_prepare/query/check/dispatch, the context GMutex (a pthread mutex in 2.40) taken and "
              + "dropped around each source's prepare, check and dispatch; aio_ctx_prepare and aio_ctx_check walking "
              + "the bottom halves (async.c); 9 timerlist deadlines and 6 timerlist runs (qemu-timer.c: a QemuMutex "
              + "pair each, a clock read for each list with timers, qemu_event_reset/set around each run): about 25 "
              + "pthread mutex pairs at ~2 ATOMIC_RMW plus call overhead (~550 ns), ~9 vDSO clock reads (~25 ns "
              + "each [M]), a dozen atomics and the list walks; no measurement of a whole iteration was found")
          .put(QEMU_MAIN_LOOP_POLL_FDS, 1300, E, "1300 (500-3000): ppoll over the main loop's descriptors "
              + "(main-loop.c os_host_main_loop_wait -> qemu_poll_ns, fs/select.c do_poll: fget, ->poll, fput per "
              + "descriptor): 10-20 descriptors in a plain QEMU and ~88 ns each (F. Zheng, qemu-devel 2014, \"Introduce "
              + "QEMU Poll API\" cover letter [V]: \"As a base point (10~20 fd's), it takes 22000 ns for each "
              + "qemu_poll_ns\", 75000 ns with ~600 more descriptors); 15 x 88 ns, range 10-20 descriptors at 50-150 ns")
          .put(NIC_RX_PER_FRAME, 200, E, "estimate 200 (100-400): 3.0.27 drivers/net/ixgbe/ixgbe_main.c "
              + "ixgbe_clean_rx_irq per descriptor (status read, page/skb fill, checksum) and net/core/dev.c "
              + "napi_gro_receive -> dev_gro_receive (GRO list walk, skb_gro_receive frag append): ~10 cache "
              + "lines of descriptor, page and skb state per frame; no per-frame measurement of the 3.0 path found")
          .put(MEMCPY_PER_BYTE, 0.1, E, "estimate 0.1 (0.05-0.3) ns/B: ~10 GB/s single-core copy on "
              + "Nehalem/Sandy Bridge")
          .notApplicable(H_CEDE, "PowerVM hcall; x86 idles with HLT (EXIT_HLT)")
          .notApplicable(H_CONFER, "PowerVM hcall; x86 yields through PLE and kvm_vcpu_on_spin")
          .notApplicable(H_PROD, "PowerVM hcall; x86 kicks with KVM_HC_KICK_CPU (PV_KICK)")
          .build(),
      new HypervisorBehaviour(
          // 0b9f6c4615c9 (2016) wrote steal_time.preempted on every vcpu_put.
          VcpuPreemptedSemantics.X86_STEAL_TIME_ANY_PUT,
          // vmx.c: ple_gap 128 (41 before); handle_pause -> kvm_vcpu_on_spin. Growth factor 1: the
          // dynamic window (ple_window_grow 2) arrived in 3.18 (b4a2d31da812), after this era.
          new SpinTrap(true, SpinTrap.Trigger.PAUSE_LOOP, 128, 1, true),
          true,
          NotifyPath.IOEVENTFD_IN_KERNEL,
          true,
          false,
          250, // [M] distro server kernels of the era (SLES 11: 250)
          250, // [M] KERNEL-MODEL 2.3: x86 guests 250-1000
          0,
          1.0),
      org.lockvisor.arch.spi.KernelSymbols.X86_64);

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String summary() {
    return PROFILE.summary();
  }

  /** The 2016 steal-time flag (set on every vcpu_put) or the later involuntary-only one. */
  @Override
  public Set<VcpuPreemptedSemantics> vcpuPreemptedSemantics() {
    return Set.of(VcpuPreemptedSemantics.X86_STEAL_TIME_ANY_PUT, VcpuPreemptedSemantics.X86_STEAL_TIME_INVOLUNTARY);
  }

  @Override
  public ArchProfile create(PluginContext context) {
    return PROFILE;
  }
}
