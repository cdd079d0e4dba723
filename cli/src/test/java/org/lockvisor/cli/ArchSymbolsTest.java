package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.cli.CliFixture.Run;

/**
 * Every symbol the machine charges, and every exit it counts, is named by the arch profile of the
 * machine that runs it: one run per built-in profile of a small experiment through ticks, IPIs,
 * halts, spin traps, syscalls and a block device's kicks and interrupts, whose perf report,
 * perf script, folded stacks and perf kvm stat hold no name that belongs only to another
 * architecture (an arm64 host showed {@code vmx_vcpu_run} and {@code apic_timer_interrupt}, an
 * arm64 guest's fio {@code entry_SYSCALL_64}, arm64's kvm-stat {@code EXTERNAL_INTERRUPT}), and
 * that do hold their own architecture's where the run reaches them. The names are those of
 * {@code KernelSymbols}, each checked in its era's source (cited there).
 */
class ArchSymbolsTest {

  private static final Path FILE = Path.of("src/test/resources/arch-symbols/every-path.yaml");

  /** Names only one architecture has (generic kernel and KVM names, shared by all, are left out). */
  private static final Map<String, Set<String>> OWN = Map.of(
      "x86_64-kvm", Set.of("apic_timer_interrupt", "reschedule_interrupt", "native_smp_send_reschedule",
          "x2apic_send_IPI", "vcpu_enter_guest", "vmx_vcpu_run", "handle_wrmsr", "kvm_apic_send_ipi",
          "kvm_emulate_halt", "handle_halt", "entry_SYSCALL_64", "intel_idle", "EXTERNAL_INTERRUPT", "MSR_WRITE",
          "IO_INSTRUCTION", "HLT", "PAUSE_INSTRUCTION"),
      "arm64-kvm", Set.of("arch_timer_handler_phys", "arch_timer_handler_virt", "handle_IPI", "gic_raise_softirq",
          "io_mem_abort", "vgic_dispatch_sgi", "__kvm_vcpu_run", "kvm_handle_wfx", "el0_svc", "arch_cpu_idle", "WFx",
          "DABT_LOW", "HVC64"),
      "ppc64-powervm", Set.of("decrementer_common", "timer_interrupt", "icp_hv_ipi_action",
          "smp_muxed_ipi_message_pass", "icp_hv_cause_ipi", "shared_cede_loop", "H_CEDE", "H_IPI", "H_XIRR", "H_SEND_CRQ",
          "[phyp-idle]"),
      "s390x-kvm", Set.of("clock_comparator_interrupt", "do_ext_call_interrupt", "pcpu_ec_call",
          "kvm_s390_handle_sigp", "__sigp_external_call", "sie64a", "enabled_wait", "kvm_s390_handle_wait",
          "Wait state", "Instruction", "Host interruption"));

  @TempDir
  Path temp;

  static Stream<Arguments> profiles() {
    return Stream.of(
        Arguments.of("x86_64-kvm", List.of("apic_timer_interrupt", "entry_SYSCALL_64", "vmx_vcpu_run", "HLT")),
        Arguments.of("arm64-kvm", List.of("arch_timer_handler_virt", "arch_timer_handler_phys", "el0_svc",
            "__kvm_vcpu_run", "WFx", "DABT_LOW")),
        Arguments.of("ppc64-powervm", List.of("[phyp-idle]", "H_SEND_CRQ")),
        Arguments.of("s390x-kvm", List.of("enabled_wait")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("profiles")
  void everyNameInTheOutputs_isOfTheProfilesArchitecture(String arch, List<String> expected) throws IOException {
    Path out = temp.resolve(arch);
    Run run = CliFixture.run("run", FILE.toString(), "--set", "arch=" + arch, "--out", out.toString());
    assertThat(run.exitCode()).as(run.err()).isZero();

    Set<String> names = names(out);
    Set<String> foreign = new TreeSet<>();
    OWN.forEach((other, own) -> {
      if (!other.equals(arch)) {
        own.stream().filter(n -> !OWN.get(arch).contains(n) && names.contains(n)).forEach(n -> foreign.add(n + " ("
            + other + ")"));
      }
    });
    assertThat(foreign).as("names of another architecture in the %s run's outputs", arch).isEmpty();
    assertThat(names).as("the %s run's own names", arch).containsAll(expected);
  }

  /** Every frame of the folded stacks, symbol of the perf reports and scripts, and exit of kvm-stat. */
  private static Set<String> names(Path out) throws IOException {
    Set<String> names = new HashSet<>();
    try (Stream<Path> files = Files.list(out)) {
      for (Path f : files.toList()) {
        String file = f.getFileName().toString();
        String text = Files.readString(f);
        if (file.endsWith(".folded")) {
          text.lines().forEach(l -> names.addAll(List.of(l.substring(0, l.lastIndexOf(' ')).split(";"))));
        } else if (file.startsWith("perf-report") || file.startsWith("perf-script")) {
          text.lines().forEach(l -> {
            for (String w : l.trim().split("\\s+")) {
              names.add(w.replaceFirst("\\+0x[0-9a-f]+$", ""));
            }
          });
        } else if (file.startsWith("kvm-stat")) {
          // "   WFx    12   40.00% ...": the exit name is everything before the first count
          text.lines().map(l -> l.replaceFirst("^\\s*(\\S.*?)\\s+\\d+\\s+[0-9.]+%.*$", "$1"))
              .filter(l -> !l.isBlank()).forEach(l -> names.add(l.strip()));
        }
      }
    }
    return names;
  }
}
