package com.example.tickethold;

import com.google.auto.service.AutoService;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.lockvisor.experiment.SimulationFailedException;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.experiment.runner.LockClassStats;
import org.lockvisor.reproductions.api.DerivedBindings;
import org.lockvisor.reproductions.api.Reproduction;
import org.lockvisor.reproductions.api.ReproductionOptions;
import org.lockvisor.reproductions.api.ReproductionParameter;
import org.lockvisor.reproductions.api.ReproductionResult;
import org.lockvisor.reproductions.support.ShippedExperiment;
import org.lockvisor.studies.envelope.Band;

/**
 * A third-party reproduction: under {@code locktorture} ({@code kernel/locking/locktorture.c},
 * {@code lock_torture_writer}), a ticket spinlock ({@code arch/x86/include/asm/spinlock.h}, {@code
 * __ticket_spin_lock}: FIFO, a waiter spins until its ticket is served) makes each writer wait
 * longer per acquisition when every holder holds it longer: a waiter queues behind whole critical
 * sections. Not a published result; the band is the direction the mechanism must give.
 *
 * <p>Both runs are the shipped file {@code ticket-hold-locktorture.yaml} of this jar, loaded with
 * {@link ShippedExperiment#load(Reproduction, String)} (from this class's loader: a {@code
 * --plugins} jar is a child of lockvisor's) and run through the injected runner ({@link
 * ReproductionOptions#whatIfRunner()}), so {@code lockvisor run} of the exported file processes the
 * same events. The declared parameter {@code writers} is bound to the file's path of the writer
 * count: {@code reproduce ticket-hold --set writers=4} is a what-if applied as that path. The
 * parameter {@code vcpus} sets the machine's size through derived bindings ({@link #MACHINE}): the
 * host's CPUs, the guest's vCPUs and their one-to-one pinning, and it refuses more writers than
 * vCPUs (locktorture's writers each keep a vCPU busy; more would overcommit the guest).
 */
@AutoService(Reproduction.class)
public final class TicketHoldReproduction implements Reproduction {

  static final String NAME = "ticket-hold";
  /** The shipped file: its name starts with the plugin's, as every jar ships into one folder. */
  static final String FILE = "ticket-hold-locktorture";
  static final String LONG_HOLD = "long-hold";
  /** {@code --quick}: the file's runs at half the measured window. */
  static final String QUICK_DURATION = "1ms";
  /**
   * The band on the ratio of the wait per acquisition, 4 us hold over 1 us: a FIFO waiter waits
   * for the critical sections queued before it, so four times the hold must at least double the
   * wait (with the think time fixed, the longer hold also makes contention more likely).
   */
  static final double MIN_WAIT_RATIO = 2.0;

  static final ReproductionParameter<Integer> WRITERS = ReproductionParameter
      .integer("writers", "locktorture writer kthreads (nwriters_stress), at most one per vCPU", 1, 4)
      .at("vms[0].workloads[0].options.nwriters");
  static final ReproductionParameter<Integer> VCPUS = ReproductionParameter
      .integer("vcpus", "guest vCPUs, each pinned to a host CPU of its own (the host has as many)", 1, 4);

  /**
   * {@code vcpus} as paths of the shipped file: {@code host.cpus}, {@code vms[0].vcpus} (which also
   * reads {@code writers}, to refuse more writers than vCPUs) and {@code vms[0].pinning}. The file
   * holds the values at the defaults, so nothing is written unless one of the inputs is set.
   */
  static final DerivedBindings MACHINE = DerivedBindings.builder()
      .input(VCPUS.name(), "4", "4")
      .input(WRITERS.name(), "2", "2")
      .at(FILE, "host.cpus", List.of("vcpus"), in -> in.text("vcpus"))
      .at(FILE, "vms[0].vcpus", List.of("vcpus", "writers"), in -> {
        if (in.integer("writers") > in.integer("vcpus")) {
          throw new UserInputException("ticket-hold: " + in.integer("writers") + " writers need as many vCPUs, vcpus is "
              + in.integer("vcpus") + ": raise vcpus or lower writers");
        }
        return in.text("vcpus");
      })
      .at(FILE, "vms[0].pinning", List.of("vcpus"), in -> {
        List<String> cpus = new ArrayList<>();
        for (int c = 0; c < in.integer("vcpus"); c++) {
          cpus.add(Integer.toString(c));
        }
        return "[" + String.join(", ", cpus) + "]";
      })
      .build();

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String summary() {
    return "ticket spinlock under locktorture: wait per acquisition rises with the hold time (third-party example)";
  }

  @Override
  public List<ReproductionParameter<?>> parameters() {
    return List.of(WRITERS, VCPUS);
  }

  @Override
  public DerivedBindings derivedBindings() {
    return MACHINE;
  }

  @Override
  public List<String> experimentFiles() {
    return List.of(FILE);
  }

  @Override
  public Set<String> archProfiles() {
    return Set.of("x86_64-kvm");
  }

  /** The torture lock's figures of one run. */
  record Figures(long acquisitions, long contentions, long waitTotalNs, long fails) {
    double waitNsPerAcquisition() {
      return acquisitions == 0 ? 0 : (double) waitTotalNs / acquisitions;
    }

    double contendedShare() {
      return acquisitions == 0 ? 0 : (double) contentions / acquisitions;
    }
  }

  @Override
  public ReproductionResult run(ReproductionOptions options) {
    ShippedExperiment file = ShippedExperiment.load(this, FILE);
    if (options.quick()) {
      file = file.with("duration", QUICK_DURATION);
    }
    file = file.withWhatIf(options, this);
    file.experiment(options.whatIfRunner()); // every --set checked by the validator before the first run
    options.runs().planned(2);
    Figures shortHold = figures(file.run(options, NAME, "base", "short-hold", null));
    Figures longHold = figures(file.run(options, NAME, LONG_HOLD, LONG_HOLD, "short-hold"));

    double ratio = shortHold.waitNsPerAcquisition() > 0
        ? longHold.waitNsPerAcquisition() / shortHold.waitNsPerAcquisition() : 0;
    Band band = Band.heldOut("wait_ratio", "wait per acquisition, 4 us hold over 1 us hold", "ratio", Double.NaN,
        MIN_WAIT_RATIO, Double.POSITIVE_INFINITY, ratio);
    boolean exclusive = shortHold.fails() == 0 && longHold.fails() == 0;
    boolean ok = band.met() && exclusive;

    Map<String, Double> metrics = new LinkedHashMap<>();
    put(metrics, "short_hold", shortHold);
    put(metrics, "long_hold", longHold);
    metrics.put("wait_ratio", ratio);
    List<String> report = new ArrayList<>();
    report.add("ticket spinlock under locktorture (" + file.source() + "):");
    report.add(String.format("  hold 1 us: %d acquisitions, %.1f %% contended, %.0f ns wait per acquisition",
        shortHold.acquisitions(), 100 * shortHold.contendedShare(), shortHold.waitNsPerAcquisition()));
    report.add(String.format("  hold 4 us: %d acquisitions, %.1f %% contended, %.0f ns wait per acquisition",
        longHold.acquisitions(), 100 * longHold.contendedShare(), longHold.waitNsPerAcquisition()));
    report.add(String.format("  %s  wait ratio %.2f >= %.1f", band.met() ? "PASS" : "FAIL", ratio, MIN_WAIT_RATIO));
    report.add(String.format("  %s  no mutual-exclusion failure (locktorture's Fail: %d, %d)", exclusive ? "PASS"
        : "FAIL", shortHold.fails(), longHold.fails()));
    String headline = String.format("%s: wait per acquisition %.0f ns -> %.0f ns with 4x the hold (x%.1f)",
        ok ? "reproduced" : "not reproduced", shortHold.waitNsPerAcquisition(), longHold.waitNsPerAcquisition(),
        ratio);
    return ReproductionResult.of(NAME, ok, headline, report, metrics).withBands(List.of(band));
  }

  private static void put(Map<String, Double> metrics, String prefix, Figures f) {
    metrics.put(prefix + ".acquisitions", (double) f.acquisitions());
    metrics.put(prefix + ".contended_share", f.contendedShare());
    metrics.put(prefix + ".wait_ns_per_acquisition", f.waitNsPerAcquisition());
  }

  /** The torture lock's lock_stat class and locktorture's failure count, from the run's result. */
  private static Figures figures(ExperimentResult r) {
    for (LockClassStats c : r.lockStat().classes()) {
      if (c.className().endsWith("/torture_lock")) {
        long fails = r.workloads().get(0).figures().get("fail").longValue();
        return new Figures(c.acquisitions(), c.contentions(), c.waitTotalNs(), fails);
      }
    }
    throw new SimulationFailedException(NAME + ": no torture_lock in the lock_stat of run " + r.variant());
  }
}
