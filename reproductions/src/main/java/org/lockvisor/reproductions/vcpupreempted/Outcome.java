package org.lockvisor.reproductions.vcpupreempted;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import java.util.List;
import java.util.Map;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.experiment.runner.GuestSamples;
import org.lockvisor.experiment.runner.LockConvoy;
import org.lockvisor.experiment.runner.LockTotals;
import org.lockvisor.reports.PerfReport;

/**
 * What R3 reads of one run of its experiment file: the guest-sampled perf report of the measured
 * guest, the benchmark's figures, and the mechanism counters as one map (lock totals over every
 * algorithm, the rwsem-xadd hold time, the guest sampler's spinners under the three
 * optimistic-spin symbols, the guest's mean runqueue and, on PowerVM, its hcalls), all from the
 * runner's {@link ExperimentResult}. A snapshot: the result (threads, lock classes) is not kept.
 *
 * @param report the guest's perf report over the run
 * @param figures the sched-messaging workload's figures ({@code total_time_s}, {@code tasks}, ...)
 * @param simulatedNs when the run ended (the first done check after the benchmark finished)
 * @param events simulation events the machine processed (the sampler's left out)
 * @param fingerprint the run's fingerprint, as {@code lockvisor run} prints it
 * @param stats the mechanism counters, by the names the report reads
 * @param convoys the convoy diagnosis of the locks with the most spin time ({@link ConvoyDiagnosis#KEPT})
 */
record Outcome(PerfReport report, ImmutableMap<String, Number> figures, long simulatedNs, long events,
    String fingerprint, ImmutableMap<String, Long> stats, ImmutableList<LockConvoy> convoys) {

  /** The spin symbols of the optimistic spinners the series teaches to stop: the sampler's subjects. */
  static final List<String> SPIN = List.of("osq_lock", "rwsem_spin_on_owner", "mutex_spin_on_owner");

  /** The share (%) of {@code symbol} in {@code r}; {@code [H]} is the hypervisor total. */
  static double share(PerfReport r, String symbol) {
    return symbol.equals("[H]") ? r.hypervisorPercent() : r.percent(symbol);
  }

  /** The share (%) of the {@link #SPIN} symbols together in {@code r}. */
  static double spin(PerfReport r) {
    return SPIN.stream().mapToDouble(r::percent).sum();
  }

  /** The outcome of {@code r}, a run of one of R3's files, whose measured guest is {@code vm}. */
  @SuppressWarnings("unchecked")
  static Outcome of(ExperimentResult r, String vm) {
    LockTotals all = LockTotals.all(r.lockTotals());
    LockTotals rwsem = r.lockTotals().get("rwsem-xadd");
    GuestSamples samples = r.samples(vm);
    GuestSamples.Spinners spinners = samples.spinners(SPIN);
    ImmutableMap.Builder<String, Long> stats = ImmutableMap.<String, Long>builder()
        .put("contentions", all.contentions()).put("sleeps", all.sleeps()).put("spin_bailouts", all.spinBailouts())
        .put("spin_acquisitions", all.spinAcquisitions()).put("confers", all.confers())
        .put("rwsem_hold_ns", rwsem == null ? 0 : rwsem.holdTotalNs())
        .put("owner_spins", all.ownerSpins()).put("owner_spin_ns", all.ownerSpinNs())
        .put("wakeups_left_to_spinner", all.wakeupsLeftToSpinner())
        .put("spinner_samples", spinners.samples()).put("spinner_runnable_sum", spinners.runnableSum())
        .put("spinner_runnable_max", spinners.runnableMax())
        .put("spinner_osq_member_samples", samples.spinners("osq_lock").samples())
        .put("preempted_vps_sum", samples.preemptedVcpuSum()).put("sampler_periods", samples.periods());
    Map<String, Object> guest = guest(r, vm);
    stats.put("guest_runqueue_mean_milli", Math.round(((Number) guest.get("runqueue_length_mean")).doubleValue() * 1000));
    Object hcalls = guest.get("hcalls");
    if (hcalls instanceof Map<?, ?> m) {
      ((Map<String, Long>) m).forEach((k, v) -> stats.put("hcall." + k, v));
    }
    return new Outcome(PerfReport.of(r.profile(vm)), ImmutableMap.copyOf(r.workload(vm, "sched-messaging").figures()),
        r.warmupNs() + r.simulatedNs(), r.events(), r.fingerprint(), stats.buildOrThrow(),
        ImmutableList.copyOf(r.convoys().subList(0, Math.min(ConvoyDiagnosis.KEPT, r.convoys().size()))));
  }

  /** The scheduling counters of guest {@code vm}. */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> guest(ExperimentResult r, String vm) {
    for (Object g : (List<Object>) r.scheduling().get("guests")) {
      Map<String, Object> m = (Map<String, Object>) g;
      if (vm.equals(m.get("vm"))) {
        return m;
      }
    }
    throw new IllegalStateException("no scheduling counters of VM [" + vm + "]");
  }

  /** perf's Total time (s). */
  double totalTimeSeconds() {
    return figures.get("total_time_s").doubleValue();
  }

  long lockStat(String key) {
    return stats.getOrDefault(key, 0L);
  }
}
