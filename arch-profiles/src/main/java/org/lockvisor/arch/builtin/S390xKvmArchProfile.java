package org.lockvisor.arch.builtin;

import static org.lockvisor.arch.spi.Cost.Confidence.E;
import static org.lockvisor.arch.spi.Cost.Confidence.M;
import static org.lockvisor.arch.spi.Cost.Confidence.V;
import static org.lockvisor.arch.spi.CostKey.*;

import com.google.auto.service.AutoService;
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
 * s390x (z13-class) LPAR running KVM: guests run under SIE; arch_vcpu_is_preempted answers false
 * for a CPU in enabled wait or one that SIGP SENSE RUNNING reports running (arch/s390/kernel/smp.c);
 * spinlocks spin spin_retry times and then yield to the holder with DIAG 0x9c instead of being
 * trapped; virtio-ccw notifies are DIAGNOSE 0x500 hypercalls handled by KVM's ioeventfd.
 *
 * <p>Mostly estimates: no s390 measurement was at hand; each source says which.
 */
@AutoService(ArchProfileFactory.class)
public final class S390xKvmArchProfile implements ArchProfileFactory {

  public static final String NAME = "s390x-kvm";

  private static final String KM = "KERNEL-MODEL §10";
  private static final String REUSED = " (x86 estimate reused: no s390 measurement)";

  private static final ArchProfile PROFILE = new ArchProfile(
      NAME,
      "s390x z13-class KVM host; SIGP-sense vcpu_is_preempted, DIAG 0x9c directed yield, virtio-ccw ioeventfd notify",
      "A z13-class mainframe LPAR (CP chips of up to 8 cores, SMT2) running KVM. Guests run under SIE. "
          + "vcpu_is_preempted() is false for a CPU in enabled wait or one SIGP SENSE RUNNING reports "
          + "running. Spinning never traps: spinlocks retry spin_retry times and then yield to the "
          + "holder with DIAG 0x9c. virtio-ccw notifies are DIAGNOSE 0x500 hypercalls that KVM turns into "
          + "ioeventfd signals. Host and guest tick at HZ=100.",
      new Topology(2, 8, 2),
      CostTable.builder()
          .put(CPU_CYCLE, 0.2, M, "z13 at 5.0 GHz")
          .put(ATOMIC_RMW, 5, E, "estimate 5 (3-10): COMPARE AND SWAP on an L1-resident line")
          .put(L1_ACCESS, 1, M, "L1 hit ~4 cycles at 5 GHz")
          .put(CACHELINE_XFER_SMT, 4, E, "estimate 4 (2-10): SMT2 threads share L1/L2")
          .put(CACHELINE_XFER_SOCKET, 40, E, "estimate 40 (20-80): cores of one CP chip through its shared L3")
          .put(CACHELINE_XFER_REMOTE, 150, E, "estimate 150 (100-400): another chip through the L4/SC chip; "
              + "other drawers farther")
          .put(PAUSE, 1, M, "cpu_relax() is a compiler barrier on s390 (the DIAG 0x44 yield was removed)")
          .put(SPIN_THRESHOLD_LOOPS, 1000, M, "arch/s390/lib/spinlock.c spin_retry default 1000: loops before "
              + "yielding to the holder with DIAG 0x9c")
          .put(QSPINLOCK_PENDING_LOOPS, 1, M, "generic _Q_PENDING_LOOPS 1 (kernel/locking/qspinlock.c [V]); s390 "
              + "uses its own queued spinlock")
          .put(VCPU_PREEMPTED_CHECK, 20, E, "estimate 20 (5-100): enabled-wait flag check, then SIGP SENSE "
              + "RUNNING (arch/s390/kernel/smp.c [V] for the logic)")
          .put(SYSCALL, 100, E, "estimate 100 (50-200): SVC and return")
          .put(TTWU_RUNNING, 100, E, KM + ": 100 (50-200)" + REUSED)
          .put(TTWU_ON_RQ, 500, E, KM + ": 500 (300-1000)" + REUSED)
          .put(TTWU_FULL, 1000, E, KM + ": 1000 (500-1500)" + REUSED)
          .put(IPI_SEND, 500, E, "estimate 500 (200-1000): SIGP external call")
          .put(IPI_SEND_GUEST, 2000, E, "estimate 2000 (1000-4000): SIGP intercepted by KVM where not interpreted")
          .put(WAKEE_IDLE_EXIT, 5000, E, KM + ": 5000 (2000-10000)" + REUSED)
          .put(CONTEXT_SWITCH, 1500, E, KM + ": 1500 (1000-5000)" + REUSED)
          .put(SCHED_TICK, 1000, E, "estimate 1000 (500-3000): clock comparator interrupt + scheduler_tick")
          .put(VMEXIT_ROUNDTRIP, 3000, E, "estimate 3000 (1500-10000) cycles: SIE exit and re-entry")
          .put(EXIT_IO_KERNEL, 2500, E, "estimate 2500 (1500-5000): DIAGNOSE 0x500 virtio-ccw notify to KVM "
              + "ioeventfd" + REUSED)
          .put(EXIT_USERSPACE, 8000, E, "estimate 8000 (5000-15000): x86 ratio userspace ~3x kernel exit" + REUSED)
          .put(EXIT_HLT, 2000, E, "estimate 2000 (1000-4000): enabled-wait intercept, excluding polling and sleep")
          .put(HYPERCALL, 3000, E, "estimate 3000 (1500-10000) cycles: DIAGNOSE intercept round trip")
          .put(PV_KICK, 3000, E, "estimate 3000 (1500-6000): SIGP to wake a waiting vCPU + host wakeup")
          .put(KVM_VCPU_ON_SPIN, 2000, E, "estimate 2000 (1000-5000): DIAG 0x44 -> kvm_vcpu_on_spin, DIAG 0x9c -> "
              + "kvm_vcpu_yield_to [M]")
          .put(HALT_POLL, 50_000, V, "arch/s390/include/asm/kvm_host.h KVM_HALT_POLL_NS_DEFAULT 50000 (seen in a "
              + "kvm mail patch)")
          .notApplicable(PLE_WINDOW, "s390 has no pause-loop exiting; spinlocks yield explicitly with DIAG 0x9c")
          .put(IRQ_INJECT, 3000, E, "estimate 3000 (1500-5000): floating/local interrupt injection at SIE entry")
          .put(IRQ_ENTRY, 500, E, "estimate 500 (200-1500): PSW swap, irq_enter/irq_exit")
          .put(VIRTQUEUE_ADD, 1000, E, KM + ": T_add under vq_lock 500-1500" + REUSED)
          .put(VIRTQUEUE_KICK_PREPARE, 100, E, "estimate 100 (30-200): full barrier + read of avail_event")
          .put(BLK_MQ_SUBMIT, 500, E, "500 (0-3000): " + KM + " guest submission 1500 (1000-4000) minus VIRTQUEUE_ADD (1000)" + REUSED)
          .put(BLK_MQ_COMPLETE, 1500, E, "estimate 1500 (800-3000): get_buf + blk_mq_complete_request + "
              + "aio_complete per request" + REUSED)
          .put(AIO_SUBMIT_PER_IO, 1000, E, "estimate 1000 (500-2000): io_submit per iocb above the driver" + REUSED)
          .put(AIO_REAP_PER_IO, 200, E, "estimate 200 (100-500): io_getevents per event" + REUSED)
          .put(BENCH_USER_PER_IO, 1000, E, "estimate 1000 (500-3000): fio user-space work per I/O" + REUSED)
          .put(VMM_REQUEST_EMULATION, 7000, E, KM + ": QEMU virtio-blk 7000 (5000-10000)" + REUSED)
          .put(VMM_NOTIFY_BQL, 1000, E, "estimate 1000 (500-3000): only used if the notify path is set to "
              + "USERSPACE_VMM_UNDER_GLOBAL_LOCK")
          .put(VMM_MMIO_DISPATCH, 600, E, "estimate 600 (300-1500): the x86 profile's QEMU BQL section of an emulated register access (kvm-all.c kvm_cpu_exec, memory dispatch)" + REUSED)
          .put(QEMU_MAIN_LOOP_PASS, 1200, E, "estimate 1200 (600-2500): the x86 profile's QEMU 2.0 main-loop iteration without handlers (glib, iohandler, timer lists)" + REUSED)
          .put(QEMU_MAIN_LOOP_POLL_FDS, 1300, E, "1300 (500-3000): ppoll over 10-20 main-loop descriptors at ~88 ns each (F. Zheng, qemu-devel 2014)" + REUSED)
          .put(NIC_RX_PER_FRAME, 200, E, "estimate 200 (100-400): NIC driver receive per descriptor and "
              + "napi_gro_receive per frame" + REUSED)
          .put(MEMCPY_PER_BYTE, 0.1, E, "estimate 0.1 (0.05-0.3) ns/B: MVC/MVCLE bulk copy")
          .notApplicable(H_CEDE, "PowerVM hcall; s390 idles in enabled wait (EXIT_HLT)")
          .notApplicable(H_CONFER, "PowerVM hcall; s390 yields with DIAG 0x9c (KVM_VCPU_ON_SPIN)")
          .notApplicable(H_PROD, "PowerVM hcall; s390 wakes with SIGP (PV_KICK)")
          .build(),
      new HypervisorBehaviour(
          VcpuPreemptedSemantics.S390,
          SpinTrap.NONE,
          true, // [M] steal time from the hypervisor-maintained CPU timers
          NotifyPath.IOEVENTFD_IN_KERNEL,
          true, // [M] SIGP orders are intercepted unless interpreted
          false, // [M] adapter-interrupt (GISA) interpretation came later
          100, // [M] s390 defconfig HZ_100
          100,
          0,
          1.0),
      org.lockvisor.arch.spi.KernelSymbols.S390X);

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String summary() {
    return PROFILE.summary();
  }

  @Override
  public ArchProfile create(PluginContext context) {
    return PROFILE;
  }
}
