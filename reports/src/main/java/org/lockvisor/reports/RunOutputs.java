package org.lockvisor.reports;

import static com.google.common.base.Preconditions.checkArgument;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.core.account.CpuTimeAccount;
import org.lockvisor.core.account.SymbolTable;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.runner.AccountWindow;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.experiment.runner.LockClassStats;
import org.lockvisor.experiment.runner.RunObserver;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.locking.spi.LockStats;
import org.lockvisor.machine.Cpu;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Vm;
import org.lockvisor.workloads.fio.FioJson;

/**
 * Every file one run (the base or one variant) writes beside {@code result.json}, collected while
 * the run goes (attach it as the run's {@link RunObserver}) and kept in memory until the caller
 * writes them. The measurement window is what every file covers: the CPU-time account is taken
 * as a difference from the end of warm-up ({@link AccountWindow}), exits and lock statistics were
 * reset then, and the trace and wait recorders are attached then.
 *
 * <p>Files (with {@link #suffix} {@code ""} for the base and {@code -<variant>} otherwise):
 * {@code perf-report.txt} (each VM guest-sampled, then the host), {@code perf-script-<vm>.txt} and
 * {@code perf-script-host.txt} (perf script layout, see {@link PerfScript}), {@code oncpu.folded},
 * {@code spin.folded}, {@code offcpu.folded}, {@code kvm-stat.txt}, {@code lock_stat.txt},
 * {@code lock-contention.txt}, {@code trace.json} (only when asked), and per fio or iperf
 * workload {@code fio-<vm>-<name>.json} or {@code iperf3-<vm>-<name>.json}.
 */
public final class RunOutputs implements RunObserver {

  /** Default bound of {@code trace.json}. */
  public static final int DEFAULT_TRACE_EVENTS = 200_000;

  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private final ExperimentPlugins plugins;
  private final String arch;
  private final String variant;
  private final String suffix;
  private final int traceEvents;
  private final Map<String, byte[]> files = new LinkedHashMap<>();
  private final List<String> perfTop = new ArrayList<>();
  private final List<LockContentionReport.Entry> contention = new ArrayList<>();
  private final Map<String, FlameGraph.Kind> frameKinds = new TreeMap<>();
  private AccountWindow window;
  private long windowStartNs;
  private WaitRecorder waits;
  private ChromeTrace trace;
  private LockTimeline timeline;
  private LockTimelineSvg.Drawing timelineDrawing;
  private ExperimentResult result;

  /**
   * @param traceEvents bound of {@code trace.json}; 0 writes no trace
   */
  public RunOutputs(ExperimentPlugins plugins, String arch, String variant, int traceEvents) {
    this(plugins, arch, variant, suffix(variant), traceEvents);
  }

  private RunOutputs(ExperimentPlugins plugins, String arch, String variant, String suffix, int traceEvents) {
    checkArgument(traceEvents >= 0, "trace event limit must not be negative: [%s]", traceEvents);
    this.plugins = plugins;
    this.arch = arch;
    this.variant = variant;
    this.suffix = suffix;
    this.traceEvents = traceEvents;
  }

  /**
   * The outputs of a run that has a directory of its own (a reproduction's internal run): the
   * files carry no variant suffix, e.g. {@code perf-report.txt} for any variant.
   */
  public static RunOutputs ownDirectory(ExperimentPlugins plugins, String arch, String variant, int traceEvents) {
    return new RunOutputs(plugins, arch, variant, "", traceEvents);
  }

  /** {@code ""} for the base, {@code -<variant>} for a variant. */
  public static String suffix(String variant) {
    return variant.equals("base") ? "" : "-" + variant;
  }

  /** {@code base.ext} with the variant's suffix, e.g. {@code perf-report-ticket.txt}. */
  public static String fileName(String base, String ext, String variant) {
    return base + suffix(variant) + "." + ext;
  }

  @Override
  public void measurementStarted(Machine machine) {
    window = AccountWindow.open(machine);
    windowStartNs = machine.sim().now();
    waits = WaitRecorder.attach(machine);
    timeline = LockTimeline.attach(machine, LockTimeline.DEFAULT_EVENTS);
    if (traceEvents > 0) {
      trace = ChromeTrace.attach(machine, traceEvents);
    }
  }

  @Override
  public void finished(Machine machine, ExperimentResult r, List<KernelLock> locks) {
    this.result = r;
    CpuTimeAccount account = window.sinceOpened();
    SymbolTable symbols = machine.symbols();

    List<String> perf = new ArrayList<>();
    boolean hypervisorSamples = partitionHypervisor();
    for (Vm vm : machine.vms()) {
      PerfReport guest = PerfReport.guest(machine, account, vm, hypervisorSamples, hcallCommand(r, vm));
      perf.addAll(guest.format(0));
      perf.add("");
      perfTop.add("guest " + vm.name());
      perfTop.addAll(guest.format(15));
      perfTop.add("");
    }
    PerfReport host = PerfReport.host(machine, account);
    perf.addAll(host.format(0));
    perfTop.add("host " + machine.host().name());
    perfTop.addAll(host.format(15));
    text("perf-report", "txt", String.join("\n", perf) + "\n");
    for (Vm vm : machine.vms()) {
      text("perf-script-" + vm.name(), "txt", PerfScript.of(machine, account, vm.guest(), windowStartNs));
    }
    text("perf-script-host", "txt", PerfScript.of(machine, account, machine.host(), windowStartNs));

    text("oncpu", "folded", FoldedStacks.foldRooted(account, symbols, (cpu, thread) -> root(machine, cpu, thread),
        leaf -> onCpu(symbols, leaf)));
    text("spin", "folded", FoldedStacks.foldRooted(account, symbols, (cpu, thread) -> root(machine, cpu, thread),
        waits::isSpinSymbol));
    text("offcpu", "folded", waits.offCpuFolded());
    kinds(symbols);
    text("kvm-stat", "txt", KvmStatReport.render(machine.vms()) + SchedulingReport.text(machine));
    text("lock_stat", "txt", LockStatReport.of(r.lockStat()).text());
    for (KernelLock lock : locks) {
      LockStats s = lock.stats();
      LockFactory f = plugins.locks().get(lock.algorithm());
      String type = f == null ? lock.algorithm() : f.lockKind().name().toLowerCase(Locale.ROOT);
      if (f != null && f.lockKind() == LockFactory.LockKind.RWLOCK) {
        // perf lock contention's lock_type_table: an rwlock's sides are "rwlock:W" and "rwlock:R"
        contention.add(new LockContentionReport.Entry(lock.name(), "rwlock:W", caller(r, lock),
            s.writes().contentions(), s.writes().waitTotalNs(), s.writes().waitMaxNs()));
        contention.add(new LockContentionReport.Entry(lock.name(), "rwlock:R", caller(r, lock),
            s.reads().contentions(), s.reads().waitTotalNs(), s.reads().waitMaxNs()));
        continue;
      }
      contention.add(new LockContentionReport.Entry(lock.name(), type, caller(r, lock), s.contentions(),
          s.waitTotalNs(), s.waitMaxNs()));
    }
    text("lock-contention", "txt", LockContentionReport.render(contention));
    for (ExperimentResult.WorkloadResult w : r.workloads()) {
      if (w.nativeReport() == null) {
        continue;
      }
      if (w.type().equals("fio")) {
        Map<String, Object> fio = new LinkedHashMap<>(w.nativeReport());
        Object logs = fio.remove(FioJson.LOGS);
        json("fio-" + w.vm() + "-" + w.name(), fio);
        if (logs instanceof Map<?, ?> m) {
          // fio's per-job log names (<prefix>_bw.<job>.log) keep their .log; a variant's suffix goes on the prefix.
          m.forEach((suffixName, content) -> files.put("fio-" + w.vm() + "-" + w.name() + suffix + suffixName,
              ((String) content).getBytes(StandardCharsets.UTF_8)));
        }
      } else if (w.type().equals("iperf")) {
        json("iperf3-" + w.vm() + "-" + w.name(), Iperf3Json.of(w.nativeReport(), w.figures(), windowStartNs));
      }
    }
    if (trace != null) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try {
        trace.writeTo(bytes);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write trace.json", e);
      }
      files.put(name("trace", "json"), bytes.toByteArray());
    }
    timelineDrawing = LockTimelineSvg.draw(timeline, "timeline" + suffix, trace == null ? null : name("trace", "json"));
    // The files are built: let the machine go (outputs may be kept while other runs go on).
    window = null;
    waits = null;
    timeline = null;
  }

  /** Each symbol's kind for the flame graphs: its domain, or spin when it was spun on. */
  private void kinds(SymbolTable symbols) {
    for (int sym = 0; sym < symbols.symbolCount(); sym++) {
      FlameGraph.Kind kind = waits.isSpinSymbol(sym) ? FlameGraph.Kind.SPIN : switch (symbols.tag(sym)) {
        case Machine.DOMAIN_USER -> FlameGraph.Kind.USER;
        case Machine.DOMAIN_HYPERVISOR -> FlameGraph.Kind.HYPERVISOR;
        case Machine.DOMAIN_GUEST -> FlameGraph.Kind.GUEST;
        case Machine.DOMAIN_TASK -> FlameGraph.Kind.TASK;
        default -> FlameGraph.Kind.KERNEL;
      };
      frameKinds.putIfAbsent(symbols.name(sym).replace(' ', '_').replace('\n', '_'), kind);
    }
    for (String state : WaitRecorder.STATE_FRAMES) {
      frameKinds.put(state, FlameGraph.Kind.OFFCPU);
    }
  }

  /**
   * The kind of a frame of this run's folded stacks (by name; roots, threads and names the run did
   * not intern are {@link FlameGraph.Kind#TASK}).
   */
  public FlameGraph.Kind frameKind(String frame) {
    return frameKinds.getOrDefault(frame, FlameGraph.Kind.TASK);
  }

  /**
   * The function that waited: the lock class's one contention point when lock_stat knows it (a
   * lock taken from one call site), otherwise the lock's name.
   */
  private static String caller(ExperimentResult r, KernelLock lock) {
    for (LockClassStats c : r.lockStat().classes()) {
      if (c.className().equals(lock.lockClass()) && c.points().size() == 1) {
        return c.points().get(0).symbol();
      }
    }
    return lock.name();
  }

  /** On a partition hypervisor the guest's perf samples hypervisor time as {@code [H]}. */
  private boolean partitionHypervisor() {
    var factory = plugins.arches().get(arch);
    if (factory == null) {
      return false;
    }
    ArchProfile profile = factory.create();
    return profile.hypervisor().dispatchWindowNs() > 0 && profile.hypervisor().hostHz() == 0;
  }

  /** {@code [H]} samples are attributed to the VM's first workload (or {@code [hypervisor]}). */
  private static String hcallCommand(ExperimentResult r, Vm vm) {
    for (ExperimentResult.WorkloadResult w : r.workloads()) {
      if (w.vm().equals(vm.name())) {
        return w.name();
      }
    }
    return "[hypervisor]";
  }

  /** The root frame: {@code host} or the VM's name; idle tasks are left out. */
  /**
   * The root frame: the VM's name or {@code host}. The idle task is not left out here: interrupt
   * work done while a CPU idles (a virtio-blk completion in {@code swapper}) is on CPU; idle time
   * itself is left out by its leaf's domain ({@link #onCpu}).
   */
  private static String root(Machine machine, int cpuId, int threadId) {
    Cpu cpu = machine.cpuById(cpuId);
    return cpu.kernel().isGuest() ? cpu.kernel().vm().name() : "host";
  }

  /**
   * On-CPU stacks leave out idle, and on host CPUs the guest-mode time of vCPU threads (it is in
   * the VM's own stacks, split by what the guest ran).
   */
  private static boolean onCpu(SymbolTable symbols, int leaf) {
    int domain = symbols.tag(leaf);
    return domain != Machine.DOMAIN_IDLE && domain != Machine.DOMAIN_GUEST;
  }

  private void text(String base, String ext, String content) {
    files.put(name(base, ext), content.getBytes(StandardCharsets.UTF_8));
  }

  /** The name of one of this run's files, e.g. {@code perf-report-ticket.txt} or {@code perf-report.txt}. */
  public String name(String base, String ext) {
    return base + suffix + "." + ext;
  }

  private void json(String base, Object tree) {
    try {
      String text = JSON.writeValueAsString(tree) + "\n";
      files.put(name(base, "json"), text.getBytes(StandardCharsets.UTF_8));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialize " + base, e);
    }
  }

  public String variant() {
    return variant;
  }

  /** The run's result (after it finished). */
  public ExperimentResult result() {
    return result;
  }

  /** File name to content, in the order written (after the run finished); see {@link #releaseTrace}. */
  public Map<String, byte[]> files() {
    return files;
  }

  /**
   * Drops the content of {@code trace.json} (once written) to free its memory; the name stays in
   * {@link #files} with a {@code null} content.
   */
  public void releaseTrace() {
    files.replace(name("trace", "json"), null);
  }

  /** The content of one of {@link #files} as text. */
  public String text(String fileName) {
    byte[] b = files.get(fileName);
    checkArgument(b != null, "no file [%s]; have %s", fileName, files.keySet());
    return new String(b, StandardCharsets.UTF_8);
  }

  /** The lock timeline's HTML (controls and SVG) for the page, after the run finished; {@code null} before. */
  public String timelineHtml() {
    return timelineHtml(LockTimelineSvg.MAX_ITEMS);
  }

  /** The same, drawing at most {@code maxItems} intervals (the earliest), for a page with many runs. */
  public String timelineHtml(int maxItems) {
    return timelineDrawing == null ? null : timelineDrawing.html(maxItems);
  }

  /** The top of each perf report, for the page. */
  public List<String> perfTop() {
    return perfTop;
  }

  /** Contention by lock instance. */
  public List<LockContentionReport.Entry> contention() {
    return contention;
  }

  /** The trace's event count, or -1 without a trace. */
  public int traceEventCount() {
    return trace == null ? -1 : trace.events();
  }
}
