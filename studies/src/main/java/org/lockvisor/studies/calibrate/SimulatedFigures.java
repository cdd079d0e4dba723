package org.lockvisor.studies.calibrate;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.common.collect.ImmutableSortedMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.experiment.model.ComponentSpec;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.VmSpec;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.reports.Iperf3Json;
import org.lockvisor.reports.LockStatReport;
import org.lockvisor.workloads.fio.FioJson;

/**
 * The figures of one simulated run under the names a measured target uses ({@link
 * MeasuredFigures}), obtained by rendering the run's outputs in the real tools' shapes and reading
 * them back with the same reader, so a measurement and a simulation meet on equal terms:
 *
 * <ul>
 *   <li>{@code fio.<dir>.iops|bw_kib|clat_mean_us|lat_mean_us}: the run's fio JSON (the
 *       experiment's only fio workload);
 *   <li>{@code iperf3.sent_gbps|received_gbps|cpu_host_pct|cpu_remote_pct}: its {@code iperf3 -J}
 *       JSON (the only iperf workload);
 *   <li>{@code lock_stat.<class>.contentions|acquisitions|waittime_total_us|holdtime_total_us}: its
 *       {@code /proc/lock_stat};
 *   <li>{@code perf.<symbol>}: the overhead of the symbol in the first section of its {@code
 *       perf-report.txt}, the guest view of the first VM (only when the run was captured);
 *   <li>{@code <vm>.<workload>.<figure>} and {@code <vm>.<device>.<stat>}: the run's own figures, as
 *       {@code lockvisor run} prints them, for a YAML target of named figures.
 * </ul>
 *
 * With two workloads of one tool the short names are ambiguous and are not produced; a target
 * naming them is refused by {@link #checkProducible}.
 */
public final class SimulatedFigures {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> FIO_FIGURES = List.of("iops", "bw_kib", "clat_mean_us", "lat_mean_us");

  private SimulatedFigures() {}

  /**
   * The figures of {@code r}; {@code perfReport} is the run's {@code perf-report.txt} or {@code
   * null} when it was not captured.
   */
  public static ImmutableSortedMap<String, Double> of(ExperimentResult r, String perfReport) {
    Map<String, Double> out = new TreeMap<>();
    long fio = r.workloads().stream().filter(w -> w.type().equals("fio")).count();
    long iperf = r.workloads().stream().filter(w -> w.type().equals("iperf")).count();
    for (ExperimentResult.WorkloadResult w : r.workloads()) {
      w.figures().forEach((k, v) -> put(out, w.vm() + "." + w.name() + "." + k, v.doubleValue()));
      if (w.nativeReport() == null) {
        continue;
      }
      if (w.type().equals("fio") && fio == 1) {
        Map<String, Object> report = new LinkedHashMap<>(w.nativeReport());
        report.remove(FioJson.LOGS);
        out.putAll(MeasuredFigures.parse("simulated fio JSON", json(report)));
      } else if (w.type().equals("iperf") && iperf == 1) {
        out.putAll(MeasuredFigures.parse("simulated iperf3 JSON",
            json(Iperf3Json.of(w.nativeReport(), w.figures(), r.warmupNs()))));
      }
    }
    for (ExperimentResult.DeviceResult d : r.devices()) {
      d.stats().forEach((k, v) -> put(out, d.vm() + "." + d.name() + "." + k, v.doubleValue()));
    }
    if (!r.lockStat().classes().isEmpty()) {
      out.putAll(MeasuredFigures.parse("simulated lock_stat", LockStatReport.of(r.lockStat()).text()));
    }
    if (perfReport != null) {
      String first = firstSection(perfReport);
      if (first.contains("# Overhead")) {
        out.putAll(MeasuredFigures.parse("simulated perf report", first));
      }
    }
    return ImmutableSortedMap.copyOf(out);
  }

  /** Whether a target figure needs the run's perf report (so the run must be captured). */
  public static boolean needsPerf(Iterable<String> figures) {
    for (String f : figures) {
      if (f.startsWith("perf.")) {
        return true;
      }
    }
    return false;
  }

  /**
   * Refuses, before anything runs, target figures that the experiment {@code e} can not produce
   * from its workloads and devices: {@code fio.*} without exactly one fio workload (or in a
   * direction its {@code rw} does not do), {@code iperf3.*} without exactly one iperf workload, a
   * {@code <vm>.<component>.*} name of no such component, or a name of no known form. Names of
   * {@code lock_stat} classes and {@code perf} symbols are only known once a run has made them;
   * {@link Calibrator} checks them after its first simulation, before fitting.
   *
   * @throws UserInputException naming every figure refused and why
   */
  public static void checkProducible(Experiment e, Iterable<String> figures) {
    List<ComponentSpec> fios = new ArrayList<>();
    int iperfs = 0;
    TreeSet<String> components = new TreeSet<>();
    for (VmSpec vm : e.vms()) {
      for (ComponentSpec w : vm.workloads()) {
        if (w.type().equals("fio")) {
          fios.add(w);
        } else if (w.type().equals("iperf")) {
          iperfs++;
        }
        components.add(vm.name() + "." + w.name());
      }
      for (ComponentSpec d : vm.devices()) {
        components.add(vm.name() + "." + d.name());
      }
    }
    List<String> problems = new ArrayList<>();
    for (String f : figures) {
      if (f.startsWith("fio.")) {
        String[] parts = f.split("\\.", -1);
        if (fios.size() != 1) {
          problems.add("[" + f + "]: the experiment has " + fios.size() + " fio workloads, needs exactly one");
        } else if (parts.length != 3 || !FIO_FIGURES.contains(parts[2])
            || !List.of("read", "write").contains(parts[1])) {
          problems.add("[" + f + "]: not a fio figure; known: fio.<read|write>." + FIO_FIGURES);
        } else {
          String rw = fios.get(0).options().getOrDefault("rw", "randread");
          String dir = rw.contains("read") ? "read" : "write";
          if (!parts[1].equals(dir)) {
            problems.add("[" + f + "]: the experiment's fio workload does rw=" + rw + ", so only fio." + dir + ".*");
          }
        }
      } else if (f.startsWith("iperf3.")) {
        if (iperfs != 1) {
          problems.add("[" + f + "]: the experiment has " + iperfs + " iperf workloads, needs exactly one");
        } else if (!List.of("iperf3.sent_gbps", "iperf3.received_gbps", "iperf3.cpu_host_pct",
            "iperf3.cpu_remote_pct").contains(f)) {
          problems.add("[" + f + "]: not an iperf3 figure; known: iperf3.sent_gbps, iperf3.received_gbps,"
              + " iperf3.cpu_host_pct, iperf3.cpu_remote_pct");
        }
      } else if (f.startsWith("lock_stat.") || f.startsWith("perf.")) {
        continue;
      } else {
        int dot = f.indexOf('.');
        int second = dot < 0 ? -1 : f.indexOf('.', dot + 1);
        if (second < 0 || !components.contains(f.substring(0, second))) {
          problems.add("[" + f + "]: the experiment can not produce it (figures: fio.*, iperf3.*, lock_stat.<class>.*,"
              + " perf.<symbol>, or <vm>.<component>.<figure> of " + components + ")");
        }
      }
    }
    if (!problems.isEmpty()) {
      throw new UserInputException("target figure" + (problems.size() > 1 ? "s" : "") + " not producible: "
          + String.join("; ", problems));
    }
  }

  /** The first {@code perf report} of a concatenation (each starts with {@code # lockvisor:}). */
  static String firstSection(String perfReport) {
    int start = perfReport.indexOf("# lockvisor:");
    if (start < 0) {
      return perfReport;
    }
    int next = perfReport.indexOf("# lockvisor:", start + 1);
    return next < 0 ? perfReport.substring(start) : perfReport.substring(start, next);
  }

  private static void put(Map<String, Double> out, String name, double v) {
    if (Double.isFinite(v)) {
      out.put(name, v);
    }
  }

  private static String json(Map<String, Object> m) {
    try {
      return JSON.writeValueAsString(m);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot render a simulated report as JSON", e);
    }
  }
}
