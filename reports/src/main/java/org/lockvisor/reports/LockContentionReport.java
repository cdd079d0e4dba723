package org.lockvisor.reports;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Lock contention in the layout of {@code perf lock contention} ({@code tools/perf/builtin-lock.c}):
 * {@code contended}, {@code total wait}, {@code max wait}, {@code avg wait}, {@code type} and
 * {@code caller}, sorted by total wait (perf's default {@code -k wait_total}), times scaled to
 * ns/us/ms/s as perf prints them. A second table is the {@code -l} (per lock) view with {@code
 * address} and {@code symbol} columns; the simulator has no addresses, so the address column
 * numbers the instances.
 *
 * <p>perf's caller is a return address with an offset ({@code pipe_read+0x57}); the simulator
 * knows the function only, so the caller is printed without an offset. A lock whose call sites
 * are not known individually shows its lock name as the caller.
 */
public final class LockContentionReport {

  /** One contended lock instance. */
  public record Entry(String name, String type, String caller, long contended, long totalWaitNs, long maxWaitNs) {
    public double avgWaitNs() {
      return contended == 0 ? 0 : (double) totalWaitNs / contended;
    }
  }

  private LockContentionReport() {}

  /** The file: the default (by caller) table, a blank line, then the {@code -l} table. */
  public static String render(List<Entry> entries) {
    List<Entry> contended = new ArrayList<>();
    for (Entry e : entries) {
      if (e.contended() > 0) {
        contended.add(e);
      }
    }
    Comparator<Entry> byWait = Comparator.comparingLong(Entry::totalWaitNs).reversed()
        .thenComparing(Entry::name);
    StringBuilder out = new StringBuilder();
    // By caller: instances with the same caller and type are merged, as perf merges by call site.
    Map<String, long[]> byCaller = new LinkedHashMap<>();
    Map<String, String[]> keys = new LinkedHashMap<>();
    for (Entry e : contended) {
      String k = e.type() + '\u0000' + e.caller();
      long[] s = byCaller.computeIfAbsent(k, x -> new long[3]);
      s[0] += e.contended();
      s[1] += e.totalWaitNs();
      s[2] = Math.max(s[2], e.maxWaitNs());
      keys.putIfAbsent(k, new String[] {e.type(), e.caller()});
    }
    List<Entry> callers = new ArrayList<>();
    byCaller.forEach((k, s) -> callers.add(new Entry(keys.get(k)[1], keys.get(k)[0], keys.get(k)[1], s[0], s[1],
        s[2])));
    callers.sort(byWait);
    out.append(String.format(Locale.ROOT, "%10s %12s %12s %12s %12s   %s%n%n", "contended", "total wait",
        "max wait", "avg wait", "type", "caller"));
    for (Entry e : callers) {
      out.append(row(e)).append(String.format(Locale.ROOT, "%12s   %s%n", e.type(), e.caller()));
    }
    out.append('\n');
    List<Entry> locks = new ArrayList<>(contended);
    locks.sort(byWait);
    out.append(String.format(Locale.ROOT, "%10s %12s %12s %12s   %16s   %s%n%n", "contended", "total wait",
        "max wait", "avg wait", "address", "symbol"));
    for (int i = 0; i < locks.size(); i++) {
      Entry e = locks.get(i);
      int instance = entries.indexOf(e);
      out.append(row(e)).append(String.format(Locale.ROOT, "  %16s   %s (%s)%n",
          String.format(Locale.ROOT, "%016x", instance + 1), e.name(), e.type()));
    }
    return out.toString();
  }

  private static String row(Entry e) {
    return String.format(Locale.ROOT, "%10d %12s %12s %12s ", e.contended(), time(e.totalWaitNs()),
        time(e.maxWaitNs()), time(Math.round(e.avgWaitNs())));
  }

  /** perf's print_time: integral ns below 1 us, then us/ms/s with two decimals (12 columns). */
  static String time(long ns) {
    if (ns < 1_000) {
      return String.format(Locale.ROOT, "%9d %-2s", ns, "ns");
    }
    if (ns < 1_000_000) {
      return String.format(Locale.ROOT, "%9.2f %-2s", ns / 1e3, "us");
    }
    if (ns < 1_000_000_000) {
      return String.format(Locale.ROOT, "%9.2f %-2s", ns / 1e6, "ms");
    }
    return String.format(Locale.ROOT, "%9.2f %-2s", ns / 1e9, "s");
  }
}
