package org.lockvisor.arch.spi;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableMap;
import java.util.Map;

/**
 * The names the machine charges time to, and gives VM exits, that differ by architecture: a
 * perf report of a POWER8 guest shows {@code timer_interrupt}, not x86's {@code
 * apic_timer_interrupt}; an arm64 host enters the guest through {@code kvm_call_hyp(__kvm_vcpu_run)},
 * not {@code vmx_vcpu_run}. Each profile names its own, checked in the source of its era (the
 * constants below cite file and function); the machine looks them up and never spells an
 * architecture's name itself. Names only: nothing here changes what runs or what it costs.
 *
 * @param hostIdle the host idle loop's symbol
 * @param guestIdle a guest's idle loop symbol
 * @param hostTimerInterrupt the host's tick interrupt handler
 * @param guestTimerInterrupt a guest's tick interrupt handler
 * @param reschedInterrupt the reschedule IPI's handler on the receiving CPU
 * @param reschedSend {@code smp_send_reschedule} as the architecture names its send path
 * @param hostIpiSend the interrupt controller's IPI send on the host (no exit)
 * @param guestIpiSend a guest's IPI send when it does not exit
 * @param guestIpiHandler the host's handler of a guest's IPI exit
 * @param guestIpiWork the symbol that handler's time is charged to
 * @param guestEntry the host function around entering guest mode (a VM exit's round trip)
 * @param guestEntryWork the symbol of the world switch itself
 * @param haltHandler the host's handler of a halt exit (HLT, WFI, wait state)
 * @param haltWork the symbol the halt handler's time is charged to
 * @param syscallEntry the system call entry a user task's syscall goes through
 * @param exitNames the machine's exit kinds (x86's {@code perf kvm stat} words, its working
 *     vocabulary: HLT, MSR_WRITE, IO_INSTRUCTION, EXTERNAL_INTERRUPT, HYPERCALL, MMIO, IRQ,
 *     PAUSE_INSTRUCTION) to this architecture's {@code perf kvm stat} names; a kind missing keeps
 *     its name
 */
public record KernelSymbols(
    String hostIdle,
    String guestIdle,
    String hostTimerInterrupt,
    String guestTimerInterrupt,
    String reschedInterrupt,
    String reschedSend,
    String hostIpiSend,
    String guestIpiSend,
    String guestIpiHandler,
    String guestIpiWork,
    String guestEntry,
    String guestEntryWork,
    String haltHandler,
    String haltWork,
    String syscallEntry,
    Map<String, String> exitNames) {

  public KernelSymbols {
    for (String s : new String[] {hostIdle, guestIdle, hostTimerInterrupt, guestTimerInterrupt, reschedInterrupt,
        reschedSend, hostIpiSend, guestIpiSend, guestIpiHandler, guestIpiWork, guestEntry, guestEntryWork,
        haltHandler, haltWork, syscallEntry}) {
      checkArgument(s != null && !s.isBlank(), "every kernel symbol must be named");
    }
    exitNames = ImmutableMap.copyOf(exitNames);
  }

  /** The {@code perf kvm stat} name of the machine's exit kind {@code kind} on this architecture. */
  public String exitName(String kind) {
    String name = exitNames.get(kind);
    return name == null ? kind : name;
  }

  /**
   * x86-64 KVM (the names the machine always used): {@code apic_timer_interrupt} and {@code
   * reschedule_interrupt} (arch/x86/kernel/entry_64.S), {@code native_smp_send_reschedule} ->
   * {@code x2apic_send_IPI}, {@code vcpu_enter_guest} -> {@code vmx_vcpu_run}
   * (arch/x86/kvm/x86.c, vmx.c), {@code kvm_emulate_halt}/{@code handle_halt}, {@code
   * entry_SYSCALL_64}; exit kinds are already x86's {@code perf kvm stat} names.
   */
  public static final KernelSymbols X86_64 = new KernelSymbols("intel_idle", "default_idle",
      "apic_timer_interrupt", "apic_timer_interrupt", "reschedule_interrupt", "native_smp_send_reschedule",
      "x2apic_send_IPI", "kvm_send_ipi", "handle_wrmsr", "kvm_apic_send_ipi", "vcpu_enter_guest", "vmx_vcpu_run",
      "kvm_emulate_halt", "handle_halt", "entry_SYSCALL_64", Map.of());

  /**
   * arm64 KVM of 2014 (Linux 3.15), host and guest. Timer: with HYP mode available the host takes
   * the physical timer and leaves the virtual one to guests (drivers/clocksource/arm_arch_timer.c,
   * arch_timer_init: {@code is_hyp_mode_available()}), so the host's tick is {@code
   * arch_timer_handler_phys} and a guest's {@code arch_timer_handler_virt}. IPIs: {@code
   * smp_send_reschedule} -> {@code smp_cross_call}, which the GIC driver set to {@code
   * gic_raise_softirq} (drivers/irqchip/irq-gic.c, irq-gic-v3.c: {@code
   * set_smp_cross_call(gic_raise_softirq)}); received in {@code handle_IPI} (arch/arm64/kernel/smp.c).
   * A guest's SGI is a write to the emulated distributor's GICD_SGIR, an MMIO data abort handled
   * by {@code io_mem_abort} -> {@code vgic_dispatch_sgi} (virt/kvm/arm/vgic.c, handle_mmio_sgi_reg).
   * Guest entry: {@code kvm_arch_vcpu_ioctl_run} -> {@code kvm_call_hyp(__kvm_vcpu_run, vcpu)}
   * (arch/arm/kvm/arm.c). WFI: {@code kvm_handle_wfx} -> {@code kvm_vcpu_block}
   * (arch/arm64/kvm/handle_exit.c). Syscalls: {@code el0_svc} (arch/arm64/kernel/entry.S). Idle:
   * {@code arch_cpu_idle} (arch/arm64/kernel/process.c, WFI through cpu_do_idle). Exits by {@code
   * perf kvm stat}'s arm64 classes: WFx for WFI/WFE, DABT_LOW for MMIO (virtio-mmio notify, GICD
   * writes), IRQ for a host interrupt, HVC64 for a hypercall.
   */
  public static final KernelSymbols ARM64 = new KernelSymbols("arch_cpu_idle", "arch_cpu_idle",
      "arch_timer_handler_phys", "arch_timer_handler_virt", "handle_IPI", "smp_send_reschedule",
      "gic_raise_softirq", "gic_raise_softirq", "io_mem_abort", "vgic_dispatch_sgi", "kvm_arch_vcpu_ioctl_run",
      "__kvm_vcpu_run", "kvm_handle_wfx", "kvm_vcpu_block", "el0_svc",
      Map.of("HLT", "WFx", "PAUSE_INSTRUCTION", "WFx", "MSR_WRITE", "DABT_LOW", "IO_INSTRUCTION", "DABT_LOW",
          "MMIO", "DABT_LOW", "EXTERNAL_INTERRUPT", "IRQ", "HYPERCALL", "HVC64"));

  /**
   * A pseries guest on PowerVM (Linux 4.8): the tick is the decrementer exception, {@code
   * decrementer_common} -> {@code timer_interrupt} (arch/powerpc/kernel/exceptions-64s.S,
   * STD_EXCEPTION_COMMON_ASYNC(0x900, decrementer, timer_interrupt)); IPIs go through the XICS
   * hcalls, {@code smp_muxed_ipi_message_pass} -> {@code icp_hv_cause_ipi} (H_IPI) and are
   * received in {@code icp_hv_ipi_action} -> {@code smp_ipi_demux}
   * (arch/powerpc/sysdev/xics/icp-hv.c); syscalls through {@code system_call}
   * (arch/powerpc/kernel/entry_64.S, "label this so stack traces look sane"); a shared LPAR idles
   * in {@code shared_cede_loop} (drivers/cpuidle/cpuidle-pseries.c). The host is PHYP, firmware
   * with no Linux symbols: its idle processors show as {@code [phyp-idle]}, and its exits are the
   * hcalls' own names (the partition-firmware paths of the machine name them). PowerVM has no
   * virtio: a partition's doorbell to its virtual I/O server is the {@code H_SEND_CRQ} hcall
   * (drivers/scsi/ibmvscsi/ibmvscsi.c, {@code ibmvscsi_send_crq}, 4.8), so a device's notify and
   * register exits carry that name.
   */
  public static final KernelSymbols PPC64_POWERVM = new KernelSymbols("[phyp-idle]", "shared_cede_loop",
      "timer_interrupt", "timer_interrupt", "icp_hv_ipi_action", "smp_muxed_ipi_message_pass",
      "icp_hv_cause_ipi", "icp_hv_cause_ipi", "H_IPI", "H_IPI", "hcall", "hcall", "H_CEDE", "H_CEDE",
      "system_call", Map.of("HLT", "H_CEDE", "EXTERNAL_INTERRUPT", "H_XIRR", "MSR_WRITE", "H_IPI", "IO_INSTRUCTION",
          "H_SEND_CRQ", "MMIO", "H_SEND_CRQ"));

  /**
   * s390x KVM: the tick is the clock comparator external interrupt ({@code
   * clock_comparator_interrupt}, arch/s390/kernel/time.c); IPIs are SIGP external calls, sent by
   * {@code smp_send_reschedule} -> {@code pcpu_ec_call} and received in {@code
   * do_ext_call_interrupt} -> {@code smp_handle_ext_call} (arch/s390/kernel/smp.c); a guest's SIGP
   * is an instruction intercept ({@code kvm_s390_handle_sigp} -> {@code __sigp_external_call},
 * arch/s390/kvm/sigp.c); guests run under SIE ({@code kvm_arch_vcpu_ioctl_run} -> {@code
   * sie64a}, arch/s390/kernel/entry.S); idle is {@code enabled_wait} (arch/s390/kernel/idle.c), a
   * guest's an enabled wait intercept handled by {@code kvm_s390_handle_wait}; syscalls through
   * {@code system_call} (entry.S). Exits by {@code perf kvm stat}'s s390 intercept codes
   * (arch/s390/include/uapi/asm/sie.h, sie_intercept_code).
   */
  public static final KernelSymbols S390X = new KernelSymbols("enabled_wait", "enabled_wait",
      "clock_comparator_interrupt", "clock_comparator_interrupt", "do_ext_call_interrupt", "smp_send_reschedule",
      "pcpu_ec_call", "pcpu_ec_call", "kvm_s390_handle_sigp", "__sigp_external_call", "kvm_arch_vcpu_ioctl_run", "sie64a",
      "kvm_s390_handle_wait", "kvm_s390_handle_wait", "system_call",
      Map.of("HLT", "Wait state", "MSR_WRITE", "Instruction", "IO_INSTRUCTION", "Instruction", "MMIO",
          "Instruction", "HYPERCALL", "Instruction", "EXTERNAL_INTERRUPT", "Host interruption"));
}
