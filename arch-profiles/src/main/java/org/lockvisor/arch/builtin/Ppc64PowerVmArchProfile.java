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
 * POWER8 shared-processor LPAR under the PowerVM hypervisor (PHYP): virtual processors are
 * dispatched in 10 ms windows against an entitlement; a guest sees whether another vCPU is
 * dispatched through the lppaca yield_count (odd = not dispatched); spinlocks confer their cycles to
 * a preempted holder with H_CONFER (arch/powerpc/lib/locks.c __spin_yield), idle vCPUs H_CEDE and
 * are woken with H_PROD. There is no spin trapping and no KVM: halt polling, PLE and the userspace
 * VMM do not exist.
 *
 * <p>PHYP is closed, so nearly every hypervisor price here is an estimate; the ranges are wide on
 * purpose. The processor costs (issue 22) come from published POWER8 measurements where one was
 * found: cache latencies and STREAM from AnandTech's POWER8 review (2016, lmbench and STREAM on an
 * S812LC), the null system call from a POWER9 measurement on linuxppc-dev (2019); each entry says
 * which, and the estimates that remain say what was searched. None is chosen to match a profile.
 */
@AutoService(ArchProfileFactory.class)
public final class Ppc64PowerVmArchProfile implements ArchProfileFactory {

  public static final String NAME = "ppc64-powervm";

  private static final String KM = "KERNEL-MODEL §10";
  private static final String REUSED = " (x86 estimate reused: no POWER measurement)";
  /** AnandTech, "Assessing IBM's POWER8, Part 1" (J. De Gelas, July 2016), S812LC, lmbench lat_mem_rd. */
  private static final String LMBENCH = "[M: AnandTech 'Assessing IBM's POWER8, Part 1', 2016, lmbench]";
  /** The same review's STREAM 5.10 measurement. */
  private static final String LMBENCH_STREAM = "[M: AnandTech 'Assessing IBM's POWER8, Part 1', 2016, STREAM]";

  private static final ArchProfile PROFILE = new ArchProfile(
      NAME,
      "POWER8 shared-processor LPAR under PowerVM; 10 ms dispatch window, yield_count preemption check, H_CONFER/H_CEDE/H_PROD",
      "A POWER8 server (2 sockets x 10 cores, SMT8) hosting shared-processor LPARs under PowerVM. The "
          + "hypervisor dispatches virtual processors in 10 ms windows against their entitlement; a "
          + "guest tells that a vCPU is not dispatched from its lppaca yield_count (odd). Spinlocks "
          + "confer cycles to a preempted holder with H_CONFER, idle vCPUs cede with H_CEDE and are "
          + "prodded with H_PROD; hypervisor time is what perf shows as [H]. Guests tick at HZ=100. "
          + "Virtual I/O goes through hcalls to the VIOS partition, not virtio.",
      new Topology(2, 10, 8),
      CostTable.builder()
          .put(CPU_CYCLE, 1 / 3.5, M, "POWER8 at ~3.5 GHz (S822-class parts 3.0-4.1 GHz)")
          .put(ATOMIC_RMW, 10, E, "estimate 10 (8-15), derived: POWER8's L1 D-cache is store-through, so a "
              + "stwcx. completes in the L2 (13 cycles [M] " + LMBENCH + "); lwarx + stwcx. + the lwsync/isync "
              + "of the acquire/release ~35 cycles at 3.5 GHz. Under contention the line's transfer is "
              + "priced by distance (CACHELINE_XFER_*) on top")
          .put(L1_ACCESS, 1, M, "POWER8 L1 hit ~3 cycles")
          .put(CACHELINE_XFER_SMT, 4, M, "4 (3-5): threads of a core meet in its L2 (store-through L1); "
              + "L2 hit 13 cycles " + LMBENCH)
          .put(CACHELINE_XFER_SOCKET, 55, M, "55 (40-80): another core's cache on the same chip; lmbench "
              + "latency beyond the core's own 8 MB L3 region (the other cores' L3 on the 10-core chip) 55 ns "
              + LMBENCH + "; own L3 region 27-28 cycles (8 ns)")
          .put(CACHELINE_XFER_REMOTE, 250, E, "estimate 250 (100-400): between chips over the SMP links; no "
              + "POWER8 chip-to-chip measurement found; lmbench memory latency 67-91 ns " + LMBENCH
              + " is its floor")
          .put(PAUSE, 2, E, "estimate 2 (1-5): HMT_low/HMT_medium priority nops of the spin loop")
          .put(SPIN_THRESHOLD_LOOPS, 1 << 15, M, "generic SPIN_THRESHOLD (1 << 15); the SPLPAR spinlock does not "
              + "use it: it calls __spin_yield every iteration")
          .put(QSPINLOCK_PENDING_LOOPS, 1, V, "kernel/locking/qspinlock.c generic _Q_PENDING_LOOPS 1")
          .put(VCPU_PREEMPTED_CHECK, 3, E, "estimate 3 (1-10): load of the other vCPU's lppaca yield_count; a "
              + "miss after the hypervisor updated it is priced as a cache-line transfer")
          .put(SYSCALL, 120, M, "120 (60-160): null_syscall selftest (getppid round trip) 124.4 ns on POWER9 "
              + "with the asm system_call_common path of 4.x (N. Piggin, linuxppc-dev, 28 Aug 2019, \"powerpc/64: "
              + "system call remove non-volatile GPR save optimisation\"); no POWER8 figure found, and a 2019 "
              + "kernel may include the 2018 RFI-flush mitigation, so the low end is open")
          .put(TTWU_RUNNING, 100, E, KM + ": 100 (50-200)" + REUSED)
          .put(TTWU_ON_RQ, 500, E, KM + ": 500 (300-1000)" + REUSED)
          .put(TTWU_FULL, 1000, E, KM + ": 1000 (500-1500)" + REUSED)
          .put(IPI_SEND, 300, E, "estimate 300 (100-1000): doorbell / XICS MFRR write" + REUSED)
          .put(IPI_SEND_GUEST, 1500, E, "estimate 1500 (1000-3000): H_IPI hcall to the XICS emulation")
          .put(WAKEE_IDLE_EXIT, 5000, E, KM + ": 5000 (2000-10000)" + REUSED)
          .put(CONTEXT_SWITCH, 1500, E, KM + ": 1500 (1000-5000)" + REUSED)
          .put(SCHED_TICK, 1000, E, "estimate 1000 (500-3000): decrementer interrupt + scheduler_tick")
          .put(VMEXIT_ROUNDTRIP, 1500, E, "estimate 1500 (1000-5000) cycles: partition to PHYP transition "
              + "(hypervisor call or interrupt) and back")
          .put(EXIT_IO_KERNEL, 2500, E, "estimate 2500 (1500-5000): no KVM; stands for an hcall that queues work "
              + "for the VIOS (H_SEND_CRQ, H_SEND_LOGICAL_LAN)")
          .put(EXIT_USERSPACE, 10_000, E, "estimate 10000 (5000-30000): no userspace VMM under PowerVM; stands for "
              + "a synchronous round trip through the VIOS partition, never on the default notify path")
          .put(EXIT_HLT, 2000, E, "estimate 2000 (1000-5000): idle is H_CEDE; same price")
          .put(HYPERCALL, 3500, E, "estimate 3500 (1750-10000) cycles: ~1 us null hcall")
          .put(PV_KICK, 1500, E, "estimate 1500 (1000-3000): PowerVM has no KVM kick; waking a ceded vCPU is "
              + "H_PROD")
          .notApplicable(KVM_VCPU_ON_SPIN, "PowerVM, not KVM: no spin trapping; spinners confer with H_CONFER")
          .notApplicable(HALT_POLL, "PowerVM, not KVM: a ceded processor returns to the hypervisor's pool")
          .notApplicable(PLE_WINDOW, "POWER has no pause-loop exiting; the guest yields explicitly")
          .put(IRQ_INJECT, 3000, E, "estimate 3000 (1500-5000): hypervisor-delivered external interrupt to a "
              + "dispatched vCPU")
          .put(IRQ_ENTRY, 500, E, "estimate 500 (200-1500): external interrupt entry, XICS accept and EOI")
          .notApplicable(VIRTQUEUE_ADD, "PowerVM guests use vSCSI/vETH over CRQs, not virtio")
          .notApplicable(VIRTQUEUE_KICK_PREPARE, "PowerVM guests use vSCSI/vETH over CRQs, not virtio")
          .put(BLK_MQ_SUBMIT, 500, E, KM + ": guest block submission share, 500 (500-2500)" + REUSED)
          .put(BLK_MQ_COMPLETE, 1500, E, "estimate 1500 (800-3000): per-request block completion in the "
              + "interrupt handler" + REUSED)
          .put(AIO_SUBMIT_PER_IO, 1000, E, "estimate 1000 (500-2000): io_submit per iocb above the driver" + REUSED)
          .put(AIO_REAP_PER_IO, 200, E, "estimate 200 (100-500): io_getevents per event" + REUSED)
          .put(BENCH_USER_PER_IO, 1000, E, "estimate 1000 (500-3000): fio user-space work per I/O" + REUSED)
          .put(VMM_REQUEST_EMULATION, 10_000, E, "estimate 10000 (5000-30000): no userspace VMM; stands for the "
              + "VIOS per-request service")
          .notApplicable(VMM_NOTIFY_BQL, "no userspace VMM and no global lock under PowerVM")
          .notApplicable(VMM_MMIO_DISPATCH, "no userspace VMM and no global lock under PowerVM")
          .notApplicable(QEMU_MAIN_LOOP_PASS, "no QEMU main loop under PowerVM")
          .notApplicable(QEMU_MAIN_LOOP_POLL_FDS, "no QEMU main loop under PowerVM")
          .put(NIC_RX_PER_FRAME, 200, E, "estimate 200 (100-400): NIC driver receive per descriptor and "
              + "napi_gro_receive per frame" + REUSED)
          .put(MEMCPY_PER_BYTE, 0.1, M, "0.1 (0.01-0.15) ns/B: STREAM triad (gcc) 90 GB/s per 10-core socket "
              + LMBENCH_STREAM + ", ~9 GB/s per core when all stream; an L1/L2-resident copy (a 100 B pipe "
              + "message) is faster, at most two 16 B stores per cycle (~0.01 ns/B)")
          .put(H_CEDE, 2000, E, "estimate 2000 (1000-5000): H_CEDE entry and return, excluding the time ceded")
          .put(H_CONFER, 2000, E, "estimate 2000 (1000-5000): H_CONFER from __spin_yield "
              + "(arch/powerpc/lib/locks.c [V]), excluding the cycles conferred")
          .put(H_PROD, 1500, E, "estimate 1500 (1000-3000): H_PROD of a ceded vCPU, caller side")
          .build(),
      new HypervisorBehaviour(
          VcpuPreemptedSemantics.PPC_YIELD_COUNT,
          SpinTrap.NONE,
          true, // [M] SPLPAR stolen time from the dispatch trace log
          NotifyPath.HCALL_TO_IO_SERVER,
          true, // H_IPI is an hcall
          false,
          0, // PHYP has no Linux tick; it dispatches in windows
          100, // [M] KERNEL-MODEL 2.3: ppc64 guests typically HZ=100
          10_000_000, // [V] KERNEL-MODEL 2.3: PowerVM dispatch window 10 ms (IBM docs)
          // [E] 0.5 processing units per virtual processor = 2x overcommit (KERNEL-MODEL 13.4);
          // PowerVM allows down to 0.05 per VP [M]
          0.5),
      org.lockvisor.arch.spi.KernelSymbols.PPC64_POWERVM);

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
