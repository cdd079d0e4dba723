package org.lockvisor.reports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Vm;
import org.lockvisor.machine.config.HypervisorConfig;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.scheduler.builtin.CfsScheduler;

/** Golden-shape tests: the files parse back and agree with the machine's own counters. */
class KvmStatAndFoldedTest {
  private static final long US = 1_000;
  private static final long MS = 1_000_000;

  private static final Pattern ROW = Pattern.compile(
      "^\\s+(\\S+)\\s+(\\d+)\\s+([0-9.]+)%\\s+([0-9.]+)%\\s+([0-9.]+)us\\s+([0-9.]+)us\\s+([0-9.]+)us \\( \\+-\\s+([0-9.]+)% \\)$");

  /** One vCPU: 3 MMIO exits of 100 us and 1 PIO exit of 300 us per 1 ms loop. */
  private Machine run() {
    Simulation sim = new Simulation(7);
    Machine machine = new Machine(sim);
    machine.createHost("host", 1, KernelConfig.zeroCost(MS), CfsScheduler.withDefaults());
    Vm vm = machine.createVm("vm0", 1, KernelConfig.zeroCost(4 * MS), CfsScheduler.withDefaults(),
        new HypervisorConfig(0, 0, 0), 0);
    Program mmio = Program.named("handle_mmio").work(100 * US, "kvm_mmio").build();
    Program pio = Program.named("handle_pio").work(300 * US, "kvm_pio").build();
    vm.guest().spawn("io", Program.named("io")
        .loopWhile(t -> true, Program.named("io_loop")
            .work(MS, "compute")
            .op(Ops.vmExit("MMIO", mmio)).op(Ops.vmExit("MMIO", mmio)).op(Ops.vmExit("MMIO", mmio))
            .op(Ops.vmExit("IO_INSTRUCTION", pio))
            .build())
        .build());
    sim.runUntil(100 * MS);
    machine.syncAccounting();
    return machine;
  }

  @Test
  void kvmStat_rowsParseBack_sharesSumTo100_countsMatchTheVcpu() {
    Machine machine = run();
    Vm vm = machine.vms().get(0);
    String text = KvmStatReport.render(machine.vms());

    List<String[]> rows = new ArrayList<>();
    String section = text.substring(0, text.indexOf("Total Samples"));
    for (String line : section.split("\n")) {
      Matcher m = ROW.matcher(line);
      if (m.matches()) {
        rows.add(new String[] {m.group(1), m.group(2), m.group(3), m.group(4), m.group(7)});
      }
    }
    assertThat(rows).extracting(r -> r[0]).containsExactly("MMIO", "IO_INSTRUCTION");
    long mmio = vm.vcpus().get(0).exitStats().get("MMIO").count();
    long pio = vm.vcpus().get(0).exitStats().get("IO_INSTRUCTION").count();
    assertThat(Long.parseLong(rows.get(0)[1])).isEqualTo(mmio);
    assertThat(Long.parseLong(rows.get(1)[1])).isEqualTo(pio);
    assertThat(mmio).isBetween(3 * pio - 3, 3 * pio + 3);
    assertThat(rows.stream().mapToDouble(r -> Double.parseDouble(r[2])).sum()).isCloseTo(100.0, within(0.02));
    assertThat(rows.stream().mapToDouble(r -> Double.parseDouble(r[3])).sum()).isCloseTo(100.0, within(0.02));
    // Exits of 100 us vs 300 us: three MMIO per PIO take equal handling time.
    assertThat(Double.parseDouble(rows.get(0)[3])).isCloseTo(50.0, within(2.0));
    assertThat(Double.parseDouble(rows.get(0)[4])).isGreaterThanOrEqualTo(100.0).isLessThan(110.0);
    assertThat(text).contains("Analyze events for VM vm0, all VCPUs:", "Analyze events for VM vm0, VCPU 0:")
        .contains("Total Samples:" + (mmio + pio) + ",");
  }

  @Test
  void folded_linesWellFormed_weightsAddUpToTheAccountedTime() {
    Machine machine = run();
    int hostCpu = machine.cpus().get(0).id();
    String folded = FoldedStacks.fold(machine.account(), machine.symbols(), cpu -> cpu == hostCpu, sym -> true);

    long sum = 0;
    for (String line : folded.split("\n")) {
      assertThat(line).matches("[^ ;]+(;[^ ;]+)* \\d+");
      sum += Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
    }
    assertThat(sum).isEqualTo(machine.account().cpuTotal(hostCpu) - idleNs(machine, hostCpu));
    assertThat(folded).contains("[guest]", "kvm_mmio", "kvm_pio");

    String onlyMmio = FoldedStacks.fold(machine.account(), machine.symbols(), cpu -> cpu == hostCpu,
        sym -> machine.symbols().name(sym).equals("kvm_mmio"));
    assertThat(onlyMmio.strip().split("\n")).allSatisfy(line -> assertThat(line).contains(";kvm_mmio "));
  }

  /** Idle time is charged with the empty stack or an idle symbol; folded output skips stack 0 only. */
  private static long idleNs(Machine machine, int cpu) {
    long[] ns = {0};
    machine.account().forEach((c, thread, stack, t) -> {
      if (c == cpu && stack == 0) {
        ns[0] += t;
      }
    });
    return ns[0];
  }
}
