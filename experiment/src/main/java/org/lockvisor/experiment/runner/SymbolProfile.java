package org.lockvisor.experiment.runner;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.lockvisor.core.account.CpuTimeAccount;
import org.lockvisor.core.account.LongLongMap;
import org.lockvisor.core.account.SymbolTable;
import org.lockvisor.machine.Cpu;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.VcpuTask;
import org.lockvisor.machine.Vm;

/**
 * Self time by (command, shared object, symbol) of one kernel's CPUs over a measurement window, as
 * {@code perf record -a} inside that kernel samples it ({@code [k]} kernel, {@code [.]} user,
 * {@code [H]} hypervisor, {@code [g]} guest mode seen from the host), computed exactly from the
 * machine's {@link CpuTimeAccount} and {@link SymbolTable} rather than by sampling. The runner
 * keeps one per guest in {@link ExperimentResult#profiles()}; {@code report.PerfReport} lays one
 * out in perf's format.
 *
 * <p>Guest-sampled ({@link #guest}): a guest's perf sees only time when its vCPU executes; time
 * the vCPU is preempted or ceded does not exist for it. On a partition hypervisor (PowerVM) the
 * sampling interrupt also lands while the hypervisor works on the partition's behalf (hcalls:
 * H_CEDE, H_CONFER, H_IPI, the hcall round trip), and perf shows those samples as {@code [H]};
 * on KVM that time is invisible to the guest. The simulator does not record which guest task an
 * hcall was made for, so {@code [H]} lines are attributed to one command given by the caller.
 * Idle tasks show as {@code swapper}. Percentages are of all sampled time.
 *
 * @param title what was sampled, e.g. {@code guest lpar}
 * @param vm the guest's name, or {@code host}
 * @param lines most time first, ties by command then symbol
 * @param totalNs sampled time in total
 */
public record SymbolProfile(String title, String vm, List<Line> lines, long totalNs) {
  /** The shared object of kernel symbols. */
  public static final String KERNEL_DSO = "[kernel.vmlinux]";
  /** The shared object of unresolved (hypervisor) addresses. */
  public static final String UNKNOWN_DSO = "[unknown]";
  /** The shared object of time a vCPU thread spends in guest mode, seen from the host. */
  public static final String GUEST_DSO = "[guest]";
  /** The kernel's {@code TASK_COMM_LEN} ({@code include/linux/sched.h}): comm holds 15 characters and a NUL. */
  public static final int TASK_COMM_LEN = 16;

  /** One line: a (command, shared object, symbol) and its share of sampled time. */
  public record Line(String command, String sharedObject, char marker, String symbol, long ns, double percent) {}

  public SymbolProfile {
    lines = ImmutableList.copyOf(lines);
  }

  /** A task's comm as the kernel keeps it: its name cut to {@code TASK_COMM_LEN - 1} characters. */
  public static String comm(String taskName) {
    return taskName.length() < TASK_COMM_LEN ? taskName : taskName.substring(0, TASK_COMM_LEN - 1);
  }

  /**
   * The shared object of a user symbol: the task's executable, the process name before the first
   * {@code /} of the task's name (fio's jobs {@code fio/job0} run {@code fio}); {@code perf bench}'s
   * {@code sched-messaging} tasks run {@code perf}.
   */
  public static String executable(String taskName) {
    int slash = taskName.indexOf('/');
    String process = slash < 0 ? taskName : taskName.substring(0, slash);
    return process.equals("sched-messaging") ? "perf" : process;
  }

  /**
   * The guest-sampled profile of {@code vm} over {@code account} (e.g. a measurement window of the
   * machine's account, see {@link AccountWindow}); the caller syncs the machine's accounting.
   *
   * @param hypervisorSamples whether hypervisor work for the VM's vCPUs is sampled as {@code [H]}
   *     (PowerVM), or invisible (KVM)
   * @param hypervisorCommand the command {@code [H]} lines are attributed to
   */
  public static SymbolProfile guest(Machine machine, CpuTimeAccount account, Vm vm, boolean hypervisorSamples,
      String hypervisorCommand) {
    return guest(machine, account::forEach, vm, hypervisorSamples, hypervisorCommand);
  }

  /**
   * As {@link #guest(Machine, CpuTimeAccount, Vm, boolean, String)}, over the entries {@code
   * entries} visits (e.g. {@link AccountWindow#forEachSinceOpened}); lines with equal time,
   * command and symbol keep the order in which the entries first show them.
   */
  public static SymbolProfile guest(Machine machine, Consumer<CpuTimeAccount.EntryVisitor> entries, Vm vm,
      boolean hypervisorSamples, String hypervisorCommand) {
    checkArgument(hypervisorCommand != null && !hypervisorCommand.isBlank(), "hypervisor command must be set");
    SymbolTable symbols = machine.symbols();
    Builder b = new Builder(symbols);
    int hypervisorCommandId = b.commandId(comm(hypervisorCommand));
    entries.accept((cpuId, threadId, stack, ns) -> {
      Cpu cpu = machine.cpuById(cpuId);
      Task thread = machine.taskById(threadId);
      int leaf = symbols.leaf(stack);
      int domain = symbols.tag(leaf);
      if (cpu.kernel() == vm.guest()) {
        int command = b.commandOf(thread, cpu);
        switch (domain) {
          case Machine.DOMAIN_USER -> b.add(command, b.executableOf(thread), '.', leaf, ns);
          case Machine.DOMAIN_HYPERVISOR -> b.add(command, UNKNOWN_DSO, 'H', leaf, ns);
          default -> b.add(command, KERNEL_DSO, 'k', leaf, ns);
        }
      } else if (hypervisorSamples && thread instanceof VcpuTask v && v.vm() == vm
          && domain != Machine.DOMAIN_GUEST) {
        b.add(hypervisorCommandId, UNKNOWN_DSO, 'H', leaf, ns);
      }
    });
    return b.build("guest " + vm.name(), vm.name());
  }

  /**
   * The host's profile, as {@code perf record -a} on the host samples its physical CPUs: host
   * threads by their own symbols ({@code [k]} kernel, KVM included; {@code [.]} user), and the
   * time a vCPU thread runs its guest as one {@code [g]} line per vCPU thread.
   */
  public static SymbolProfile host(Machine machine, CpuTimeAccount account) {
    SymbolTable symbols = machine.symbols();
    Builder b = new Builder(symbols);
    account.forEach((cpuId, threadId, stack, ns) -> {
      Cpu cpu = machine.cpuById(cpuId);
      if (cpu.kernel() != machine.host()) {
        return;
      }
      Task thread = machine.taskById(threadId);
      int leaf = symbols.leaf(stack);
      int domain = symbols.tag(leaf);
      int command = b.commandOf(thread, cpu);
      switch (domain) {
        case Machine.DOMAIN_GUEST -> b.add(command, GUEST_DSO, 'g', Builder.GUEST_MODE, ns);
        case Machine.DOMAIN_USER -> b.add(command, b.executableOf(thread), '.', leaf, ns);
        default -> b.add(command, KERNEL_DSO, 'k', leaf, ns);
      }
    });
    return b.build("host " + machine.host().name(), "host");
  }

  /** Share (%) of {@code symbol} over all commands. */
  public double percent(String symbol) {
    double p = 0;
    for (Line l : lines) {
      if (l.symbol().equals(symbol)) {
        p += l.percent();
      }
    }
    return p;
  }

  /** Share (%) of all {@code [H]} lines: hypervisor time sampled in the guest. */
  public double hypervisorPercent() {
    double p = 0;
    for (Line l : lines) {
      if (l.marker() == 'H') {
        p += l.percent();
      }
    }
    return p;
  }

  /** Sums time by (command, marker, symbol) and sorts the lines as perf does (most first). */
  private static final class Builder {
    /** The symbol "id" of the host's {@code [guest mode]} line (not a symbol of the table). */
    static final int GUEST_MODE = -1;
    private static final String MARKERS = ".Hkg";

    private final SymbolTable symbols;
    /** (command id, marker, symbol) packed in a long -> line index, in order of first appearance. */
    private final LongLongMap index = new LongLongMap(256);
    private final List<String[]> parts = new ArrayList<>();
    private long[] sums = new long[64];
    private final Map<String, Integer> commandIds = new HashMap<>();
    private final List<String> commands = new ArrayList<>();
    /** Per thread id: its command id + 1 (0: not seen) and its executable, derived from its name once. */
    private int[] threadCommand = new int[64];
    private String[] threadExecutable = new String[64];
    private long total;

    Builder(SymbolTable symbols) {
      this.symbols = symbols;
    }

    int commandId(String command) {
      Integer id = commandIds.get(command);
      if (id == null) {
        id = commands.size();
        commandIds.put(command, id);
        commands.add(command);
      }
      return id;
    }

    /** {@code swapper} for idle tasks, else the thread's comm. */
    int commandOf(Task thread, Cpu cpu) {
      if (thread == cpu.idleTask()) {
        return commandId("swapper");
      }
      int t = thread.id();
      if (t >= threadCommand.length) {
        int n = Math.max(t + 1, 2 * threadCommand.length);
        threadCommand = Arrays.copyOf(threadCommand, n);
        threadExecutable = Arrays.copyOf(threadExecutable, n);
      }
      if (threadCommand[t] == 0) {
        String name = thread.name();
        threadCommand[t] = 1 + commandId(name.startsWith("swapper/") ? "swapper" : comm(name));
      }
      return threadCommand[t] - 1;
    }

    String executableOf(Task thread) {
      int t = thread.id();
      if (t >= threadExecutable.length) {
        int n = Math.max(t + 1, 2 * threadExecutable.length);
        threadCommand = Arrays.copyOf(threadCommand, n);
        threadExecutable = Arrays.copyOf(threadExecutable, n);
      }
      if (threadExecutable[t] == null) {
        threadExecutable[t] = executable(thread.name());
      }
      return threadExecutable[t];
    }

    /**
     * Adds {@code ns} to the line (command, marker, symbol); its shared object is the one given
     * when the line first appears. Lines keep the order of their first appearance.
     */
    void add(int command, String dso, char marker, int symbol, long ns) {
      long key = ((long) command << 34) | ((long) MARKERS.indexOf(marker) << 32) | (symbol & 0xFFFF_FFFFL);
      int i = (int) index.get(key, -1);
      if (i < 0) {
        i = parts.size();
        index.put(key, i);
        parts.add(new String[] {commands.get(command), dso, String.valueOf(marker),
            symbol == GUEST_MODE ? "[guest mode]" : symbols.name(symbol)});
        if (i == sums.length) {
          sums = Arrays.copyOf(sums, 2 * i);
        }
      }
      sums[i] += ns;
      total += ns;
    }

    SymbolProfile build(String title, String vm) {
      List<Line> lines = new ArrayList<>();
      for (int i = 0; i < parts.size(); i++) {
        String[] p = parts.get(i);
        long ns = sums[i];
        lines.add(new Line(p[0], p[1], p[2].charAt(0), p[3], ns, total == 0 ? 0 : 100.0 * ns / total));
      }
      lines.sort(Comparator.comparingLong(Line::ns).reversed()
          .thenComparing(Line::command).thenComparing(Line::symbol));
      return new SymbolProfile(title, vm, lines, total);
    }
  }
}
