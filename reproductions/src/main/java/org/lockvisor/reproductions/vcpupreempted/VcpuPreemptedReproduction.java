package org.lockvisor.reproductions.vcpupreempted;

import com.google.auto.service.AutoService;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.lockvisor.experiment.Reproduction;
import org.lockvisor.experiment.ReproductionOptions;
import org.lockvisor.experiment.ReproductionResult;
import org.lockvisor.experiment.SimulationFailedException;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.experiment.io.AtomicFiles;
import org.lockvisor.experiment.report.PerfReport;
import org.lockvisor.reproductions.support.TextTable;
import org.lockvisor.workloads.schedmessaging.SchedMessagingConfig;

/**
 * R3, "implement vcpu preempted check" (Pan Xinhui, 2016): {@code perf bench sched messaging -p}
 * in a shared-processor LPAR with more virtual processors than entitled capacity. Before the
 * series, spinners in {@code osq_lock}, {@code mutex_spin_on_owner} and {@code
 * rwsem_spin_on_owner} cannot tell that the owner's (or the OSQ predecessor's) vCPU is not
 * dispatched and spin on; with the check they sleep. Baseline = check off, patched = check on,
 * same seed, same everything else; the guest-sampled perf profiles of both are compared with the
 * seed's. The same scenario on x86_64-kvm with 2x overcommit must move the same way.
 *
 * <p>The default run is {@code -g 40} (1,600 tasks) on a 16-VP LPAR over 8 processors, the whole
 * benchmark (fork, messaging, exit, reaping); {@code -g 400} (16,000 tasks) is the same code with
 * {@code groups} raised, see docs/reproductions/vcpu-preempted.md. Published numbers appear only
 * in the tables.
 */
@AutoService(Reproduction.class)
public final class VcpuPreemptedReproduction implements Reproduction {
  static final String NAME = "vcpu-preempted";

  /** The seed's profiles (shared/seeds/R3-vcpu-is-preempted.txt), for the tables only. */
  private static final Map<String, Double> PUBLISHED_BEFORE = ordered(
      "osq_lock", 18.09, "rwsem_spin_on_owner", 12.28, "mutex_unlock", 5.27, "wait_consider_task", 3.89,
      "_raw_write_lock_irq", 3.64, "mutex_spin_on_owner", 3.41, "system_call", 2.49);
  private static final Map<String, Double> PUBLISHED_AFTER = ordered(
      "mutex_unlock", 9.99, "[H]", 5.28, "__copy_tofrom_user_power7", 4.27, "copypage_power7", 3.77,
      "_raw_write_lock_irq", 3.24, "system_call", 3.02, "wait_consider_task", 2.69);

  static final List<String> SPIN = List.of("osq_lock", "rwsem_spin_on_owner", "mutex_spin_on_owner");
  private static final List<String> TABLE_SYMBOLS = List.of("osq_lock", "rwsem_spin_on_owner",
      "mutex_spin_on_owner", "mutex_unlock", "[H]", "wait_consider_task", "_raw_spin_lock_irq", "system_call",
      "__copy_tofrom_user_power7", "copypage_power7");

  /** The scale of one reproduction run. */
  record Scale(int powervmCpus, int powervmGroups, int kvmCpus, int kvmGroups, long limitNs) {}

  static final Scale FULL = new Scale(8, 40, 4, 10, 120_000_000_000L);
  static final Scale QUICK = new Scale(4, 6, 4, 4, 30_000_000_000L);

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String summary() {
    return "R3 vcpu_is_preempted: sched messaging on an overcommitted PowerVM LPAR, spin symbols before/after (and KVM)";
  }

  /**
   * System property that overrides the PowerVM run's {@code -g} (e.g. 400 for the seed's 16,000
   * tasks; several minutes per variant).
   */
  public static final String GROUPS_PROPERTY = "lockvisor.vcpu-preempted.groups";

  @Override
  public ReproductionResult run(ReproductionOptions options) {
    Scale scale = options.quick() ? QUICK : FULL;
    String groups = System.getProperty(GROUPS_PROPERTY);
    if (groups != null) {
      int g;
      try {
        g = Integer.parseInt(groups.trim());
      } catch (NumberFormatException e) {
        g = -1;
      }
      if (g < 1 || g > 100_000) {
        throw new UserInputException(GROUPS_PROPERTY + " must be a number of groups in [1, 100000]: [" + groups + "]");
      }
      scale = new Scale(scale.powervmCpus(), g, scale.kvmCpus(), scale.kvmGroups(),
          Math.max(scale.limitNs(), 600_000_000_000L));
    }
    SchedMessagingConfig bench = SchedMessagingConfig.perfDefaults();
    var ppc = new SchedMessagingRun.Platform("ppc64-powervm", scale.powervmCpus(), 2 * scale.powervmCpus());
    var kvm = new SchedMessagingRun.Platform("x86_64-kvm", scale.kvmCpus(), 2 * scale.kvmCpus());
    var base = finished(SchedMessagingRun.run(ppc, false, bench.withGroups(scale.powervmGroups()), 1, scale.limitNs()));
    var patched = finished(SchedMessagingRun.run(ppc, true, bench.withGroups(scale.powervmGroups()), 1, scale.limitNs()));
    var kvmBase = finished(SchedMessagingRun.run(kvm, false, bench.withGroups(scale.kvmGroups()), 1, scale.limitNs()));
    var kvmPatched = finished(SchedMessagingRun.run(kvm, true, bench.withGroups(scale.kvmGroups()), 1, scale.limitNs()));
    return judge(scale, bench, base, patched, kvmBase, kvmPatched, options.outputDirectory().orElse(null));
  }

  private static SchedMessagingRun.Outcome finished(SchedMessagingRun.Outcome o) {
    if (!o.workload().finished()) {
      throw new SimulationFailedException("vcpu-preempted: sched-messaging did not finish within "
          + o.simulatedNs() / 1e9 + " s simulated (" + o.workload().exited() + " of " + o.workload().config().tasks()
          + " tasks exited)");
    }
    return o;
  }

  static double share(PerfReport r, String symbol) {
    return symbol.equals("[H]") ? r.hypervisorPercent() : r.percent(symbol);
  }

  static double spin(PerfReport r) {
    return SPIN.stream().mapToDouble(r::percent).sum();
  }

  /** The acceptance bands of issue 7, each with its verdict. */
  static Map<String, Boolean> checks(PerfReport b, PerfReport p, PerfReport kb, PerfReport kp) {
    Map<String, Boolean> c = new LinkedHashMap<>();
    c.put("baseline osq_lock >= 9%", b.percent("osq_lock") >= 9);
    c.put("baseline rwsem_spin_on_owner >= 6%", b.percent("rwsem_spin_on_owner") >= 6);
    c.put("baseline mutex_spin_on_owner >= 1.5%", b.percent("mutex_spin_on_owner") >= 1.5);
    c.put("baseline osq_lock > mutex_spin_on_owner", b.percent("osq_lock") > b.percent("mutex_spin_on_owner"));
    c.put("baseline spin symbols together 20-45%", spin(b) >= 20 && spin(b) <= 45);
    for (String s : SPIN) {
      c.put("patched " + s + " < 1.5%", p.percent(s) < 1.5);
    }
    c.put("patched mutex_unlock >= 1.4x baseline", p.percent("mutex_unlock") >= 1.4 * b.percent("mutex_unlock"));
    c.put("patched [H] 2-10%", p.hypervisorPercent() >= 2 && p.hypervisorPercent() <= 10);
    c.put("patched [H] above baseline", p.hypervisorPercent() > b.hypervisorPercent());
    c.put("x86_64-kvm spin symbols collapse with the check", spin(kp) < spin(kb) / 2);
    return c;
  }

  private ReproductionResult judge(Scale scale, SchedMessagingConfig bench, SchedMessagingRun.Outcome base, SchedMessagingRun.Outcome patched,
      SchedMessagingRun.Outcome kvmBase, SchedMessagingRun.Outcome kvmPatched, Path out) {
    PerfReport b = base.report();
    PerfReport p = patched.report();
    Map<String, Boolean> checks = checks(b, p, kvmBase.report(), kvmPatched.report());
    boolean reproduced = !checks.containsValue(false);

    List<String> report = new ArrayList<>();
    report.add(String.format(Locale.ROOT,
        "perf bench sched messaging -p -g %d (%d tasks) on ppc64-powervm: %d VPs on %d processors, entitlement %.1f "
            + "units, 10 ms window, uncapped",
        scale.powervmGroups(), base.workload().config().tasks(), 2 * scale.powervmCpus(), scale.powervmCpus(),
        0.5 * 2 * scale.powervmCpus()));
    TextTable t = new TextTable("symbol", "published before", "simulated before", "published after", "simulated after");
    for (String s : TABLE_SYMBOLS) {
      t.row(s, pub(PUBLISHED_BEFORE, s), pct(share(b, s)), pub(PUBLISHED_AFTER, s), pct(share(p, s)));
    }
    t.row("spin symbols together", pct(18.09 + 12.28 + 3.41), pct(spin(b)), "gone", pct(spin(p)));
    report.addAll(t.lines());
    report.add("(tasklist_lock is modelled as an exclusive spinlock: its write side shows as _raw_spin_lock_irq, "
        + "perf's _raw_write_lock_irq)");
    report.add("");
    TextTable rt = new TextTable("variant", "Total time [sec]", "exits from-to [sec]", "lock sleeps", "spin bail-outs",
        "simulated events");
    for (var v : List.of(base, patched)) {
      var f = v.workload().figures();
      rt.row(v == base ? "baseline (check off)" : "patched (check on)",
          TextTable.f("%.3f", v.workload().totalTimeNs() / 1e9),
          TextTable.f("%.3f-%.3f", f.get("first_exit_s").doubleValue(), f.get("last_exit_s").doubleValue()),
          v.lockStats().get("sleeps"), v.lockStats().get("spin_bailouts"), v.events());
    }
    report.addAll(rt.lines());
    report.add(String.format(Locale.ROOT,
        "fork/exit rwsems (i_mmap of %d files, root anon_vma): held %.1f ms in total in the patched run, fork and "
            + "exit together (hold per acquisition grows with log n, the count with n)",
        bench.mappedFiles(), patched.lockStats().get("rwsem_hold_ns") / 1e6));
    report.add("");
    report.add(String.format(Locale.ROOT,
        "x86_64-kvm, -g %d, %d vCPUs on %d CPUs (2x overcommit): spin symbols %.2f%% -> %.2f%%, total time %.3f -> %.3f s",
        scale.kvmGroups(), 2 * scale.kvmCpus(), scale.kvmCpus(), spin(kvmBase.report()), spin(kvmPatched.report()),
        kvmBase.workload().totalTimeNs() / 1e9, kvmPatched.workload().totalTimeNs() / 1e9));
    report.add("");
    checks.forEach((k, v) -> report.add((v ? "  ok    " : "  MISS  ") + k));
    report.add("");
    report.add("baseline guest perf report (top 12):");
    report.addAll(b.format(12));
    report.add("");
    report.add("patched guest perf report (top 12):");
    report.addAll(p.format(12));

    Map<String, Double> metrics = new TreeMap<>();
    for (String s : TABLE_SYMBOLS) {
      metrics.put("baseline." + s, share(b, s));
      metrics.put("patched." + s, share(p, s));
    }
    metrics.put("baseline.spin_total", spin(b));
    metrics.put("patched.spin_total", spin(p));
    metrics.put("baseline.runtime_s", base.workload().totalTimeNs() / 1e9);
    metrics.put("patched.runtime_s", patched.workload().totalTimeNs() / 1e9);
    metrics.put("x86_64-kvm.baseline.spin_total", spin(kvmBase.report()));
    metrics.put("x86_64-kvm.patched.spin_total", spin(kvmPatched.report()));
    metrics.put("checks_passed", (double) checks.values().stream().filter(x -> x).count());
    metrics.put("checks_total", (double) checks.size());

    Map<String, Object> data = new LinkedHashMap<>();
    data.put("profiles", pair(profile(b), profile(p)));
    data.put("published", pair(published(PUBLISHED_BEFORE), published(PUBLISHED_AFTER)));
    Map<String, Object> runtime = new LinkedHashMap<>();
    runtime.put("baseline", base.workload().totalTimeNs() / 1e9);
    runtime.put("patched", patched.workload().totalTimeNs() / 1e9);
    data.put("runtimeSeconds", runtime);
    Map<String, Object> kvm = new LinkedHashMap<>();
    kvm.put("profiles", pair(profile(kvmBase.report()), profile(kvmPatched.report())));
    kvm.put("runtimeSeconds", pair(kvmBase.workload().totalTimeNs() / 1e9, kvmPatched.workload().totalTimeNs() / 1e9));
    kvm.put("sameDirection", checks.get("x86_64-kvm spin symbols collapse with the check"));
    data.put("x86_64-kvm", kvm);
    Map<String, Object> checkData = new LinkedHashMap<>(checks);
    data.put("checks", checkData);

    if (out != null) {
      write(out.resolve("baseline").resolve("perf-report.txt"), b.format(0));
      write(out.resolve("patched").resolve("perf-report.txt"), p.format(0));
      write(out.resolve("x86_64-kvm-baseline").resolve("perf-report.txt"), kvmBase.report().format(0));
      write(out.resolve("x86_64-kvm-patched").resolve("perf-report.txt"), kvmPatched.report().format(0));
    }
    long passed = checks.values().stream().filter(x -> x).count();
    String headline = String.format(Locale.ROOT,
        "%s: spin symbols %.1f%% -> %.1f%% of guest samples, mutex_unlock %.2f%% -> %.2f%%, [H] %.2f%% -> %.2f%% "
            + "(%d/%d bands)",
        reproduced ? "reproduced" : "not reproduced", spin(b), spin(p), b.percent("mutex_unlock"),
        p.percent("mutex_unlock"), b.hypervisorPercent(), p.hypervisorPercent(), passed, checks.size());
    return ReproductionResult.of(NAME, reproduced, headline, report, metrics, data);
  }

  /** {@code {"baseline": b, "patched": p}} in that order. */
  private static Map<String, Object> pair(Object baseline, Object patched) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("baseline", baseline);
    m.put("patched", patched);
    return m;
  }

  /** The profile as the JSON rows: the top symbols plus the [H] total. */
  private static List<Object> profile(PerfReport r) {
    Map<String, Double> bySymbol = new LinkedHashMap<>();
    for (PerfReport.Line l : r.lines()) {
      if (l.marker() != 'H') {
        bySymbol.merge(l.symbol(), l.percent(), Double::sum);
      }
    }
    bySymbol.put("[H]", r.hypervisorPercent());
    List<Map.Entry<String, Double>> sorted = new ArrayList<>(bySymbol.entrySet());
    sorted.sort((x, y) -> Double.compare(y.getValue(), x.getValue()));
    List<Object> rows = new ArrayList<>();
    for (var e : sorted.subList(0, Math.min(20, sorted.size()))) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("symbol", e.getKey());
      row.put("percent", Math.round(e.getValue() * 100) / 100.0);
      rows.add(row);
    }
    return rows;
  }

  private static List<Object> published(Map<String, Double> p) {
    List<Object> rows = new ArrayList<>();
    p.forEach((s, v) -> {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("symbol", s);
      row.put("percent", v);
      rows.add(row);
    });
    return rows;
  }

  private static void write(Path file, List<String> lines) {
    try {
      AtomicFiles.writeString(file, String.join("\n", lines) + "\n");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  private static String pct(double v) {
    return TextTable.f("%.2f%%", v);
  }

  private static String pub(Map<String, Double> m, String s) {
    Double v = m.get(s);
    return v == null ? "-" : pct(v);
  }

  private static Map<String, Double> ordered(Object... kv) {
    Map<String, Double> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], (Double) kv[i + 1]);
    }
    return m;
  }
}
