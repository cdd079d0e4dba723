package org.lockvisor.reports;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.lockvisor.core.account.CpuTimeAccount;
import org.lockvisor.core.account.SymbolTable;
import org.lockvisor.machine.Cpu;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Task;

/**
 * One kernel's CPU time in the text layout of {@code perf script --ns} over a {@code perf record
 * -e cpu-clock -a -g} capture ({@code tools/perf/builtin-script.c}, Linux 6.1: with a callchain,
 * the event line is {@code comm tid [cpu] sec.nsec: period event:}, then one line per frame,
 * leaf first, {@code \taddress symbol (dso)}, and a blank line), so that {@code
 * stackcollapse-perf.pl} and speedscope's "perf script" importer read it as a capture.
 *
 * <p>Exact rather than sampled: each (thread, CPU, stack) of the account is written as two
 * records whose periods add up to its nanoseconds ({@code stackcollapse-perf.pl} sums periods).
 * speedscope weighs a record by the time to its neighbours' timestamps, so each thread's stacks
 * are laid end to end from the start of the window, the first record at the start of its stack's
 * span and the second at its end: every stack gets exactly its nanoseconds there too (the order
 * of the stacks within a thread is not the order the simulation ran them). Comm is cut to
 * {@code TASK_COMM_LEN}; the tid is the simulator's task id; kernel frames are in {@code
 * [kernel.kallsyms]}, user frames in the task's executable; addresses are made up, one per
 * symbol. The thread's own root frame of the folded stacks is left out (perf shows the comm on
 * the event line instead).
 */
public final class PerfScript {

  private PerfScript() {}

  private record Entry(int thread, int cpu, int stack, String folded, long ns) {}

  /**
   * The records of {@code kernel}'s CPUs in {@code account}; time starts at {@code startNs}
   * (simulated).
   */
  public static String of(Machine machine, CpuTimeAccount account, Kernel kernel, long startNs) {
    SymbolTable symbols = machine.symbols();
    List<Entry> entries = new ArrayList<>();
    account.forEach((cpuId, threadId, stack, ns) -> {
      if (ns <= 0 || stack == 0 || machine.cpuById(cpuId).kernel() != kernel) {
        return;
      }
      entries.add(new Entry(threadId, cpuId, stack, symbols.folded(stack), ns));
    });
    entries.sort(Comparator.comparingInt(Entry::thread).thenComparingInt(Entry::cpu).thenComparing(Entry::folded));
    StringBuilder out = new StringBuilder();
    out.append("# lockvisor: ").append(kernel.isGuest() ? "guest " + kernel.vm().name() : "host")
        .append(", exact CPU time of the measurement window as perf script --ns of perf record -e ")
        .append(PerfReport.EVENT).append(" -a -g would print it\n");
    int thread = -1;
    long t = startNs;
    for (Entry e : entries) {
      if (e.thread() != thread) {
        thread = e.thread();
        t = startNs;
      }
      Cpu cpu = machine.cpuById(e.cpu());
      Task task = machine.taskById(e.thread());
      String comm = task == cpu.idleTask() || task.name().startsWith("swapper/") ? "swapper"
          : PerfReport.comm(task.name());
      long first = e.ns() / 2;
      record(out, comm, task.id(), cpu.index(), t, first, e.stack(), symbols, task.name());
      t += e.ns();
      record(out, comm, task.id(), cpu.index(), t, e.ns() - first, e.stack(), symbols, task.name());
    }
    return out.toString();
  }

  private static void record(StringBuilder out, String comm, int tid, int cpu, long timeNs, long period, int stack,
      SymbolTable symbols, String taskName) {
    out.append(String.format(Locale.ROOT, "%s %7d [%03d] %5d.%09d: %10d %s: \n", comm.replace(' ', '_'), tid, cpu,
        timeNs / 1_000_000_000L, timeNs % 1_000_000_000L, period, PerfReport.EVENT));
    int[] frames = symbols.frames(stack);
    for (int i = frames.length - 1; i >= 0; i--) {
      int sym = frames[i];
      int domain = symbols.tag(sym);
      if (domain == Machine.DOMAIN_TASK) {
        continue;
      }
      String dso = switch (domain) {
        case Machine.DOMAIN_USER -> PerfReport.executable(taskName);
        case Machine.DOMAIN_HYPERVISOR -> PerfReport.UNKNOWN_DSO;
        case Machine.DOMAIN_GUEST -> PerfReport.GUEST_DSO;
        default -> "[kernel.kallsyms]";
      };
      long base = domain == Machine.DOMAIN_USER ? 0x400000L : 0xffffffff81000000L;
      out.append(String.format(Locale.ROOT, "\t%16x %s (%s)\n", base + 16L * sym, symbols.name(sym), dso));
    }
    out.append('\n');
  }
}
