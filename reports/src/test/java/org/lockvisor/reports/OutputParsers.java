package org.lockvisor.reports;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the text formats back the way a script reading the real tools' output would: by the
 * header's columns, not by knowing how the writer built them.
 */
final class OutputParsers {

  private OutputParsers() {}

  /**
   * One perf report section: its title and total (ms) from lockvisor's comment line, perf's
   * {@code # Samples:} line and {@code # Event count (approx.):} value, and its lines.
   */
  record PerfSection(String title, double totalMs, String samples, long eventCount, List<PerfLine> lines) {
    double percentSum() {
      return lines.stream().mapToDouble(PerfLine::percent).sum();
    }

    double percentOf(String symbol) {
      return lines.stream().filter(l -> l.symbol().equals(symbol)).mapToDouble(PerfLine::percent).sum();
    }
  }

  record PerfLine(double percent, String command, String dso, char marker, String symbol) {}

  private static final Pattern TITLE =
      Pattern.compile("^# lockvisor: (.+), exact CPU time (\\d+\\.\\d{3}) ms \\(.*\\)$");
  /** perf's {@code hists__fprintf_nr_sample_events} lines, as scripts reading perf's header match them. */
  private static final Pattern SAMPLES = Pattern.compile("^# Samples: (\\d+[ KMG]) of event 'cpu-clock'$");
  private static final Pattern EVENT_COUNT = Pattern.compile("^# Event count \\(approx\\.\\): (\\d+)$");

  /** Sections of a perf-report.txt, each parsed by the columns of its header line. */
  static List<PerfSection> perfReport(String text) {
    List<PerfSection> sections = new ArrayList<>();
    String title = null;
    double total = 0;
    String samples = null;
    long events = -1;
    List<PerfLine> lines = null;
    int cmdAt = -1;
    int dsoAt = -1;
    int symAt = -1;
    for (String line : text.split("\n")) {
      Matcher m = TITLE.matcher(line);
      if (m.matches()) {
        if (title != null) {
          sections.add(new PerfSection(title, total, samples, events, lines));
        }
        title = m.group(1);
        total = Double.parseDouble(m.group(2));
        samples = null;
        events = -1;
        cmdAt = -1;
        lines = new ArrayList<>();
        continue;
      }
      Matcher sm = SAMPLES.matcher(line);
      if (sm.matches()) {
        samples = sm.group(1);
        continue;
      }
      Matcher em = EVENT_COUNT.matcher(line);
      if (em.matches()) {
        events = Long.parseLong(em.group(1));
        continue;
      }
      if (line.startsWith("# Overhead")) {
        cmdAt = line.indexOf("Command");
        dsoAt = line.indexOf("Shared Object");
        symAt = line.indexOf("Symbol");
        continue;
      }
      if (line.startsWith("#") || line.isBlank()) {
        continue;
      }
      if (title == null || cmdAt < 0) {
        throw new IllegalArgumentException("perf line before a header: [" + line + "]");
      }
      String pct = line.substring(0, cmdAt).trim();
      if (!pct.matches("\\d+\\.\\d\\d%")) {
        throw new IllegalArgumentException("no overhead column: [" + line + "]");
      }
      String sym = line.substring(symAt);
      if (!sym.matches("\\[[k.Hg]\\] \\S.*")) {
        throw new IllegalArgumentException("no [marker] symbol: [" + line + "]");
      }
      lines.add(new PerfLine(Double.parseDouble(pct.substring(0, pct.length() - 1)),
          line.substring(cmdAt, dsoAt).trim(), line.substring(dsoAt, symAt).trim(), sym.charAt(1), sym.substring(4)));
    }
    if (title != null) {
      sections.add(new PerfSection(title, total, samples, events, lines));
    }
    return sections;
  }

  /** One perf kvm stat section. */
  record KvmSection(String heading, List<KvmRow> rows, long totalSamples, double totalTimeUs) {}

  record KvmRow(String reason, long samples, double samplesPct, double timePct, double minUs, double maxUs,
      double avgUs) {}

  private static final Pattern KVM_ROW = Pattern.compile(
      "^\\s*(\\S+)\\s+(\\d+)\\s+(\\d+\\.\\d\\d)%\\s+(\\d+\\.\\d\\d)%\\s+(\\d+\\.\\d\\d)us\\s+(\\d+\\.\\d\\d)us\\s+"
          + "(\\d+\\.\\d\\d)us \\( \\+-\\s+\\d+\\.\\d\\d% \\)$");
  private static final Pattern KVM_TOTAL = Pattern.compile(
      "^Total Samples:(\\d+), Total events handled time:(\\d+\\.\\d\\d)us\\.$");

  static List<KvmSection> kvmStat(String text) {
    List<KvmSection> out = new ArrayList<>();
    String heading = null;
    List<KvmRow> rows = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (line.startsWith("Directed yield, confer/prod")) {
        break; // the scheduling counters SchedulingReport appends after the exit tables
      }
      if (line.startsWith("Analyze events for VM ")) {
        heading = line;
        rows = new ArrayList<>();
        continue;
      }
      Matcher t = KVM_TOTAL.matcher(line);
      if (t.matches()) {
        out.add(new KvmSection(heading, rows, Long.parseLong(t.group(1)), Double.parseDouble(t.group(2))));
        continue;
      }
      if (line.isBlank() || line.trim().startsWith("VM-EXIT")) {
        continue;
      }
      Matcher m = KVM_ROW.matcher(line);
      if (!m.matches()) {
        throw new IllegalArgumentException("not a perf kvm stat row: [" + line + "]");
      }
      rows.add(new KvmRow(m.group(1), Long.parseLong(m.group(2)), Double.parseDouble(m.group(3)),
          Double.parseDouble(m.group(4)), Double.parseDouble(m.group(5)), Double.parseDouble(m.group(6)),
          Double.parseDouble(m.group(7))));
    }
    return out;
  }

  /** A lock_stat class row: its name and the kernel's 12 numeric columns as printed (lockvisor's extra ones dropped). */
  record LockStatRow(String name, double[] columns) {
    long contentions() {
      return (long) columns[1];
    }

    long acquisitions() {
      return (long) columns[7];
    }
  }

  static List<LockStatRow> lockStat(String text) {
    List<LockStatRow> out = new ArrayList<>();
    String[] lines = text.split("\n");
    if (!lines[0].equals("lock_stat version 0.4")) {
      throw new IllegalArgumentException("no version line: [" + lines[0] + "]");
    }
    for (String line : lines) {
      int colon = line.indexOf(':');
      if (colon != 40) {
        continue; // rules, header, contention points
      }
      String[] cols = line.substring(colon + 1).trim().split("\\s+");
      // the kernel's 12 columns, then lockvisor's (halts, kicks)
      if (cols.length != 12 + LockStatReport.EXTRA_COLUMNS.size()) {
        throw new IllegalArgumentException("lock_stat row has " + cols.length + " columns: [" + line + "]");
      }
      double[] v = new double[12];
      for (int i = 0; i < 12; i++) {
        v[i] = Double.parseDouble(cols[i]);
      }
      out.add(new LockStatRow(line.substring(0, colon).trim(), v));
    }
    return out;
  }

  /** A perf lock contention row (either table). */
  record ContentionRow(long contended, double totalWaitNs, double maxWaitNs, double avgWaitNs, String rest) {}

  /** The two tables of lock-contention.txt, each parsed by its header. */
  static List<List<ContentionRow>> lockContention(String text) {
    List<List<ContentionRow>> tables = new ArrayList<>();
    List<ContentionRow> current = null;
    for (String line : text.split("\n")) {
      if (line.trim().startsWith("contended")) {
        if (!line.startsWith(" contended   total wait     max wait     avg wait")) {
          throw new IllegalArgumentException("not perf lock contention's header: [" + line + "]");
        }
        current = new ArrayList<>();
        tables.add(current);
        continue;
      }
      if (line.isBlank()) {
        continue;
      }
      // contended (10) + " " + three 12-column times + " ", then the type/address columns.
      current.add(new ContentionRow(Long.parseLong(line.substring(0, 10).trim()), time(line.substring(11, 23)),
          time(line.substring(24, 36)), time(line.substring(37, 49)), line.substring(50).trim()));
    }
    return tables;
  }

  /** A perf time ({@code 557 ns}, {@code 1.42 us}, {@code 3.51 ms}, {@code 6.03 s}) in ns. */
  static double time(String s) {
    String[] p = s.trim().split("\\s+");
    double v = Double.parseDouble(p[0]);
    return switch (p[1].toLowerCase(Locale.ROOT)) {
      case "ns" -> v;
      case "us" -> v * 1e3;
      case "ms" -> v * 1e6;
      case "s" -> v * 1e9;
      default -> throw new IllegalArgumentException("unit of [" + s + "]");
    };
  }
}
