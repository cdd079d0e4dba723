package org.lockvisor.arch.spi;

/**
 * Every cost constant the simulator reads from an arch profile. Each key has one fixed unit, so a
 * profile (or a YAML override) states the value the way its source states it: exit costs in
 * cycles where the measurement was taken in cycles, everything else in nanoseconds.
 *
 * <p>Keys priced in {@link Unit#CYCLES} are converted with the profile's {@link #CPU_CYCLE}; the
 * hot path reads the converted value through {@link CostTable#ns(CostKey)}. Where a mechanism
 * is absent on an architecture (PowerVM hcalls on x86, say) the profile still carries the key,
 * marked not applicable with a reason ({@link Cost#notApplicable}).
 *
 * <p>Sources and defaults: lockvisor KERNEL-MODEL section 10; the doc line of each key says what
 * the simulator charges it for.
 */
public enum CostKey {
  CPU_CYCLE(Unit.NANOSECONDS, "duration of one core clock cycle; converts the CYCLES-priced keys"),
  ATOMIC_RMW(Unit.NANOSECONDS, "uncontended locked read-modify-write (xchg/cmpxchg/xadd, LL/SC pair) on an L1-resident line"),
  L1_ACCESS(Unit.NANOSECONDS, "plain load or store that hits L1"),
  CACHELINE_XFER_SMT(Unit.NANOSECONDS, "cache-line transfer between SMT siblings of one core (shared L1/L2)"),
  CACHELINE_XFER_SOCKET(Unit.NANOSECONDS, "cache-line transfer (HITM/RFO) between cores of one socket"),
  CACHELINE_XFER_REMOTE(Unit.NANOSECONDS, "cache-line transfer between sockets"),
  PAUSE(Unit.NANOSECONDS, "latency of one cpu_relax() (PAUSE, yield, HMT_low, barrier) in a spin loop"),
  SPIN_THRESHOLD_LOOPS(Unit.COUNT, "spin iterations before a paravirt lock waiter halts (SPIN_THRESHOLD)"),
  QSPINLOCK_PENDING_LOOPS(Unit.COUNT, "qspinlock slow path iterations waiting for a pending-only lock word (_Q_PENDING_LOOPS)"),
  VCPU_PREEMPTED_CHECK(Unit.NANOSECONDS, "one vcpu_is_preempted() read when the line is cached by the checker"),
  SYSCALL(Unit.NANOSECONDS, "system call entry and return, excluding the work done"),
  TTWU_RUNNING(Unit.NANOSECONDS, "try_to_wake_up fast exit: target already running (p->pi_lock round trip)"),
  TTWU_ON_RQ(Unit.NANOSECONDS, "try_to_wake_up when the target is still on its runqueue (remote rq->lock, set state, preempt check)"),
  TTWU_FULL(Unit.NANOSECONDS, "full wakeup local or same LLC: select_task_rq + enqueue + check_preempt_curr"),
  IPI_SEND(Unit.NANOSECONDS, "sender cost of one IPI on bare metal or in the host (APIC/GIC/doorbell write)"),
  IPI_SEND_GUEST(Unit.NANOSECONDS, "sender cost of one IPI from a guest, including the VM exit where IPIs are not posted"),
  WAKEE_IDLE_EXIT(Unit.NANOSECONDS, "wakee start latency on an idle CPU in a shallow C-state: IPI delivery, idle exit, switch in"),
  CONTEXT_SWITCH(Unit.NANOSECONDS, "direct cost of one context switch (__schedule, switch_to)"),
  SCHED_TICK(Unit.NANOSECONDS, "cost of one scheduler tick handler (timer interrupt, scheduler_tick, update_process_times)"),
  VMEXIT_ROUNDTRIP(Unit.CYCLES, "VM exit plus re-entry as every exit pays it (hardware transition and mandatory state switch), no handler"),
  EXIT_IO_KERNEL(Unit.NANOSECONDS, "PIO/MMIO exit handled in the host kernel, incl. ioeventfd signal, exit and entry"),
  EXIT_USERSPACE(Unit.NANOSECONDS, "exit forwarded to the userspace VMM and back (KVM_RUN return and re-entry), excluding VMM work"),
  EXIT_HLT(Unit.NANOSECONDS, "HLT/WFI/idle exit handling, excluding halt polling and the time asleep"),
  HYPERCALL(Unit.CYCLES, "null hypercall round trip (guest to hypervisor and back)"),
  PV_KICK(Unit.NANOSECONDS, "unlocker-side cost of kicking a halted vCPU (kick hypercall + host wakeup of its thread)"),
  KVM_VCPU_ON_SPIN(Unit.NANOSECONDS, "directed yield after a PLE/WFE exit when it boosts a preempted vCPU (yield_to: runqueue locks, buddies, resched IPI); the candidate scan is priced per vCPU as CACHELINE_XFER_SOCKET"),
  HALT_POLL(Unit.NANOSECONDS, "host halt polling before a halted vCPU thread sleeps (KVM halt_poll_ns); 0 = none"),
  PLE_WINDOW(Unit.CYCLES, "spinning time before a pause-loop/WFE trap fires (ple_window, TSC cycles); 0 where nothing traps"),
  IRQ_INJECT(Unit.NANOSECONDS, "interrupt injection into a running vCPU: kick, forced exit where not posted, delivery at entry"),
  IRQ_ENTRY(Unit.NANOSECONDS, "interrupt entry and exit overhead in the interrupted kernel (vector dispatch, irq_enter/exit, EOI)"),
  VIRTQUEUE_ADD(Unit.NANOSECONDS, "guest virtqueue add of one request (descriptors + avail ring update), run under the vq lock"),
  VIRTQUEUE_KICK_PREPARE(Unit.NANOSECONDS, "guest virtqueue_kick_prepare: full barrier and read of the device's event index"),
  BLK_MQ_SUBMIT(Unit.NANOSECONDS, "guest blk-mq request setup outside the vq lock (header, scatterlist, tag)"),
  BLK_MQ_COMPLETE(Unit.NANOSECONDS, "guest per-request completion in the device interrupt handler (get_buf, blk_mq_complete_request down to aio_complete), excluding the wakeup"),
  AIO_SUBMIT_PER_IO(Unit.NANOSECONDS, "guest kernel work per request of io_submit above the driver (iocb, direct-I/O bio, blk_mq_make_request)"),
  AIO_REAP_PER_IO(Unit.NANOSECONDS, "guest kernel work per event reaped by io_getevents (copy of the io_event)"),
  BENCH_USER_PER_IO(Unit.NANOSECONDS, "benchmark user-space work per I/O (fio io_u handling, offsets, accounting)"),
  VMM_REQUEST_EMULATION(Unit.NANOSECONDS, "userspace VMM per-request device emulation (virtio-blk pop, parse, io_submit, complete)"),
  VMM_NOTIFY_BQL(Unit.NANOSECONDS, "userspace VMM global-lock acquire plus dispatch of one MMIO notify, excluding request work"),
  VMM_MMIO_DISPATCH(Unit.NANOSECONDS, "userspace VMM global-lock section of one emulated MMIO register read or write (lock, memory dispatch, register handler), excluding interrupt-line updates"),
  QEMU_MAIN_LOOP_PASS(Unit.NANOSECONDS, "QEMU 2.0 main_loop_wait's own work per iteration outside the poll system call and the handlers it runs (glib prepare/query/check/dispatch, iohandler fill/poll, timer-list deadlines and runs)"),
  QEMU_MAIN_LOOP_POLL_FDS(Unit.NANOSECONDS, "kernel work of one ppoll over the descriptors of QEMU's main loop (fget, ->poll, fput per descriptor), excluding the system call's entry and return"),
  NIC_RX_PER_FRAME(Unit.NANOSECONDS, "host NIC receive per frame in the NAPI poll before the skb goes up: the driver's descriptor and page handling (ixgbe_clean_rx_irq) and napi_gro_receive -> dev_gro_receive"),
  MEMCPY_PER_BYTE(Unit.NS_PER_BYTE, "bulk copy cost per byte (copy_user, memcpy of packet and block payloads)"),
  H_CEDE(Unit.NANOSECONDS, "PowerVM H_CEDE: give the processor back to the hypervisor while idle, excluding idle time"),
  H_CONFER(Unit.NANOSECONDS, "PowerVM H_CONFER: donate this vCPU's cycles to a preempted lock holder"),
  H_PROD(Unit.NANOSECONDS, "PowerVM H_PROD: wake a ceded vCPU");

  /** The unit a key's value is stated in. */
  public enum Unit {
    NANOSECONDS("ns"),
    NS_PER_BYTE("ns/B"),
    CYCLES("cycles"),
    COUNT("count");

    private final String symbol;

    Unit(String symbol) {
      this.symbol = symbol;
    }

    /** Short symbol for tables, e.g. {@code ns}. */
    public String symbol() {
      return symbol;
    }

    /** True for units that {@link CostTable#ns(CostKey)} can answer. */
    public boolean isDuration() {
      return this == NANOSECONDS || this == CYCLES;
    }
  }

  private final Unit unit;
  private final String doc;

  CostKey(Unit unit, String doc) {
    this.unit = unit;
    this.doc = doc;
  }

  /** The unit this key's value is stated in. */
  public Unit unit() {
    return unit;
  }

  /** One line: what the simulator charges this cost for. */
  public String doc() {
    return doc;
  }
}
