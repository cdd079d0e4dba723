package org.lockvisor.reproductions.vhost;

import com.google.auto.service.AutoService;
import com.google.common.collect.ImmutableMap;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.reproductions.api.Reproduction;
import org.lockvisor.reproductions.api.ReproductionOptions;
import org.lockvisor.reproductions.api.ReproductionParameter;
import org.lockvisor.reproductions.api.ReproductionResult;
import org.lockvisor.reproductions.api.ReproductionRuns;
import org.lockvisor.reproductions.support.Plot;
import org.lockvisor.reproductions.support.Published;
import org.lockvisor.reproductions.support.RunMeter;
import org.lockvisor.reproductions.support.ShippedExperiment;
import org.lockvisor.reproductions.support.TextTable;
import org.lockvisor.studies.envelope.Band;

/**
 * Seed R1, ac9fde2474d0 "vhost: wake up worker outside spin_lock" (Chuanyu Qin, 2013): iperf from
 * a 3.0 guest over vhost-net on a 3.0 x86 host at 10 GbE, with 1, 8, 64 and 256 streams, before
 * ({@code wake-inside-lock}) and after ({@code wake-outside-lock}) the patch. Every run is the
 * shipped experiment file {@code r1-vhost-wakeup.yaml} (the 3.0 kernels, the device and its setup
 * are there) at one stream count and variant, run by the injected experiment runner: {@code
 * lockvisor run} of the exported file with the same {@code --set} processes the same events. Prints the seed's
 * table with the simulated figures beside the published ones, explains where the worker's CPU
 * went (time acquiring {@code work_lock}, contended acquisitions, try_to_wake_up classes), and
 * judges the bands. The published figures appear only here, never in the model.
 */
@AutoService(Reproduction.class)
public final class VhostWakeupReproduction implements Reproduction {
  static final String NAME = "vhost-wakeup";
  static final int[] THREADS = {1, 8, 64, 256};
  /**
   * The seed's table [B], read from published/vhost-wakeup.properties: per entry of {@link
   * #THREADS}, {tp baseline, vhost% baseline, tp patched, vhost% patched}.
   */
  static final double[][] PUBLISHED = published();
  /** The shipped experiment file every run is a point of. */
  static final String FILE = "r1-vhost-wakeup";
  /** The arch profile of the file (the run labels' prefix). */
  static final String ARCH = "x86_64-kvm";
  /** The row's setting: iperf streams. */
  static final String STREAMS_PATH = "vms[0].workloads[0].options.streams";
  /** --quick's windows, as {@code run --set warmup=... --set duration=...} on the file. */
  static final String QUICK_WARMUP = "150ms";
  static final String QUICK_DURATION = "60ms";
  /** The device's work-queue option of each variant (the runs' meter labels). */
  static final String[] WORK_QUEUES = {"wake-inside-lock", "wake-outside-lock", "llist"};
  /** What-if: another seed for every run ({@code --set seed=N}), the file's {@code seed}. */
  static final ReproductionParameter<Long> SEED_PARAMETER =
      ReproductionParameter.seed("the seed of every run (default: the shipped file's, 20130607)").at("seed");
  /** Run-to-run spread of a vhost CPU % figure (measured: up to ~0.7 point at 256 threads). */
  static final double NOISE_POINTS = 0.5;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String summary() {
    return "R1 ac9fde2474d0: vhost_work_queue wakes the worker outside work_lock; iperf 1-256 streams at 10 GbE";
  }

  @Override
  public Set<String> capabilities() {
    return Set.of("plot", "json-rows");
  }

  @Override
  public List<ReproductionParameter<?>> parameters() {
    List<ReproductionParameter<?>> all = new ArrayList<>();
    all.add(SEED_PARAMETER);
    all.addAll(VhostSetup.parameters());
    return all;
  }

  /** The estimates an envelope samples: the wakeup classes and IPI the work_lock section holds, the copy. */
  /**
   * What {@code --calibrate} fits to the published baseline throughput and vhost CPU %: the two
   * costs of the envelope the vhost worker's CPU time is made of, its copies and its wakeups.
   */
  @Override
  public List<String> calibrationParameters() {
    return List.of("cost.x86_64-kvm.MEMCPY_PER_BYTE", "cost.x86_64-kvm.TTWU_FULL");
  }

  @Override
  public List<String> bandKeys() {
    List<String> keys = new ArrayList<>();
    for (int threads : THREADS) {
      String k = "t" + threads + ".";
      keys.addAll(List.of(k + "baseline.gbps", k + "patched.gbps", k + "baseline.vhost_cpu_percent",
          k + "patched.vhost_cpu_percent"));
    }
    keys.add("reduction.t256_relative");
    return List.copyOf(keys);
  }

  @Override
  public List<String> envelopeCosts() {
    return List.of("cost.x86_64-kvm.TTWU_ON_RQ", "cost.x86_64-kvm.TTWU_FULL", "cost.x86_64-kvm.IPI_SEND", "cost.x86_64-kvm.MEMCPY_PER_BYTE");
  }

  @Override
  public Set<String> archProfiles() {
    return Set.of(ARCH);
  }

  /** One simulated point. */
  record Point(
      double gbps,
      double vhostCpuPercent,
      double workLockPercent,
      double workerIrqPercent,
      long contentionsPerSec,
      long wakesPerSec,
      long wakesUnderLockPerSec,
      long ttwuRunningPerSec,
      long ttwuOnRqPerSec,
      long ttwuFullPerSec,
      long onCpuWaitsPerSec,
      double meanSegmentBytes,
      long qdiscDropsPerSec,
      long acksPerSec,
      double bytesPerAck,
      long[] workerAcquisitionsPerSec,
      long[] workerCollisionsPerSec,
      long ttwuRemoteInReadPerSec,
      long secondWakesPerSec,
      double kworkerCpuPercent,
      double workerSoftirqPercent,
      double workLockHoldPercent,
      WorkLockCeiling.Figures workLock,
      double tapSkbsPerSec,
      double framesPerSkb) {}

  /**
   * The variants measured, as the shipped file names them: the baseline (the file's base, wake
   * inside work_lock), patched (wake outside) and the 4.6 llist for comparison.
   */
  static final String[] VARIANTS = {"base", "patched", "llist"};
  static final String[] VARIANT_NAMES = {"baseline", "patched", "llist"};

  @Override
  public List<String> experimentFiles() {
    return List.of(FILE);
  }

  @Override
  public Set<String> pointPaths() {
    return Set.of(STREAMS_PATH);
  }

  @Override
  public ReproductionResult run(ReproductionOptions options) {
    ShippedExperiment file = ShippedExperiment.load(this, FILE);
    if (options.quick()) {
      file = file.with("warmup", QUICK_WARMUP).with("duration", QUICK_DURATION);
    }
    // the setup as it runs (the user's --set applied), read from the experiment itself; validated
    // before the first run: a setting the machine refuses is bad input, exit 2
    Experiment setup = file.withWhatIf(options).experiment(options.whatIfRunner());
    // issue 32: both directions unless --set direction=... picks one (which is then the judged one)
    Optional<String> chosen = options.parameter(VhostSetup.DIRECTION);
    String[] directions = chosen.map(d -> new String[] {d}).orElse(VhostSetup.DIRECTIONS);
    Point[][][] points = new Point[directions.length][THREADS.length][VARIANTS.length];
    ReproductionRuns runs = options.runs();
    runs.planned(directions.length * VARIANTS.length * THREADS.length);
    RunMeter meter = new RunMeter();
    for (int d = 0; d < directions.length; d++) {
      boolean rx = directions[d].equals("guest-receive");
      for (int i = 0; i < THREADS.length; i++) {
        ShippedExperiment point = point(file, THREADS[i], options);
        if (rx && chosen.isEmpty()) {
          point = point.with(VhostSetup.DIRECTION_PATH, directions[d]);
        }
        for (int v = 0; v < VARIANTS.length; v++) {
          points[d][i][v] = simulate(point, options, THREADS[i], v, meter, rx);
        }
      }
    }
    ReproductionResult judged = judge(points[0], options, VhostSetup.describe(setup, options.runner().plugins())
        + ", iperf direction " + directions[0] + (directions.length > 1 ? " (judged; guest-receive beside it)" : ""),
        setup.warmupNs(), setup.durationNs());
    return meter.attach(VhostDirections.sideBySide(judged, directions, points, options));
  }

  /** The shipped file at {@code streams} iperf streams, with the user's what-if. */
  static ShippedExperiment point(ShippedExperiment file, int streams, ReproductionOptions options) {
    return file.with(STREAMS_PATH, Integer.toString(streams)).withWhatIf(options);
  }

  /**
   * One run of variant {@code VARIANTS[v]} through the runner, reported to the options' runs as
   * {@code x86_64-kvm-streams<N>-baseline} (wake inside the lock), {@code -patched} (wake outside)
   * or {@code -llist}, captured when they ask; the figures read from its result.
   */
  static Point simulate(ShippedExperiment point, ReproductionOptions options, int threads, int v, RunMeter meter,
      boolean guestReceive) {
    String row = ARCH + (guestReceive ? "-guest-receive" : "") + "-streams" + threads;
    String label = row + "-" + VARIANT_NAMES[v];
    point.experiment(options.whatIfRunner()); // validated once per point, before the measured runs
    ExperimentResult r = meter.measure(String.format("%sstreams=%03d %s", guestReceive ? "rx " : "", threads,
        WORK_QUEUES[v]),
        () -> point.run(options, NAME, VARIANTS[v], label, v == 0 ? null : row + "-" + VARIANT_NAMES[0]),
        ExperimentResult::events, x -> x.warmupNs() + x.simulatedNs());
    return point(r);
  }

  /** The figures of one run, from its result: the vhost-net device's statistics and iperf's figures. */
  static Point point(ExperimentResult r) {
    Map<String, Number> d = r.devices().get(0).stats();
    Map<String, Number> iperf = r.workloads().get(0).figures();
    long measureNs = r.simulatedNs();
    double secs = measureNs / 1e9;
    return new Point(
        iperf.get("throughput_gbps").doubleValue(),
        d.get("worker_cpu_percent").doubleValue(),
        100.0 * d.get("worker_work_lock_ns").doubleValue() / measureNs,
        100.0 * d.get("worker_irq_ns").doubleValue() / measureNs,
        perSec(d, "work_lock.contentions", secs),
        perSec(d, "worker_wakes_issued", secs),
        perSec(d, "worker_wakes_under_work_lock", secs),
        perSec(d, "worker.ttwu_running", secs),
        perSec(d, "worker.ttwu_on_rq", secs),
        perSec(d, "worker.ttwu_full", secs),
        perSec(d, "host.ttwu_on_cpu_waits", secs),
        iperf.get("mean_segment_bytes").doubleValue(),
        perSec(d, "qdisc_drops", secs),
        Math.round(d.get("acks_per_s").doubleValue()),
        d.get("bytes_per_ack").doubleValue(),
        lockRates(d, "acquisitions", secs),
        lockRates(d, "collisions", secs),
        perSec(d, "worker.ttwu_remote_in_tun_read", secs),
        perSec(d, "tun_second_wakes", secs),
        d.get("kworker_cpu_percent").doubleValue(),
        100.0 * d.get("worker_softirq_ns").doubleValue() / measureNs,
        d.get("work_lock.hold_total_ns") == null ? 0 : 100.0 * d.get("work_lock.hold_total_ns").doubleValue() / measureNs,
        WorkLockCeiling.Figures.of(d, measureNs),
        d.get("rx.skbs_per_s") != null ? d.get("rx.skbs_per_s").doubleValue() : d.get("acks_per_s").doubleValue(),
        d.get("rx.frames_per_skb") != null ? d.get("rx.frames_per_skb").doubleValue() : 0);
  }

  private static long[] lockRates(Map<String, Number> d, String what, double secs) {
    String[] locks = {"work_lock", "tun.wq.wait.lock", "sk_receive_queue.lock"};
    long[] r = new long[locks.length];
    for (int i = 0; i < locks.length; i++) {
      r[i] = perSec(d, "worker." + locks[i] + "." + what, secs);
    }
    return r;
  }

  private static long perSec(Map<String, Number> d, String key, double secs) {
    Number n = d.get(key);
    return n == null ? 0 : Math.round(n.doubleValue() / secs); // no work_lock in the llist variant
  }

  // -------------------------------------------------------------------------------------------
  // Verdict, report, JSON, plot.

  private ReproductionResult judge(Point[][] p, ReproductionOptions options, String setup, long warmup,
      long measure) {
    List<String> report = new ArrayList<>();
    report.add("Seed R1 (ac9fde2474d0), simulated on x86_64-kvm: 3.0 host and guest (ticket spinlocks, "
        + "TTWU_QUEUE to any remote CPU, try_to_wake_up waits on on_cpu), vhost-net + virtio-net with EVENT_IDX, "
        + "iperf 2 client, 10 GbE; setup: " + setup + "; "
        + "warm-up " + warmup / 1_000_000 + " ms, measured " + measure / 1_000_000 + " ms per point.");
    report.add("");
    TextTable main = new TextTable("threads", "tp base", "tp patched", "(pub)", "vhost% base", "(pub)",
        "vhost% patched", "(pub)", "delta sim", "ceiling", "delta pub", "coll/s base");
    for (int i = 0; i < THREADS.length; i++) {
      double[] pub = PUBLISHED[i];
      main.row(THREADS[i], p[i][0].gbps(), p[i][1].gbps(), TextTable.f("%.2f/%.2f", pub[0], pub[2]),
          p[i][0].vhostCpuPercent(), pub[1], p[i][1].vhostCpuPercent(), pub[3],
          p[i][0].vhostCpuPercent() - p[i][1].vhostCpuPercent(),
          TextTable.f("%.3f", p[i][0].workLock().onVhostThreadPercent()), pub[1] - pub[3],
          p[i][0].workLock().totalCollisionsPerSec());
    }
    report.addAll(main.lines());
    report.add("  " + WorkLockCeiling.SENTENCE + "; coll/s base: work_lock collisions per second, all acquirers,"
        + " baseline.");
    report.add("");
    WorkLockCeiling.Figures[][] ceiling = new WorkLockCeiling.Figures[THREADS.length][VARIANTS.length];
    for (int i = 0; i < THREADS.length; i++) {
      for (int v = 0; v < VARIANTS.length; v++) {
        ceiling[i][v] = p[i][v].workLock();
      }
    }
    report.addAll(WorkLockCeiling.table(THREADS, VARIANT_NAMES, ceiling));
    report.add("");
    report.add("Where the worker's CPU went (per variant; rates per second of simulated time):");
    TextTable why = new TextTable("threads", "variant", "vhost%", "work_lock%", "irq%", "softirq%", "contended/s",
        "wakes/s", "under lock/s", "ttwu running/s", "ttwu on_rq/s", "ttwu full/s", "on_cpu waits/s", "seg bytes", "drops/s");
    for (int i = 0; i < THREADS.length; i++) {
      for (int v = 0; v < VARIANTS.length; v++) {
        Point x = p[i][v];
        why.row(THREADS[i], VARIANT_NAMES[v], x.vhostCpuPercent(),
            TextTable.f("%.3f", x.workLockPercent()), TextTable.f("%.3f", x.workerIrqPercent()),
            TextTable.f("%.2f", x.workerSoftirqPercent()),
            x.contentionsPerSec(), x.wakesPerSec(), x.wakesUnderLockPerSec(), x.ttwuRunningPerSec(),
            x.ttwuOnRqPerSec(), x.ttwuFullPerSec(), x.onCpuWaitsPerSec(), TextTable.f("%.0f", x.meanSegmentBytes()),
            x.qdiscDropsPerSec());
      }
    }
    report.addAll(why.lines());
    report.add("");
    report.add("The peer's ACKs, the worker's locks (acquisitions / collisions per second: the lock was held when"
        + " the worker tried), wakes of the worker inside tun_do_read, the kworker:");
    TextTable locks = new TextTable("threads", "variant", "ACKs/s", "bytes/ACK", "work_lock acq/coll",
        "tun wq.wait acq/coll", "sk_rcvq acq/coll", "ttwu_remote in read/s", "2nd wakes/s", "kworker%");
    for (int i = 0; i < THREADS.length; i++) {
      for (int v = 0; v < VARIANTS.length; v++) {
        Point x = p[i][v];
        long[] a = x.workerAcquisitionsPerSec();
        long[] c = x.workerCollisionsPerSec();
        locks.row(THREADS[i], VARIANT_NAMES[v], x.acksPerSec(), TextTable.f("%.0f", x.bytesPerAck()),
            a[0] + " / " + c[0], a[1] + " / " + c[1], a[2] + " / " + c[2], x.ttwuRemoteInReadPerSec(),
            x.secondWakesPerSec(), TextTable.f("%.2f", x.kworkerCpuPercent()));
      }
    }
    report.addAll(locks.lines());
    report.add("  ttwu_remote in read: try_to_wake_up(worker) while it runs INTERRUPTIBLE inside tun_do_read (3.0):"
        + " the on_rq class (ttwu_remote under the wakee's rq lock) instead of the fast exit;");
    report.add("  2nd wakes: tun_net_xmit's wake_up walking tun->wq.wait finds the 3.0 reader on it and wakes it"
        + " directly, besides vhost_poll_wakeup; kworker%: the kworkers injecting irqfd interrupts (3.0).");
    report.add("  work_lock%: worker CPU acquiring work_lock (its spin_lock_irq and any vhost_work_queue it runs,"
        + " interrupts included: the spin plus the atomic); contended/s: all acquirers of work_lock;");
    report.add("  ttwu classes: try_to_wake_up(worker) found it running (fast exit) / still on its runqueue (the"
        + " worker is spinning or about to sleep) / asleep (full wakeup, 3.0: wake list + IPI);");
    report.add("  on_cpu waits/s: host try_to_wake_up calls (any wakee) that spun in while (p->on_cpu) until the"
        + " wakee's CPU finished switching it out.");
    report.add("");

    // Bands of the issue.
    Map<String, Double> metrics = new TreeMap<>();
    List<String> checks = new ArrayList<>();
    boolean ok = true;
    double bandPct = options.quick() ? 35 : 25;
    List<Band> bands = bands(p, bandPct);
    for (int i = 0; i < THREADS.length; i++) {
      Point b = p[i][0];
      Point a = p[i][1];
      double[] pub = PUBLISHED[i];
      String t = "threads=" + THREADS[i];
      boolean tp = inRange(b.gbps(), 9.0, 9.8) && inRange(a.gbps(), 9.0, 9.8)
          && Math.abs(b.gbps() - a.gbps()) <= 0.03 * Math.max(b.gbps(), a.gbps());
      ok &= check(checks, tp, t + ": throughput in 9.0-9.8 Gbps and within 3 %");
      ok &= check(checks, a.vhostCpuPercent() < b.vhostCpuPercent(), t + ": patched vhost% < baseline");
      ok &= check(checks, within(b.vhostCpuPercent(), pub[1], bandPct), t + ": baseline vhost% within "
          + (int) bandPct + " % of " + pub[1]);
      ok &= check(checks, within(a.vhostCpuPercent(), pub[3], bandPct), t + ": patched vhost% within "
          + (int) bandPct + " % of " + pub[3]);
      String k = "t" + THREADS[i] + ".";
      metrics.put(k + "baseline.gbps", b.gbps());
      metrics.put(k + "patched.gbps", a.gbps());
      metrics.put(k + "baseline.vhost_cpu_percent", b.vhostCpuPercent());
      metrics.put(k + "patched.vhost_cpu_percent", a.vhostCpuPercent());
      metrics.put(k + "baseline.work_lock_percent", b.workLockPercent());
      metrics.put(k + "patched.work_lock_percent", a.workLockPercent());
      metrics.put(k + "baseline.work_lock_contentions_per_s", (double) b.contentionsPerSec());
      metrics.put(k + "patched.work_lock_contentions_per_s", (double) a.contentionsPerSec());
      metrics.put(k + "baseline.work_lock_hold_percent", b.workLockHoldPercent());
      metrics.put(k + "patched.work_lock_hold_percent", a.workLockHoldPercent());
      metrics.put(k + "baseline.work_lock_ceiling_percent", b.workLock().onVhostThreadPercent());
      metrics.put(k + "patched.work_lock_ceiling_percent", a.workLock().onVhostThreadPercent());
      metrics.put(k + "baseline.work_lock_acquire_all_percent", b.workLock().totalPercent());
      metrics.put(k + "baseline.work_lock_collisions_per_s", (double) b.workLock().totalCollisionsPerSec());
    }
    for (int i = 0; i < THREADS.length; i++) {
      Point ll = p[i][2];
      Point out = p[i][1];
      boolean equalTp = Math.abs(ll.gbps() - out.gbps()) <= 0.03 * Math.max(ll.gbps(), out.gbps());
      // "at most": within the run-to-run spread of a CPU figure
      ok &= check(checks, equalTp && ll.vhostCpuPercent() <= out.vhostCpuPercent() + NOISE_POINTS,
          TextTable.f("threads=%d: llist vhost%% %.2f <= wake-outside-lock %.2f (+%.1f spread) at equal throughput",
              THREADS[i], ll.vhostCpuPercent(), out.vhostCpuPercent(), NOISE_POINTS));
      metrics.put("t" + THREADS[i] + ".llist.vhost_cpu_percent", ll.vhostCpuPercent());
      metrics.put("t" + THREADS[i] + ".baseline.acks_per_s", (double) p[i][0].acksPerSec());
    }
    int last = THREADS.length - 1;
    ok &= check(checks, p[last][0].vhostCpuPercent() - p[0][0].vhostCpuPercent() >= NOISE_POINTS,
        TextTable.f("baseline vhost%% grows from 1 to 256 threads (%.2f -> %.2f)", p[0][0].vhostCpuPercent(),
            p[last][0].vhostCpuPercent()));
    double d1 = p[0][0].vhostCpuPercent() - p[0][1].vhostCpuPercent();
    double dn = p[last][0].vhostCpuPercent() - p[last][1].vhostCpuPercent();
    double rel = p[last][0].vhostCpuPercent() <= 0 ? 0 : dn / p[last][0].vhostCpuPercent();
    // a growth smaller than the run-to-run spread of one point (up to ~0.7 point at 256 threads between
    // runs that differ only in event order) is not a growth
    ok &= check(checks, dn - d1 >= NOISE_POINTS,
        TextTable.f("absolute reduction grows from 1 to 256 threads by at least %.1f point (%.2f -> %.2f points)",
            NOISE_POINTS, d1, dn));
    ok &= check(checks, rel >= 0.10 && rel <= 0.25,
        TextTable.f("relative reduction at 256 threads in 10-25 %% (%.1f %%)", 100 * rel));
    metrics.put("reduction.t1_points", d1);
    metrics.put("reduction.t256_points", dn);
    metrics.put("reduction.t256_relative", rel);
    report.add("Acceptance (issue 5):");
    report.addAll(checks);
    report.add("");
    report.add("Reading: the wake under work_lock lengthens each locked section by the waker's try_to_wake_up; the"
        + " worker pays for it only when it reaches spin_lock_irq(work_lock) while a waker is inside that section.");
    report.add("The work_lock% and ttwu on_rq/s columns count exactly those collisions; the rest of the worker's time"
        + " is copying and the host network stack, identical in both variants.");

    Map<String, Object> data = new LinkedHashMap<>();
    List<Object> rows = new ArrayList<>();
    for (int i = 0; i < THREADS.length; i++) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("threads", THREADS[i]);
      row.put("baseline", figures(p[i][0].gbps(), p[i][0].vhostCpuPercent()));
      row.put("patched", figures(p[i][1].gbps(), p[i][1].vhostCpuPercent()));
      Map<String, Object> pub = new LinkedHashMap<>();
      pub.put("baseline", figures(PUBLISHED[i][0], PUBLISHED[i][1]));
      pub.put("patched", figures(PUBLISHED[i][2], PUBLISHED[i][3]));
      row.put("published", pub);
      Map<String, Object> ceil = new LinkedHashMap<>();
      ceil.put("deltaPoints", round(p[i][0].vhostCpuPercent() - p[i][1].vhostCpuPercent()));
      ceil.put("ceilingPoints", WorkLockCeiling.round3(p[i][0].workLock().onVhostThreadPercent()));
      ceil.put("meaning", WorkLockCeiling.SENTENCE);
      for (int v = 0; v < VARIANTS.length; v++) {
        ceil.put(VARIANT_NAMES[v], p[i][v].workLock().json());
      }
      row.put("workLock", ceil);
      rows.add(row);
    }
    data.put("rows", rows);

    options.outputDirectory().ifPresent(dir -> writePlot(dir, p));

    String headline = TextTable.f("%s: vhost CPU %% baseline -> patched at 1/256 threads: %.1f -> %.1f / %.1f -> %.1f "
            + "(published %.1f -> %.1f / %.1f -> %.1f); throughput %.2f-%.2f Gbps",
        ok ? "reproduced" : "not reproduced",
        p[0][0].vhostCpuPercent(), p[0][1].vhostCpuPercent(), p[last][0].vhostCpuPercent(),
        p[last][1].vhostCpuPercent(), PUBLISHED[0][1], PUBLISHED[0][3], PUBLISHED[last][1], PUBLISHED[last][3],
        minGbps(p), maxGbps(p));
    return ReproductionResult.of(NAME, ok, headline, report, metrics, data).withBands(bands);
  }

  /**
   * The bands of issue 5 on published figures: per thread count, each variant's throughput in
   * 9.0-9.8 Gbps and vhost CPU % within {@code bandPct} % of the seed's table, and the relative
   * reduction at 256 threads in 10-25 %. Baseline figures are measurements of the unpatched host
   * alone; the patched column and the reduction are held out of a calibration. The direction checks
   * (patched below baseline, growth with threads, llist at most wake-outside-lock) stay checks.
   */
  static List<Band> bands(Point[][] p, double bandPct) {
    List<Band> bands = new ArrayList<>();
    double f = bandPct / 100;
    for (int i = 0; i < THREADS.length; i++) {
      double[] pub = PUBLISHED[i];
      String k = "t" + THREADS[i] + ".";
      String t = THREADS[i] + " streams ";
      bands.add(Band.baseline(k + "baseline.gbps", t + "baseline throughput Gbps", pub[0], 9.0, 9.8, p[i][0].gbps()));
      bands.add(Band.heldOut(k + "patched.gbps", t + "patched throughput Gbps", Band.PATCHED, pub[2], 9.0, 9.8,
          p[i][1].gbps()));
      bands.add(Band.baseline(k + "baseline.vhost_cpu_percent", t + "baseline vhost CPU %", pub[1], pub[1] * (1 - f),
          pub[1] * (1 + f), p[i][0].vhostCpuPercent()));
      bands.add(Band.heldOut(k + "patched.vhost_cpu_percent", t + "patched vhost CPU %", Band.PATCHED, pub[3],
          pub[3] * (1 - f), pub[3] * (1 + f), p[i][1].vhostCpuPercent()));
    }
    int last = THREADS.length - 1;
    double base = p[last][0].vhostCpuPercent();
    double rel = base <= 0 ? 0 : (base - p[last][1].vhostCpuPercent()) / base;
    double pubRel = (PUBLISHED[last][1] - PUBLISHED[last][3]) / PUBLISHED[last][1];
    bands.add(Band.heldOut("reduction.t256_relative", "relative vhost CPU reduction at 256 streams", "reduction",
        pubRel, 0.10, 0.25, rel));
    return bands;
  }

  private static Map<String, Object> figures(double gbps, double cpu) {
    return ImmutableMap.of("throughputGbps", round(gbps), "vhostCpuPercent", round(cpu));
  }

  private static double round(double v) {
    return Math.round(v * 100) / 100.0;
  }

  private static boolean check(List<String> lines, boolean pass, String what) {
    lines.add((pass ? "  PASS  " : "  FAIL  ") + what);
    return pass;
  }

  static boolean inRange(double v, double lo, double hi) {
    return v >= lo && v <= hi;
  }

  static boolean within(double simulated, double published, double percent) {
    return Math.abs(simulated - published) <= published * percent / 100;
  }

  private static double minGbps(Point[][] p) {
    double m = Double.MAX_VALUE;
    for (Point[] row : p) {
      for (Point x : row) {
        m = Math.min(m, x.gbps());
      }
    }
    return m;
  }

  private static double maxGbps(Point[][] p) {
    double m = 0;
    for (Point[] row : p) {
      for (Point x : row) {
        m = Math.max(m, x.gbps());
      }
    }
    return m;
  }

  private static void writePlot(Path dir, Point[][] p) {
    double[] x = new double[THREADS.length];
    double[] base = new double[THREADS.length];
    double[] patched = new double[THREADS.length];
    double[] pubBase = new double[THREADS.length];
    double[] pubPatched = new double[THREADS.length];
    for (int i = 0; i < THREADS.length; i++) {
      x[i] = THREADS[i];
      base[i] = p[i][0].vhostCpuPercent();
      patched[i] = p[i][1].vhostCpuPercent();
      pubBase[i] = PUBLISHED[i][1];
      pubPatched[i] = PUBLISHED[i][3];
    }
    Plot plot = new Plot("vhost worker CPU vs iperf threads (R1, ac9fde2474d0)", "iperf threads", "vhost CPU %")
        .logX()
        .line("simulated wake-inside-lock", x, base)
        .line("simulated wake-outside-lock", x, patched)
        .published("published original", x, pubBase)
        .published("published modified", x, pubPatched);
    try {
      plot.write(dir, "vhost-wakeup");
    } catch (IOException e) {
      throw new UncheckedIOException("vhost-wakeup: cannot write the plot to " + dir + ": " + e.getMessage(), e);
    }
  }

  private static double[][] published() {
    Published pub = Published.of(VhostWakeupReproduction.class, NAME);
    double[][] out = new double[THREADS.length][];
    for (int i = 0; i < THREADS.length; i++) {
      String t = THREADS[i] + ".";
      out[i] = new double[] {pub.get(t + "baseline.throughputGbps"), pub.get(t + "baseline.vhostCpuPercent"),
          pub.get(t + "patched.throughputGbps"), pub.get(t + "patched.vhostCpuPercent")};
    }
    return out;
  }
}
