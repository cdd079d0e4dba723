package org.lockvisor.reproductions.virtioblk;

import com.google.auto.service.AutoService;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.lockvisor.arch.spi.CostKey;
import org.lockvisor.devices.virtioblk.QueuePolicies;
import org.lockvisor.devices.virtioblk.VirtioBlkConfig;
import org.lockvisor.experiment.model.Durations;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.reproductions.api.Reproduction;
import org.lockvisor.reproductions.api.ReproductionOptions;
import org.lockvisor.reproductions.api.ReproductionParameter;
import org.lockvisor.reproductions.api.ReproductionResult;
import org.lockvisor.reproductions.api.WhatIf;
import org.lockvisor.reproductions.support.Plot;
import org.lockvisor.reproductions.support.Published;
import org.lockvisor.reproductions.support.RunMeter;
import org.lockvisor.reproductions.support.ShippedExperiment;
import org.lockvisor.reproductions.support.TextTable;
import org.lockvisor.studies.envelope.Band;

/**
 * R2, "block: virtio_blk: don't hold spin lock during world switch" (Ming Lei, 2014,
 * e8edca6f7f92): fio randread 4 KiB, libaio, iodepth 64, direct, on virtio-blk, with the notify
 * inside vq_lock (baseline) and after the unlock (patched); arm64-kvm (4 vCPUs, numjobs 4, the
 * commit's script) and x86_64-kvm (the seed's 2 x 4 x 2 host, 16 vCPUs, numjobs 2, 4, 8, 12).
 *
 * <p>Every machine is one of the two shipped experiment files ({@code virtio-blk-notify-arm64},
 * {@code virtio-blk-notify-x86}: their base is the baseline, their variant {@code patched} the
 * patch), run by the injected experiment runner exactly as {@code lockvisor run} runs them, with
 * the run lengths of the plan, the row's numjobs and the what-if's settings applied as experiment
 * paths. Everything is priced by the two arch profiles; the published figures appear only in the
 * table beside the simulated ones and in the verdict's bands. The figures are read from each
 * run's {@link ExperimentResult}: the fio workload's and the virtio-blk device's statistics.
 */
@AutoService(Reproduction.class)
public final class VirtioBlkNotifyReproduction implements Reproduction {
  static final String NAME = "virtio-blk-notify";

  // Published figures (seed R2: commit text for arm64, the seed mail for x86), read from
  // published/virtio-blk-notify.properties. Used only to print beside the simulated ones and to
  // judge the bands of issue 6.
  private static final Published PUBLISHED = Published.of(VirtioBlkNotifyReproduction.class, NAME);
  static final double ARM_BASELINE_PUBLISHED = PUBLISHED.get("arm64.nj4.baseline.iops");
  static final double ARM_PATCHED_PUBLISHED = PUBLISHED.get("arm64.nj4.patched.iops");
  static final double X86_NJ2_BASELINE_PUBLISHED = PUBLISHED.get("x86.nj2.baseline.iops");
  static final double X86_NJ2_PATCHED_PUBLISHED = PUBLISHED.get("x86.nj2.patched.iops");

  /** The shipped experiment of the arm64 row (4 vCPUs, numjobs 4, QEMU 2.0's main loop). */
  static final String ARM_FILE = "virtio-blk-notify-arm64";
  /** The shipped experiment of the x86 rows (16 vCPUs, numjobs 2 as shipped, x-data-plane). */
  static final String X86_FILE = "virtio-blk-notify-x86";
  /** The virtio-blk device's options in both files. */
  static final String DEVICE = "vms[0].devices[0].options.";
  /** fio's numjobs in both files: the row. */
  static final String NUMJOBS = "vms[0].workloads[0].options.numjobs";
  static final String VM = "vm0";
  static final String FIO = "fio";

  static final int ARM_VCPUS = 4;
  static final int ARM_NUMJOBS = 4;
  static final int X86_VCPUS = 16;
  static final int[] X86_NUMJOBS = {2, 4, 8, 12};
  static final int IODEPTH = 64;
  static final long SEED = 2014;
  static final String ARM = "arm64-kvm";
  static final String X86 = "x86_64-kvm";
  /** What-if: another seed for every run ({@code --set seed=N}): the files' {@code seed}. */
  static final ReproductionParameter<Long> SEED_PARAMETER =
      ReproductionParameter.seed("the seed of every run, baseline and patched alike (default " + SEED + ")").at("seed");

  /**
   * The seed's setup: the x86 QEMU device model, applied as {@code vms[0].devices[0].options.vmm}
   * of the x86 file only (arm64 in 2014 has only the main-loop device: x-data-plane needs
   * ioeventfd and irqfd, which KVM/ARM gained in 4.1).
   */
  static final ReproductionParameter<VirtioBlkConfig.Vmm> X86_VMM_PARAMETER = ReproductionParameter.of("x86-vmm",
      "the QEMU device model on x86_64-kvm (default qemu-2.0-dataplane, see the reproduction's page); "
          + X86_FILE + ".yaml " + DEVICE + "vmm",
      "one of [qemu-2.0-dataplane, qemu-2.0-main-loop]", VirtioBlkConfig.Vmm::of)
      .declareChoice("qemu-2.0-dataplane", List.of("qemu-2.0-dataplane", "qemu-2.0-main-loop"),
          "seed mail names no device model; QEMU dd67c1d7e7 (same author, July 2014) quotes the seed's 104K IOPS"
              + " with x-data-plane, docs/reproductions/virtio-blk-notify.md")
      .at(X86_FILE, DEVICE + "vmm");
  /**
   * The seed's setup: the arm64 completion interrupt's transport, applied as {@code
   * vms[0].devices[0].options.interrupt-transport} of the arm64 file only.
   */
  static final ReproductionParameter<VirtioBlkConfig.InterruptTransport> ARM_TRANSPORT_PARAMETER =
      ReproductionParameter.of("arm64-interrupt-transport",
          "the completion interrupt on arm64-kvm (default mmio-level, the profile's era default); "
              + ARM_FILE + ".yaml " + DEVICE + "interrupt-transport",
          "one of [mmio-level, msi]", VirtioBlkConfig.InterruptTransport::of)
          .declareChoice("mmio-level", List.of("mmio-level", "msi"), "commit e8edca6f7f92 names no transport;"
              + " QEMU 2.0 arm virt has only virtio-mmio (level SPI), msi is the later-era alternative")
          .at(ARM_FILE, DEVICE + "interrupt-transport");
  /** What-if: the device's ring behaviour of a later QEMU (no domain: the seed's QEMU 2.0.0 fixes it). */
  static final ReproductionParameter<String> QUEUE_POLICY_PARAMETER = ReproductionParameter.of("queue-policy",
      "the device side of the ring on both arches (default auto: QEMU 2.0's own)",
      "one of [auto, qemu-2.0, qemu-2.0-dataplane, last-avail-idx, suppress-while-processing]", v -> {
        if (!v.equals("auto")) {
          QueuePolicies.named(v);
        }
        return v;
      }).at(DEVICE + "queue-policy");
  /** The seed's setup: the backend's mean service time. */
  static final ReproductionParameter<Integer> BACKEND_PARAMETER = ReproductionParameter.integer("backend-service-us",
      "mean (exponential) service time of the storage behind QEMU's linux-aio, µs (default 20)", 1, 10_000)
      .declareRange("20", 5, 100, true, "neither source names the backing store (a fast device, never the"
          + " bottleneck); 5-100 us: the sensitivity table of docs/reproductions/virtio-blk-notify.md")
      .at(DEVICE + "backend-service-ns", us -> us + "us");

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String summary() {
    return "R2 e8edca6f7f92: virtio-blk notify outside vq_lock; fio randread IOPS, arm64 (exit to QEMU under BQL) "
        + "and x86 (ioeventfd), baseline vs patched";
  }

  @Override
  public List<ReproductionParameter<?>> parameters() {
    return List.of(SEED_PARAMETER, X86_VMM_PARAMETER, ARM_TRANSPORT_PARAMETER, QUEUE_POLICY_PARAMETER,
        BACKEND_PARAMETER);
  }

  /**
   * The estimates an envelope samples: the keys of the sensitivity table, the main loop's and the
   * register exits' (issue 33), and the x86 guest's per-request keys that set the numjobs=2 level
   * (docs/reproductions/virtio-blk-notify.md).
   */
  @Override
  public List<String> bandKeys() {
    List<String> keys = new ArrayList<>(List.of("arm64.nj4.ratio", "arm64.nj4.baseline.iops"));
    for (int nj : X86_NUMJOBS) {
      keys.add("x86.nj" + nj + ".ratio");
      if (nj == 2) {
        keys.add("x86.nj2.baseline.iops");
      }
    }
    return List.copyOf(keys);
  }

  @Override
  public List<String> envelopeCosts() {
    return List.of("cost.arm64-kvm.EXIT_USERSPACE", "cost.arm64-kvm.VMM_NOTIFY_BQL",
        "cost.arm64-kvm.VMM_REQUEST_EMULATION", "cost.arm64-kvm.IRQ_INJECT", "cost.arm64-kvm.QEMU_MAIN_LOOP_PASS",
        "cost.arm64-kvm.QEMU_MAIN_LOOP_POLL_FDS", "cost.arm64-kvm.VMM_MMIO_DISPATCH", "cost.x86_64-kvm.EXIT_IO_KERNEL",
        "cost.x86_64-kvm.AIO_SUBMIT_PER_IO", "cost.x86_64-kvm.VIRTQUEUE_ADD", "cost.x86_64-kvm.BENCH_USER_PER_IO");
  }

  /**
   * What {@code --calibrate} fits to the published baseline IOPS (one figure per arch): the
   * QEMU-side emulation cost on arm64 (an x86 estimate reused, "slower cores likely cost more")
   * and the in-kernel ioeventfd exit on x86, each within its profile's estimate range.
   */
  @Override
  public List<String> calibrationParameters() {
    return List.of("cost.arm64-kvm.VMM_REQUEST_EMULATION", "cost.x86_64-kvm.EXIT_IO_KERNEL");
  }

  @Override
  public Set<String> archProfiles() {
    return Set.of(ARM, X86);
  }

  @Override
  public List<String> experimentFiles() {
    return List.of(ARM_FILE, X86_FILE);
  }

  /** Each row's numjobs: the reproduction sets it per point (4 on arm64; 2, 4, 8, 12 on x86). */
  @Override
  public Set<String> pointPaths() {
    return Set.of(NUMJOBS);
  }

  /** One (arch, numjobs) point: both variants on the same seed. */
  record Point(String arch, int numjobs, NotifyFigures baseline, NotifyFigures patched, double publishedBaseline,
      double publishedPatched) {
    double ratio() {
      return patched.iops() / baseline.iops();
    }

    boolean hasPublished() {
      return publishedBaseline > 0;
    }
  }

  /** Run lengths, and whether the sensitivity cases run. */
  record Plan(long warmupMs, long measureMs, boolean sensitivity) {}

  static Plan plan(boolean quick) {
    return quick ? new Plan(5, 25, false) : new Plan(20, 200, true);
  }

  /**
   * The shipped file {@code file} as one run of the reproduction builds it: the plan's run
   * lengths, the row's numjobs, then the what-if's experiment paths, among them the setup
   * parameters that are this file's alone (x86's device model, arm64's interrupt transport: bound
   * to their file with {@link ReproductionParameter#at(String, String)}).
   */
  static ShippedExperiment experiment(String file, int numjobs, Plan plan, ReproductionOptions options) {
    return ShippedExperiment.load(new VirtioBlkNotifyReproduction(), file).with("warmup", plan.warmupMs() + "ms")
        .with("duration", plan.measureMs() + "ms").with(NUMJOBS, Integer.toString(numjobs)).withWhatIf(options);
  }

  /**
   * Both variants of one point, each reported to the options' runs as {@code
   * <arch>-numjobs<N><tag>-baseline} and {@code ...-patched} (with its files when they are
   * captured) and measured by {@code meter}.
   */
  static Point point(ShippedExperiment e, ReproductionOptions options, RunMeter meter, String tag, double pubBase,
      double pubPatched) {
    ExperimentResult base = run(e, options, meter, tag, "base", null);
    String row = base.arch() + "-numjobs" + numjobs(e) + tag;
    ExperimentResult patched = run(e, options, meter, tag, "patched", row + "-baseline");
    return new Point(base.arch(), numjobs(e), NotifyFigures.of(base), NotifyFigures.of(patched), pubBase, pubPatched);
  }

  private static int numjobs(ShippedExperiment e) {
    return e.tree().at("/vms/0/workloads/0/options/numjobs").asInt();
  }

  private static ExperimentResult run(ShippedExperiment e, ReproductionOptions options, RunMeter meter, String tag,
      String variant, String baselineLabel) {
    String arch = e.tree().path("arch").asText();
    String label = arch + "-numjobs" + numjobs(e) + tag + "-" + (variant.equals("base") ? "baseline" : variant);
    return meter.measure(label, () -> e.run(options, NAME, variant, label, baselineLabel), ExperimentResult::events,
        r -> r.warmupNs() + r.simulatedNs());
  }

  /** The points of the reproduction: arm64 first, then x86 by numjobs. */
  static List<Point> runAll(Plan plan, ReproductionOptions options, RunMeter meter) {
    List<Point> points = new ArrayList<>();
    points.add(point(experiment(ARM_FILE, ARM_NUMJOBS, plan, options), options, meter, "", ARM_BASELINE_PUBLISHED,
        ARM_PATCHED_PUBLISHED));
    for (int nj : X86_NUMJOBS) {
      boolean published = nj == 2;
      points.add(point(experiment(X86_FILE, nj, plan, options), options, meter, "",
          published ? X86_NJ2_BASELINE_PUBLISHED : 0, published ? X86_NJ2_PATCHED_PUBLISHED : 0));
    }
    return points;
  }

  /** Internal runs of the reproduction: two per point, and two per sensitivity case. */
  static int plannedRuns(Plan plan) {
    return 2 * (1 + X86_NUMJOBS.length) + (plan.sensitivity() ? 2 * SENSITIVITY_CASES : 0);
  }

  /**
   * The bands of issue 6, each with its published figure: the baseline IOPS levels are figures of
   * the unpatched system alone (calibration targets); the ratios need the patched column.
   */
  static List<Band> bands(List<Point> points) {
    List<Band> bands = new ArrayList<>();
    for (Point p : points) {
      if (p.arch().startsWith("arm64")) {
        bands.add(Band.heldOut("arm64.nj4.ratio", "arm64 numjobs=4 patched/baseline IOPS", "ratio",
            ARM_PATCHED_PUBLISHED / ARM_BASELINE_PUBLISHED, 2.0, 3.0, p.ratio()));
        bands.add(Band.baseline("arm64.nj4.baseline.iops", "arm64 numjobs=4 baseline IOPS", ARM_BASELINE_PUBLISHED,
            0.7 * ARM_BASELINE_PUBLISHED, 1.3 * ARM_BASELINE_PUBLISHED, p.baseline().iops()));
      } else if (p.numjobs() == 2) {
        bands.add(Band.heldOut("x86.nj2.ratio", "x86 numjobs=2 patched/baseline IOPS", "ratio",
            X86_NJ2_PATCHED_PUBLISHED / X86_NJ2_BASELINE_PUBLISHED, 1.2, 1.5, p.ratio()));
        bands.add(Band.baseline("x86.nj2.baseline.iops", "x86 numjobs=2 baseline IOPS", X86_NJ2_BASELINE_PUBLISHED,
            0.7 * X86_NJ2_BASELINE_PUBLISHED, 1.3 * X86_NJ2_BASELINE_PUBLISHED, p.baseline().iops()));
      } else {
        // the seed mail: "no obvious difference" above numjobs=2; no figure
        bands.add(Band.heldOut("x86.nj" + p.numjobs() + ".ratio", "x86 numjobs=" + p.numjobs()
            + " patched/baseline IOPS", "ratio", Double.NaN, 0.93, 1.10, p.ratio()));
      }
    }
    return bands;
  }

  @Override
  public ReproductionResult run(ReproductionOptions options) {
    Plan plan = plan(options.quick());
    options.runs().planned(plannedRuns(plan));
    RunMeter meter = new RunMeter();
    List<Point> points = runAll(plan, options, meter);
    List<Band> bands = bands(points);
    List<Band> checks = NotifyTimingChecks.of(PUBLISHED, points);
    boolean reproduced = bands.stream().allMatch(Band::met);
    long passed = bands.stream().filter(Band::met).count();

    // the setup as the runs had it: the files with the what-if applied
    var armFile = experiment(ARM_FILE, ARM_NUMJOBS, plan, options).tree();
    var x86File = experiment(X86_FILE, X86_NUMJOBS[0], plan, options).tree();
    List<String> report = new ArrayList<>();
    report.add("R2 virtio-blk notify outside vq_lock (e8edca6f7f92): fio randread 4k libaio iodepth=" + IODEPTH
        + " direct=1; " + (options.quick() ? "quick" : "full") + " run, warm-up " + plan.warmupMs()
        + " ms, measured " + plan.measureMs() + " ms simulated per variant, seed " + armFile.path("seed").asText());
    report.add("Setup: x86 " + option(x86File, "vmm") + ", arm64 " + option(armFile, "vmm") + " with interrupt transport "
        + option(armFile, "interrupt-transport") + ", queue policy " + option(x86File, "queue-policy") + ", backend "
        + durationNs(x86File.at("/vms/0/devices/0/options/backend-service-ns")) / 1000 + " us mean service");
    report.add("");
    TextTable iops = new TextTable("arch", "numjobs", "baseline IOPS", "patched IOPS", "ratio", "published",
        "published ratio");
    for (Point p : points) {
      iops.row(p.arch(), p.numjobs(), Math.round(p.baseline().iops()), Math.round(p.patched().iops()),
          TextTable.f("%.2f", p.ratio()),
          p.hasPublished() ? TextTable.f("%.0fK -> %.0fK", p.publishedBaseline() / 1e3, p.publishedPatched() / 1e3)
              : (p.arch().startsWith("x86") ? "no obvious difference" : "-"),
          p.hasPublished() ? TextTable.f("%.2f", p.publishedPatched() / p.publishedBaseline()) : "~1");
    }
    report.addAll(iops.lines());
    report.add("");
    report.add("Why (per variant): notify exits, the exit's length, EVENT_IDX suppression, and guest CPU spent "
        + "spinning on vq_lock; 'spin behind exit' is spin by other vCPUs while the holder was in a notify exit.");
    TextTable why = new TextTable("arch", "numjobs", "variant", "exits/s", "exit us", "exits in lock",
        "kicks suppressed", "vq_lock spin ms/s", "spin behind exit ms/s", "irqs suppressed", "VMM lock waits",
        "clat p50 us");
    for (Point p : points) {
      for (int v = 0; v < 2; v++) {
        NotifyFigures x = v == 0 ? p.baseline() : p.patched();
        why.row(p.arch(), p.numjobs(), v == 0 ? "baseline" : "patched", Math.round(x.exitsPerS()),
            TextTable.f("%.1f", x.meanExitUs()), TextTable.f("%.0f%%", 100 * x.exitUnderLockShare()),
            TextTable.f("%d (%.0f%%)", x.kicksSuppressed(), 100 * x.kicksSuppressedShare()),
            TextTable.f("%.1f", x.spinMsPerS()), TextTable.f("%.1f", x.spinDuringExitMsPerS()),
            x.interruptsSuppressed(), x.vmmLockContentions(), TextTable.f("%.0f", x.clatP50Us()));
      }
    }
    report.addAll(why.lines());
    report.add("");
    report.add("Notify exit durations (us, from the vCPU's exit to its re-entry, the hardware round trip included; "
        + "0.1 us buckets): quantiles and maximum; QEMU main-loop iterations and those that kept the BQL "
        + "(zero-timeout polls with bottom halves pending); virtio-mmio register exits of the interrupt handler.");
    TextTable dist = new TextTable("arch", "numjobs", "variant", "exits", "mean", "p50", "p90", "p99", "max",
        "main-loop iterations", "BQL-held iterations", "mmio register exits");
    for (Point p : points) {
      for (int v = 0; v < 2; v++) {
        NotifyFigures x = v == 0 ? p.baseline() : p.patched();
        dist.row(p.arch(), p.numjobs(), v == 0 ? "baseline" : "patched", Math.round(x.exitsPerS() * plan.measureMs() / 1000.0),
            TextTable.f("%.1f", x.meanExitUs()), TextTable.f("%.1f", x.exitP50Us()), TextTable.f("%.1f", x.exitP90Us()),
            TextTable.f("%.1f", x.exitP99Us()), TextTable.f("%.1f", x.exitMaxUs()), x.mainLoopIterations(),
            x.bqlHeldIterations(), x.mmioRegisterExits());
      }
    }
    report.addAll(dist.lines());
    report.add("");
    report.add("Bands (issue 6): " + passed + " of " + bands.size() + " met");
    TextTable bandTable = new TextTable("band", "simulated", "low", "high", "met");
    for (Band b : bands) {
      boolean ratio = b.column().equals("ratio");
      bandTable.row(b.quantity(), ratio ? TextTable.f("%.2f", b.simulated()) : TextTable.f("%.0f", b.simulated()),
          ratio ? TextTable.f("%.2f", b.low()) : TextTable.f("%.0f", b.low()),
          ratio ? TextTable.f("%.2f", b.high()) : TextTable.f("%.0f", b.high()), b.met() ? "yes" : "NO");
    }
    report.addAll(bandTable.lines());
    report.add("");
    report.addAll(NotifyTimingChecks.table(checks));

    List<Map<String, Object>> sensitivity = new ArrayList<>();
    if (plan.sensitivity()) {
      report.add("");
      report.addAll(sensitivity(plan, sensitivity, options, meter));
    }
    report.add("");
    report.add("Costs: every constant comes from the arm64-kvm and x86_64-kvm profiles (./lockvisor plugins "
        + "--kind arch); VMM_REQUEST_EMULATION and the exit costs are estimates [E], see "
        + "docs/reproductions/virtio-blk-notify.md.");

    Map<String, Double> metrics = new TreeMap<>();
    for (Point p : points) {
      String k = (p.arch().startsWith("arm64") ? "arm64" : "x86") + ".nj" + p.numjobs();
      metrics.put(k + ".baseline.iops", p.baseline().iops());
      metrics.put(k + ".patched.iops", p.patched().iops());
      metrics.put(k + ".ratio", p.ratio());
      metrics.put(k + ".baseline.spin_during_exit_ms_per_s", p.baseline().spinDuringExitMsPerS());
      metrics.put(k + ".baseline.exits_per_s", p.baseline().exitsPerS());
      metrics.put(k + ".patched.exits_per_s", p.patched().exitsPerS());
      metrics.put(k + ".baseline.kicks_suppressed_share", p.baseline().kicksSuppressedShare());
      metrics.put(k + ".patched.kicks_suppressed_share", p.patched().kicksSuppressedShare());
      metrics.put(k + ".baseline.exit_p50_us", p.baseline().exitP50Us());
      metrics.put(k + ".patched.exit_p50_us", p.patched().exitP50Us());
      metrics.put(k + ".baseline.exit_p99_us", p.baseline().exitP99Us());
      metrics.put(k + ".patched.exit_p99_us", p.patched().exitP99Us());
    }
    for (Band c : checks) {
      metrics.put("checks." + c.key(), c.simulated());
    }
    metrics.put("checks.met", (double) checks.stream().filter(Band::met).count());
    metrics.put("bands.met", (double) passed);
    metrics.put("bands.total", (double) bands.size());

    List<Object> rows = new ArrayList<>();
    for (Point p : points) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("arch", p.arch());
      row.put("vcpus", p.arch().startsWith("arm64") ? ARM_VCPUS : X86_VCPUS);
      row.put("numjobs", p.numjobs());
      row.put("baseline", p.baseline().json());
      row.put("patched", p.patched().json());
      row.put("ratio", round3(p.ratio()));
      if (p.hasPublished()) {
        Map<String, Object> pub = new LinkedHashMap<>();
        pub.put("baseline", Map.of("iops", Math.round(p.publishedBaseline())));
        pub.put("patched", Map.of("iops", Math.round(p.publishedPatched())));
        pub.put("source", p.arch().startsWith("arm64") ? "commit e8edca6f7f92" : "seed mail (Ming Lei, 2014-05-30)");
        row.put("published", pub);
      } else {
        row.put("published", null);
      }
      rows.add(row);
    }
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("rows", rows);
    data.put("timing_checks", NotifyTimingChecks.json(checks));
    if (!sensitivity.isEmpty()) {
      data.put("sensitivity", sensitivity);
    }

    options.outputDirectory().ifPresent(dir -> {
      writePlot(dir, points);
      report.add("Plot: " + dir.resolve(NAME + ".png") + " and .svg");
    });

    Point arm = points.get(0);
    Point x2 = points.get(1);
    String headline = TextTable.f("%s: %d/%d bands; arm64 %.1fK -> %.1fK IOPS (x%.2f, published %.0fK -> %.0fK); "
            + "x86 numjobs=2 %.0fK -> %.0fK (x%.2f, published ~%.0fK -> ~%.0fK)",
        reproduced ? "reproduced" : "not reproduced", passed, bands.size(), arm.baseline().iops() / 1e3,
        arm.patched().iops() / 1e3, arm.ratio(), ARM_BASELINE_PUBLISHED / 1e3, ARM_PATCHED_PUBLISHED / 1e3,
        x2.baseline().iops() / 1e3, x2.patched().iops() / 1e3, x2.ratio(), X86_NJ2_BASELINE_PUBLISHED / 1e3,
        X86_NJ2_PATCHED_PUBLISHED / 1e3);
    return meter.attach(ReproductionResult.of(NAME, reproduced, headline, report, metrics, data).withBands(bands));
  }

  /**
   * One sensitivity case: one unsourced constant of one profile at one end of the range its
   * profile states (or the backend's service time, a setup parameter), everything else as in the
   * verdict's runs.
   */
  record SensitivityCase(String arch, String what, CostKey key, double value, long backendServiceNs) {}

  /**
   * Each unsourced cost of the notify and request path, alone, at both ends of its stated range
   * (arm64-kvm.md, x86_64-kvm.md), and the backend at 5 and 100 µs: exit outside the BQL
   * ({@code EXIT_USERSPACE}, {@code EXIT_IO_KERNEL}), under it ({@code VMM_NOTIFY_BQL},
   * {@code IRQ_INJECT}: the line raised and lowered under the BQL; {@code VMM_MMIO_DISPATCH}: the
   * interrupt handler's register exits; {@code QEMU_MAIN_LOOP_PASS}, {@code QEMU_MAIN_LOOP_POLL_FDS}:
   * each main-loop iteration, the BQL kept across those with bottom halves pending), request emulation
   * ({@code VMM_REQUEST_EMULATION} for the main-loop device; the dataplane's per-request keys).
   */
  static final List<SensitivityCase> SENSITIVITY = List.of(
      new SensitivityCase(ARM, "EXIT_USERSPACE=6000", CostKey.EXIT_USERSPACE, 6_000, 0),
      new SensitivityCase(ARM, "EXIT_USERSPACE=20000", CostKey.EXIT_USERSPACE, 20_000, 0),
      new SensitivityCase(ARM, "VMM_NOTIFY_BQL=1000", CostKey.VMM_NOTIFY_BQL, 1_000, 0),
      new SensitivityCase(ARM, "VMM_NOTIFY_BQL=5000", CostKey.VMM_NOTIFY_BQL, 5_000, 0),
      new SensitivityCase(ARM, "VMM_REQUEST_EMULATION=5000", CostKey.VMM_REQUEST_EMULATION, 5_000, 0),
      new SensitivityCase(ARM, "VMM_REQUEST_EMULATION=20000", CostKey.VMM_REQUEST_EMULATION, 20_000, 0),
      new SensitivityCase(ARM, "IRQ_INJECT=2000", CostKey.IRQ_INJECT, 2_000, 0),
      new SensitivityCase(ARM, "IRQ_INJECT=8000", CostKey.IRQ_INJECT, 8_000, 0),
      new SensitivityCase(ARM, "QEMU_MAIN_LOOP_PASS=1200", CostKey.QEMU_MAIN_LOOP_PASS, 1_200, 0),
      new SensitivityCase(ARM, "QEMU_MAIN_LOOP_PASS=5000", CostKey.QEMU_MAIN_LOOP_PASS, 5_000, 0),
      new SensitivityCase(ARM, "QEMU_MAIN_LOOP_POLL_FDS=1000", CostKey.QEMU_MAIN_LOOP_POLL_FDS, 1_000, 0),
      new SensitivityCase(ARM, "QEMU_MAIN_LOOP_POLL_FDS=5000", CostKey.QEMU_MAIN_LOOP_POLL_FDS, 5_000, 0),
      new SensitivityCase(ARM, "VMM_MMIO_DISPATCH=600", CostKey.VMM_MMIO_DISPATCH, 600, 0),
      new SensitivityCase(ARM, "VMM_MMIO_DISPATCH=3000", CostKey.VMM_MMIO_DISPATCH, 3_000, 0),
      new SensitivityCase(ARM, "backend 5 us", null, 0, 5_000),
      new SensitivityCase(ARM, "backend 100 us", null, 0, 100_000),
      new SensitivityCase(X86, "EXIT_IO_KERNEL=1500", CostKey.EXIT_IO_KERNEL, 1_500, 0),
      new SensitivityCase(X86, "EXIT_IO_KERNEL=5000", CostKey.EXIT_IO_KERNEL, 5_000, 0),
      new SensitivityCase(X86, "AIO_SUBMIT_PER_IO=500", CostKey.AIO_SUBMIT_PER_IO, 500, 0),
      new SensitivityCase(X86, "AIO_SUBMIT_PER_IO=2000", CostKey.AIO_SUBMIT_PER_IO, 2_000, 0),
      new SensitivityCase(X86, "VIRTQUEUE_ADD=500", CostKey.VIRTQUEUE_ADD, 500, 0),
      new SensitivityCase(X86, "VIRTQUEUE_ADD=1500", CostKey.VIRTQUEUE_ADD, 1_500, 0),
      new SensitivityCase(X86, "IRQ_INJECT=1500", CostKey.IRQ_INJECT, 1_500, 0),
      new SensitivityCase(X86, "IRQ_INJECT=5000", CostKey.IRQ_INJECT, 5_000, 0),
      new SensitivityCase(X86, "backend 5 us", null, 0, 5_000),
      new SensitivityCase(X86, "backend 100 us", null, 0, 100_000));

  /** The number of sensitivity cases ({@link #sensitivity}). */
  static final int SENSITIVITY_CASES = SENSITIVITY.size();

  private static List<String> sensitivity(Plan plan, List<Map<String, Object>> out, ReproductionOptions options,
      RunMeter meter) {
    List<String> lines = new ArrayList<>();
    lines.add("Sensitivity (not used for the verdict): each unsourced constant alone at the ends of the range its "
        + "profile states, and the backend's service time; arm64 at numjobs 4, x86 at numjobs 2.");
    TextTable t = new TextTable("arch", "numjobs", "varied alone", "baseline IOPS", "patched IOPS", "ratio",
        "ratio band", "level band");
    // a what-if's overrides stay; each case layers its own on top (a cost what-if of its profile, or the backend)
    for (int n = 0; n < SENSITIVITY.size(); n++) {
      SensitivityCase c = SENSITIVITY.get(n);
      boolean arm = c.arch().equals(ARM);
      ReproductionOptions caseOptions = c.key() == null ? options
          : options.withWhatIf(withCost(options.whatIf(), c.arch(), c.key(), c.value()));
      ShippedExperiment e = experiment(arm ? ARM_FILE : X86_FILE, arm ? ARM_NUMJOBS : X86_NUMJOBS[0], plan,
          caseOptions);
      if (c.backendServiceNs() > 0) {
        e = e.with(DEVICE + "backend-service-ns", Durations.format(c.backendServiceNs()));
      }
      Point pt = point(e, caseOptions, meter, "-sensitivity" + (n + 1), 0, 0);
      boolean ratioOk = arm ? pt.ratio() >= 2.0 && pt.ratio() <= 3.0 : pt.ratio() >= 1.2 && pt.ratio() <= 1.5;
      double pub = arm ? ARM_BASELINE_PUBLISHED : X86_NJ2_BASELINE_PUBLISHED;
      boolean levelOk = pt.baseline().iops() >= 0.7 * pub && pt.baseline().iops() <= 1.3 * pub;
      t.row(pt.arch(), pt.numjobs(), c.what(), Math.round(pt.baseline().iops()), Math.round(pt.patched().iops()),
          TextTable.f("%.2f", pt.ratio()), ratioOk ? "in" : "out", levelOk ? "in" : "out");
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("arch", pt.arch());
      m.put("numjobs", pt.numjobs());
      m.put("constants", c.what());
      m.put("baseline_iops", Math.round(pt.baseline().iops()));
      m.put("patched_iops", Math.round(pt.patched().iops()));
      m.put("ratio", round3(pt.ratio()));
      m.put("ratio_in_band", ratioOk);
      m.put("level_in_band", levelOk);
      out.add(m);
    }
    lines.addAll(t.lines());
    return lines;
  }

  /**
   * {@code w} with {@code cost.<arch>.<key>=<value>} layered on top: a sensitivity case is the
   * cost what-if {@code reproduce --set} would make, priced by a runner over the changed profile.
   */
  static WhatIf withCost(WhatIf w, String arch, CostKey key, double value) {
    Map<String, Map<CostKey, Double>> costs = new LinkedHashMap<>();
    w.costs().forEach((profile, overrides) -> costs.put(profile, new LinkedHashMap<>(overrides)));
    costs.computeIfAbsent(arch, a -> new LinkedHashMap<>()).put(key, value);
    ImmutableMap.Builder<String, ImmutableMap<CostKey, Double>> b = ImmutableMap.builder();
    costs.forEach((profile, overrides) -> b.put(profile, ImmutableMap.copyOf(overrides)));
    return new WhatIf(ImmutableList.<String>builder().addAll(w.settings())
        .add("cost." + arch + "." + key + "=" + Math.round(value)).build(), b.buildOrThrow(), w.parameters(), w.paths(),
        w.filePaths());
  }

  /** The virtio-blk option {@code name} of an experiment tree, as written. */
  private static String option(com.fasterxml.jackson.databind.JsonNode tree, String name) {
    return tree.at("/vms/0/devices/0/options/" + name).asText();
  }

  /** A duration as an experiment writes it (a number of ns or {@code 20us}), in ns. */
  private static long durationNs(com.fasterxml.jackson.databind.JsonNode node) {
    return node.isNumber() ? node.asLong() : Durations.parse(node.asText());
  }

  private static void writePlot(Path dir, List<Point> points) {
    List<Point> x86 = points.stream().filter(p -> p.arch().startsWith("x86")).toList();
    Point arm = points.get(0);
    double[] nj = x86.stream().mapToDouble(Point::numjobs).toArray();
    Plot plot = new Plot("virtio-blk notify inside (baseline) vs outside (patched) vq_lock: fio randread 4k", "fio numjobs",
        "IOPS")
        .line("x86 baseline", nj, x86.stream().mapToDouble(p -> p.baseline().iops()).toArray())
        .line("x86 patched", nj, x86.stream().mapToDouble(p -> p.patched().iops()).toArray())
        .line("arm64 baseline", new double[] {arm.numjobs()}, new double[] {arm.baseline().iops()})
        .line("arm64 patched", new double[] {arm.numjobs()}, new double[] {arm.patched().iops()})
        .published("published x86", new double[] {2, 2},
            new double[] {X86_NJ2_BASELINE_PUBLISHED, X86_NJ2_PATCHED_PUBLISHED})
        .published("published arm64", new double[] {ARM_NUMJOBS, ARM_NUMJOBS},
            new double[] {ARM_BASELINE_PUBLISHED, ARM_PATCHED_PUBLISHED});
    try {
      plot.write(dir, NAME);
    } catch (IOException e) {
      throw new UncheckedIOException("virtio-blk-notify: cannot write the plot to " + dir, e);
    }
  }

  static double round1(double v) {
    return Math.round(v * 10) / 10.0;
  }

  static double round3(double v) {
    return Math.round(v * 1000) / 1000.0;
  }
}
