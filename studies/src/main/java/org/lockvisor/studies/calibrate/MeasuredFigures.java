package org.lockvisor.studies.calibrate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.google.common.collect.ImmutableSortedMap;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.lockvisor.experiment.UserInputException;

/**
 * Named figures read from the files the real tools write, so that a measurement and a simulation
 * (whose outputs have the same shapes) are compared by the same reader:
 *
 * <ul>
 *   <li>fio JSON ({@code --output-format=json} or {@code json+}, fio 3.x): per direction with I/O,
 *       summed over jobs, {@code fio.<dir>.iops}, {@code fio.<dir>.bw_kib} (KiB/s) and the
 *       I/O-weighted {@code fio.<dir>.clat_mean_us} and {@code fio.<dir>.lat_mean_us};
 *   <li>iperf3 JSON ({@code -J}, 3.x): {@code iperf3.sent_gbps}, {@code iperf3.received_gbps},
 *       {@code iperf3.cpu_host_pct} and {@code iperf3.cpu_remote_pct} (the {@code end} section);
 *   <li>{@code perf report --stdio} text: {@code perf.<symbol>}, the summed overhead in percent of
 *       every line of that symbol;
 *   <li>{@code /proc/lock_stat} (version 0.4): {@code lock_stat.<class>.contentions}, {@code
 *       .acquisitions}, {@code .waittime_total_us} and {@code .holdtime_total_us};
 *   <li>a YAML (or JSON) mapping of names to numbers: the figures as named.
 * </ul>
 *
 * A file in none of these formats, or with no figure, is a {@link UserInputException} naming it.
 */
public final class MeasuredFigures {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  /** {@code   12.34%  comm  [kernel.kallsyms]  [k] symbol}: overhead, then the symbol after [k]/[.]/[g]/[H]. */
  private static final Pattern PERF_LINE =
      Pattern.compile("^\\s*([0-9]+(?:\\.[0-9]+)?)%\\s+.*?\\[[a-zA-Z.]\\]\\s+(\\S.*?)\\s*$");
  private static final Pattern LOCK_STAT_ROW = Pattern.compile(
      "^\\s*(.+?):\\s+([0-9]+)\\s+([0-9]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9]+)\\s+([0-9]+)"
          + "\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)"
          // lockvisor's halts and kicks after the kernel's twelve columns (absent in a real lock_stat)
          + "(?:\\s+[0-9]+\\s+[0-9]+)?\\s*$");

  private MeasuredFigures() {}

  /** The figures of {@code text}, read from the file {@code origin} (for messages), in whichever format it is. */
  public static ImmutableSortedMap<String, Double> parse(String origin, String text) {
    String trimmed = text.stripLeading();
    Map<String, Double> out;
    if (trimmed.startsWith("{")) {
      JsonNode root = readJson(origin, text);
      if (root.has("fio version")) {
        out = fio(origin, root);
      } else if (root.has("start") && root.has("end") && root.path("end").has("sum_received")) {
        out = iperf3(origin, root);
      } else {
        out = named(origin, root);
      }
    } else if (trimmed.startsWith("lock_stat version")) {
      out = lockStat(text);
    } else if (text.contains("# Overhead") || text.contains("# Samples:")) {
      out = perf(text);
    } else {
      JsonNode root;
      try {
        root = YAML.readTree(text);
      } catch (IOException e) {
        throw new UserInputException(origin + ": not a fio or iperf3 JSON, perf report, lock_stat or YAML of figures");
      }
      if (root == null || !root.isObject()) {
        throw new UserInputException(origin + ": not a fio or iperf3 JSON, perf report, lock_stat or YAML of figures");
      }
      out = named(origin, root);
    }
    if (out.isEmpty()) {
      throw new UserInputException(origin + ": no figure found in it");
    }
    for (Map.Entry<String, Double> e : out.entrySet()) {
      if (e.getValue() < 0) {
        // every figure read here is a count, a rate, a time or a share: a fit to a negative one is no fit
        throw new UserInputException(origin + ": figure [" + e.getKey() + "] is negative [" + e.getValue()
            + "]; a measured figure (a count, rate, time or share) is never below zero");
      }
    }
    return ImmutableSortedMap.copyOf(out);
  }

  /** {@link #parse} of UTF-8 bytes. */
  public static ImmutableSortedMap<String, Double> parse(String origin, byte[] bytes) {
    return parse(origin, new String(bytes, StandardCharsets.UTF_8));
  }

  private static JsonNode readJson(String origin, String text) {
    try {
      return JSON.readTree(text);
    } catch (IOException e) {
      throw new UserInputException(origin + ": not valid JSON (line "
          + (e instanceof com.fasterxml.jackson.core.JsonProcessingException p && p.getLocation() != null
              ? p.getLocation().getLineNr() : 0) + ")");
    }
  }

  private static Map<String, Double> fio(String origin, JsonNode root) {
    Map<String, Double> out = new TreeMap<>();
    JsonNode jobs = root.path("jobs");
    if (!jobs.isArray() || jobs.isEmpty()) {
      throw new UserInputException(origin + ": fio JSON without jobs");
    }
    for (String dir : new String[] {"read", "write", "trim"}) {
      double iops = 0;
      double bw = 0;
      double clatWeighted = 0;
      double latWeighted = 0;
      double ios = 0;
      for (JsonNode job : jobs) {
        JsonNode d = job.path(dir);
        double n = d.path("total_ios").asDouble(0);
        if (n <= 0) {
          continue;
        }
        iops += d.path("iops").asDouble(0);
        bw += d.path("bw").asDouble(0);
        clatWeighted += n * d.path("clat_ns").path("mean").asDouble(0);
        latWeighted += n * d.path("lat_ns").path("mean").asDouble(0);
        ios += n;
      }
      if (ios > 0) {
        out.put("fio." + dir + ".iops", iops);
        out.put("fio." + dir + ".bw_kib", bw);
        out.put("fio." + dir + ".clat_mean_us", clatWeighted / ios / 1000);
        out.put("fio." + dir + ".lat_mean_us", latWeighted / ios / 1000);
      }
    }
    return out;
  }

  private static Map<String, Double> iperf3(String origin, JsonNode root) {
    Map<String, Double> out = new TreeMap<>();
    JsonNode end = root.path("end");
    putIfNumber(out, "iperf3.sent_gbps", end.path("sum_sent").path("bits_per_second"), 1e-9);
    putIfNumber(out, "iperf3.received_gbps", end.path("sum_received").path("bits_per_second"), 1e-9);
    putIfNumber(out, "iperf3.cpu_host_pct", end.path("cpu_utilization_percent").path("host_total"), 1);
    putIfNumber(out, "iperf3.cpu_remote_pct", end.path("cpu_utilization_percent").path("remote_total"), 1);
    return out;
  }

  private static void putIfNumber(Map<String, Double> out, String name, JsonNode v, double scale) {
    if (v.isNumber()) {
      out.put(name, v.asDouble() * scale);
    }
  }

  private static Map<String, Double> perf(String text) {
    Map<String, Double> out = new TreeMap<>();
    for (String line : text.split("\n")) {
      if (line.startsWith("#")) {
        continue;
      }
      Matcher m = PERF_LINE.matcher(line);
      if (m.matches()) {
        out.merge("perf." + m.group(2), Double.parseDouble(m.group(1)), Double::sum);
      }
    }
    return out;
  }

  private static Map<String, Double> lockStat(String text) {
    Map<String, Double> out = new TreeMap<>();
    for (String line : text.split("\n")) {
      Matcher m = LOCK_STAT_ROW.matcher(line);
      if (!m.matches()) {
        continue;
      }
      String c = "lock_stat." + m.group(1).trim();
      // columns: con-bounces contentions waittime-min max total avg acq-bounces acquisitions holdtime-min max total avg
      out.merge(c + ".contentions", Double.parseDouble(m.group(3)), Double::sum);
      out.merge(c + ".waittime_total_us", Double.parseDouble(m.group(6)), Double::sum);
      out.merge(c + ".acquisitions", Double.parseDouble(m.group(9)), Double::sum);
      out.merge(c + ".holdtime_total_us", Double.parseDouble(m.group(12)), Double::sum);
    }
    return out;
  }

  private static Map<String, Double> named(String origin, JsonNode root) {
    Map<String, Double> out = new TreeMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode v = e.getValue();
      if (!v.isNumber() || !Double.isFinite(v.asDouble())) {
        throw new UserInputException(origin + ": figure [" + e.getKey() + "] is not a finite number: ["
            + abbreviate(v.toString()) + "]");
      }
      out.put(e.getKey(), v.asDouble());
    }
    return out;
  }

  private static String abbreviate(String s) {
    return s.length() <= 60 ? s : s.substring(0, 57) + "...";
  }
}
