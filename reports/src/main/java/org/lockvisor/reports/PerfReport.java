package org.lockvisor.reports;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.lockvisor.core.account.CpuTimeAccount;
import org.lockvisor.core.account.SymbolTable;
import org.lockvisor.experiment.runner.AccountWindow;
import org.lockvisor.experiment.runner.SymbolProfile;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Vm;

/**
 * A {@code perf report} of one kernel's CPUs as {@code perf record -a} inside it would sample them
 * ({@code Overhead  Command  Shared Object  Symbol}, self time by leaf symbol, {@code [k]} kernel,
 * {@code [.]} user, {@code [H]} hypervisor), computed exactly from the machine's {@link
 * CpuTimeAccount} and {@link SymbolTable} rather than by sampling: the layout of a {@link
 * SymbolProfile}, which the runner measures.
 *
 * <p>Guest-sampled ({@link #guest}): a guest's perf sees only time when its vCPU executes; time
 * the vCPU is preempted or ceded does not exist for it. On a partition hypervisor (PowerVM) the
 * sampling interrupt also lands while the hypervisor works on the partition's behalf (hcalls:
 * H_CEDE, H_CONFER, H_IPI, the hcall round trip), and perf shows those samples as {@code [H]};
 * on KVM that time is invisible to the guest. The simulator does not record which guest task an
 * hcall was made for, so {@code [H]} lines are attributed to one command given by the caller.
 *
 * <p>Idle tasks show as {@code swapper}. Percentages are of all sampled time.
 */
public final class PerfReport {
  /** The shared object of kernel symbols. */
  public static final String KERNEL_DSO = SymbolProfile.KERNEL_DSO;
  /** The shared object of unresolved (hypervisor) addresses. */
  public static final String UNKNOWN_DSO = SymbolProfile.UNKNOWN_DSO;
  /** The kernel's {@code TASK_COMM_LEN} ({@code include/linux/sched.h}): comm holds 15 characters and a NUL. */
  public static final int TASK_COMM_LEN = SymbolProfile.TASK_COMM_LEN;
  /** perf's default sampling frequency ({@code perf record -F 4000}, {@code tools/perf/util/record.c}). */
  public static final long SAMPLE_HZ = 4000;
  /** The event sampled: the {@code cpu-clock} software event, whose period is nanoseconds. */
  public static final String EVENT = "cpu-clock";

  /** A task's comm as the kernel keeps it: its name cut to {@code TASK_COMM_LEN - 1} characters. */
  public static String comm(String taskName) {
    return SymbolProfile.comm(taskName);
  }

  /**
   * The shared object of a user symbol: the task's executable, the process name before the first
   * {@code /} of the task's name (fio's jobs {@code fio/job0} run {@code fio}); {@code perf bench}'s
   * {@code sched-messaging} tasks run {@code perf}.
   */
  public static String executable(String taskName) {
    return SymbolProfile.executable(taskName);
  }

  /** One line: a (command, shared object, symbol) and its share of sampled time. */
  public record Line(String command, String sharedObject, char marker, String symbol, long ns, double percent) {
    /** The line in perf's layout. */
    public String format(int commandWidth, int dsoWidth) {
      return String.format(Locale.ROOT, "%9.2f%%  %-" + commandWidth + "s  %-" + dsoWidth + "s  [%c] %s",
          percent, command, sharedObject, marker, symbol);
    }
  }

  private final String title;
  private final ImmutableList<Line> lines;
  private final long totalNs;
  private final SymbolProfile profile;

  private PerfReport(SymbolProfile profile, List<Line> lines) {
    this.title = profile.title();
    this.lines = ImmutableList.copyOf(lines);
    this.totalNs = profile.totalNs();
    this.profile = profile;
  }

  /** The report of a profile a run measured (e.g. {@code ExperimentResult.profiles()}). */
  public static PerfReport of(SymbolProfile profile) {
    List<Line> lines = new ArrayList<>();
    for (SymbolProfile.Line l : profile.lines()) {
      lines.add(new Line(l.command(), l.sharedObject(), l.marker(), l.symbol(), l.ns(), l.percent()));
    }
    return new PerfReport(profile, lines);
  }

  /**
   * The guest-sampled report of {@code vm}.
   *
   * @param hypervisorSamples whether hypervisor work for the VM's vCPUs is sampled as {@code [H]}
   *     (PowerVM), or invisible (KVM)
   * @param hypervisorCommand the command {@code [H]} lines are attributed to
   */
  public static PerfReport guest(Machine machine, Vm vm, boolean hypervisorSamples, String hypervisorCommand) {
    machine.syncAccounting();
    return guest(machine, machine.account(), vm, hypervisorSamples, hypervisorCommand);
  }

  /**
   * The guest-sampled report of {@code vm} over {@code account} (e.g. a measurement window of the
   * machine's account, see {@link AccountWindow}); the caller syncs the machine's accounting.
   */
  public static PerfReport guest(Machine machine, CpuTimeAccount account, Vm vm, boolean hypervisorSamples,
      String hypervisorCommand) {
    return of(SymbolProfile.guest(machine, account, vm, hypervisorSamples, hypervisorCommand));
  }

  /** The shared object of time a vCPU thread spends in guest mode, seen from the host. */
  public static final String GUEST_DSO = SymbolProfile.GUEST_DSO;

  /**
   * The host's report, as {@code perf record -a} on the host samples its physical CPUs: host
   * threads by their own symbols ({@code [k]} kernel, KVM included; {@code [.]} user), and the
   * time a vCPU thread runs its guest as one {@code [g]} line per vCPU thread ({@code perf kvm
   * --guest} would split it by guest symbol; the guest reports do that).
   */
  public static PerfReport host(Machine machine, CpuTimeAccount account) {
    return of(SymbolProfile.host(machine, account));
  }

  public ImmutableList<Line> lines() {
    return lines;
  }

  /** Sampled time in total (ns). */
  public long totalNs() {
    return totalNs;
  }

  /** Share (%) of {@code symbol} over all commands. */
  public double percent(String symbol) {
    return profile.percent(symbol);
  }

  /** Share (%) of all {@code [H]} lines: hypervisor time sampled in the guest. */
  public double hypervisorPercent() {
    return profile.hypervisorPercent();
  }

  /** The report in perf's layout, the first {@code limit} lines (all if {@code limit <= 0}). */
  public List<String> format(int limit) {
    List<Line> shown = limit <= 0 ? lines : lines.subList(0, Math.min(limit, lines.size()));
    int cw = "Command".length();
    int dw = "Shared Object".length();
    for (Line l : shown) {
      cw = Math.max(cw, l.command().length());
      dw = Math.max(dw, l.sharedObject().length());
    }
    List<String> out = new ArrayList<>();
    out.add("# lockvisor: " + title + String.format(Locale.ROOT, ", exact CPU time %.3f ms", totalNs / 1e6)
        + " (as perf record -e " + EVENT + " -F " + SAMPLE_HZ + " -a would sample it)");
    out.add("#");
    out.add("# Total Lost Samples: 0");
    out.add("#");
    out.addAll(sampleHeader(totalNs));
    out.add("#");
    out.add(String.format(Locale.ROOT, "# Overhead  %-" + cw + "s  %-" + dw + "s  Symbol", "Command", "Shared Object"));
    out.add(String.format(Locale.ROOT, "# ........  %s  %s  ......................", ".".repeat(cw), ".".repeat(dw)));
    out.add("#");
    for (Line l : shown) {
      out.add(l.format(cw, dw));
    }
    return out;
  }

  /**
   * perf report's {@code hists__fprintf_nr_sample_events} ({@code tools/perf/builtin-report.c},
   * Linux 6.1): {@code # Samples: N<unit> of event 'cpu-clock'}, the sample count {@code
   * convert_unit}-scaled ({@code tools/perf/util/units.c}: divided by 1000 while above 1000, unit
   * K, M, G; a space when unscaled), then {@code # Event count (approx.): } the summed periods.
   * The samples are those {@code -F 4000} takes over {@code ns} of CPU time; the cpu-clock period
   * is nanoseconds, so the event count is the CPU time in ns.
   */
  static List<String> sampleHeader(long ns) {
    long samples = ns * SAMPLE_HZ / 1_000_000_000L;
    char unit = ' ';
    for (char u : new char[] {'K', 'M', 'G'}) {
      if (samples > 1000) {
        samples /= 1000;
        unit = u;
      }
    }
    return List.of("# Samples: " + samples + unit + " of event '" + EVENT + "'", "# Event count (approx.): " + ns);
  }

  @Override
  public String toString() {
    return String.join("\n", format(0));
  }
}
