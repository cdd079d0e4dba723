package org.lockvisor.reports;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The iperf workload's result in the layout of iperf 3.12's {@code iperf3 --json} client output
 * ({@code src/iperf_api.c}: {@code iperf_on_connect}, {@code iperf_print_intermediate}, {@code
 * iperf_print_results}), so scripts written for iperf3 read it unchanged:
 * <ul>
 *   <li>{@code start}: {@code connected[]} (one per stream), {@code connecting_to}, {@code
 *       timestamp}, {@code tcp_mss_default}, buffer sizes and {@code test_start}.
 *   <li>{@code intervals[]}: one report per {@code interval} option period ({@code -i}), or one
 *       over the whole window when it is 0 (as {@code -i 0} still reports one), each with per-stream
 *       {@code bytes}, {@code retransmits}, {@code snd_cwnd}, {@code snd_wnd}, {@code rtt} and
 *       {@code rttvar} (us, the stream's smoothed RTT at the end of the interval) and {@code sum}.
 *   <li>{@code end}: per stream {@code sender} (with {@code max_snd_cwnd}, {@code max_snd_wnd},
 *       {@code min_rtt}, {@code max_rtt}, {@code mean_rtt} over the RTT samples) and {@code
 *       receiver}, {@code sum_sent}, {@code sum_received}, {@code cpu_utilization_percent} and the
 *       congestion control ({@code reno}, what the model implements).
 * </ul>
 * Bytes are what the receiver acknowledged over the measurement window (the model does not tell
 * sent from received bytes, so both sides show them); {@code retransmits} counts lost segments
 * (lost bytes over the MSS, each lost segment being resent). CPU utilization: {@code host_*} is the
 * sender, the guest's writer tasks (user and kernel time over the window); {@code remote_*} the
 * receiving end inside the machine, the host's vhost threads (kernel time only). Addresses, ports,
 * the cookie and {@code system_info} are placeholders (the model has no sockets); {@code pmtu} is
 * the MSS plus the IPv4, TCP and timestamp option headers (52 bytes); timestamps count simulated
 * time from the Unix epoch, so two runs give identical files.
 */
public final class Iperf3Json {

  /** Guest and peer addresses written in {@code connected}: placeholders. */
  static final String LOCAL_HOST = "10.0.2.15";
  static final String REMOTE_HOST = "10.0.2.2";
  static final int PORT = 5201;
  private static final DateTimeFormatter HTTP_DATE =
      DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.ROOT).withZone(ZoneOffset.UTC);

  private Iperf3Json() {}

  /**
   * @param nativeReport the workload's native report ({@code streams[]} with bytes, RTT, cwnd and
   *     {@code intervals}, {@code seconds}, {@code mss}, {@code rwnd_bytes}, {@code cpu}, ...)
   * @param figures its figures
   * @param startNs simulated time of the start of the measurement window
   */
  public static Map<String, Object> of(Map<String, Object> nativeReport, Map<String, Number> figures, long startNs) {
    double secs = num(nativeReport, "seconds");
    List<?> streams = (List<?>) nativeReport.get("streams");
    long mss = (long) num(nativeReport, "mss");
    long rwnd = (long) num(nativeReport, "rwnd_bytes");

    List<Object> connected = new ArrayList<>();
    for (Object o : streams) {
      Map<?, ?> s = (Map<?, ?>) o;
      int id = ((Number) s.get("stream")).intValue();
      Map<String, Object> c = new LinkedHashMap<>();
      c.put("socket", socket(id));
      c.put("local_host", LOCAL_HOST);
      c.put("local_port", 40000 + 2 * id);
      c.put("remote_host", REMOTE_HOST);
      c.put("remote_port", PORT);
      connected.add(c);
    }
    Map<String, Object> start = new LinkedHashMap<>();
    start.put("connected", connected);
    start.put("version", "lockvisor iperf model");
    start.put("system_info", "lockvisor simulated guest");
    Map<String, Object> timestamp = new LinkedHashMap<>();
    timestamp.put("time", HTTP_DATE.format(Instant.ofEpochSecond(startNs / 1_000_000_000L)));
    timestamp.put("timesecs", startNs / 1_000_000_000L);
    start.put("timestamp", timestamp);
    Map<String, Object> connectingTo = new LinkedHashMap<>();
    connectingTo.put("host", REMOTE_HOST);
    connectingTo.put("port", PORT);
    start.put("connecting_to", connectingTo);
    start.put("cookie", "lockvisor00000000000000000000000000");
    start.put("tcp_mss_default", mss);
    start.put("target_bitrate", 0);
    start.put("sock_bufsize", 0);
    start.put("sndbuf_actual", (long) num(nativeReport, "sndbuf_bytes"));
    start.put("rcvbuf_actual", rwnd);
    Map<String, Object> testStart = new LinkedHashMap<>();
    testStart.put("protocol", "TCP");
    testStart.put("num_streams", streams.size());
    testStart.put("blksize", (long) num(nativeReport, "write_bytes"));
    testStart.put("omit", 0);
    testStart.put("duration", secs);
    testStart.put("bytes", 0);
    testStart.put("blocks", 0);
    testStart.put("reverse", 0);
    testStart.put("tos", 0);
    testStart.put("target_bitrate", 0);
    start.put("test_start", testStart);

    // Interval reports: every stream has the same interval boundaries.
    List<Object> intervals = new ArrayList<>();
    int nIntervals = streams.isEmpty() ? 0 : ((List<?>) ((Map<?, ?>) streams.get(0)).get("intervals")).size();
    for (int i = 0; i < nIntervals; i++) {
      List<Object> rows = new ArrayList<>();
      long sumBytes = 0;
      long sumRetrans = 0;
      double ivStart = 0;
      double ivEnd = 0;
      for (Object o : streams) {
        Map<?, ?> s = (Map<?, ?>) o;
        Map<?, ?> iv = (Map<?, ?>) ((List<?>) s.get("intervals")).get(i);
        ivStart = num(iv, "start_ns") / 1e9;
        ivEnd = num(iv, "end_ns") / 1e9;
        long bytes = (long) num(iv, "bytes");
        long retrans = segments(num(iv, "lost_bytes"), mss);
        sumBytes += bytes;
        sumRetrans += retrans;
        Map<String, Object> r = side(socket(((Number) s.get("stream")).intValue()), ivStart, ivEnd, bytes);
        r.put("retransmits", retrans);
        r.put("snd_cwnd", (long) num(iv, "cwnd_bytes"));
        r.put("snd_wnd", rwnd);
        r.put("rtt", Math.round(num(iv, "srtt_ns") / 1000));
        r.put("rttvar", Math.round(num(iv, "rttvar_ns") / 1000));
        r.put("pmtu", mss + 52);
        r.put("omitted", false);
        r.put("sender", true);
        rows.add(r);
      }
      Map<String, Object> sum = side(-1, ivStart, ivEnd, sumBytes);
      sum.put("retransmits", sumRetrans);
      sum.put("omitted", false);
      sum.put("sender", true);
      Map<String, Object> interval = new LinkedHashMap<>();
      interval.put("streams", rows);
      interval.put("sum", sum);
      intervals.add(interval);
    }

    List<Object> endStreams = new ArrayList<>();
    long total = 0;
    long totalRetrans = 0;
    for (Object o : streams) {
      Map<?, ?> s = (Map<?, ?>) o;
      long bytes = (long) num(s, "bytes");
      long retrans = segments(num(s, "lost_bytes"), mss);
      total += bytes;
      totalRetrans += retrans;
      int fd = socket(((Number) s.get("stream")).intValue());
      Map<String, Object> sender = side(fd, 0, secs, bytes);
      sender.put("retransmits", retrans);
      sender.put("max_snd_cwnd", (long) num(s, "max_cwnd_bytes"));
      sender.put("max_snd_wnd", rwnd);
      sender.put("max_rtt", Math.round(num(s, "max_rtt_ns") / 1000));
      sender.put("min_rtt", Math.round(num(s, "min_rtt_ns") / 1000));
      sender.put("mean_rtt", Math.round(num(s, "mean_rtt_ns") / 1000));
      sender.put("sender", true);
      Map<String, Object> receiver = side(fd, 0, secs, bytes);
      receiver.put("sender", true);
      Map<String, Object> stream = new LinkedHashMap<>();
      stream.put("sender", sender);
      stream.put("receiver", receiver);
      endStreams.add(stream);
    }
    Map<String, Object> sumSent = side(-1, 0, secs, total);
    sumSent.put("retransmits", totalRetrans);
    sumSent.put("sender", true);
    Map<String, Object> sumReceived = side(-1, 0, secs, total);
    sumReceived.put("sender", true);
    Map<?, ?> cpu = (Map<?, ?>) nativeReport.get("cpu");
    Map<String, Object> util = new LinkedHashMap<>();
    double user = num(cpu, "sender_user_percent");
    double system = num(cpu, "sender_system_percent");
    double remote = num(cpu, "receiver_system_percent");
    util.put("host_total", user + system);
    util.put("host_user", user);
    util.put("host_system", system);
    util.put("remote_total", remote);
    util.put("remote_user", 0.0);
    util.put("remote_system", remote);
    Map<String, Object> end = new LinkedHashMap<>();
    end.put("streams", endStreams);
    end.put("sum_sent", sumSent);
    end.put("sum_received", sumReceived);
    end.put("cpu_utilization_percent", util);
    end.put("sender_tcp_congestion", "reno");
    end.put("receiver_tcp_congestion", "reno");
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("start", start);
    root.put("intervals", intervals);
    root.put("end", end);
    return root;
  }

  /** iperf3's data sockets: file descriptors 5, 7, 9, ... (4 is the control connection). */
  private static int socket(int stream) {
    return 5 + 2 * stream;
  }

  private static long segments(double lostBytes, long mss) {
    return mss <= 0 ? 0 : Math.round(lostBytes / mss);
  }

  private static double num(Map<?, ?> m, String key) {
    Object v = m.get(key);
    if (!(v instanceof Number n)) {
      throw new IllegalArgumentException("iperf report has no number [" + key + "]: " + m.keySet());
    }
    return n.doubleValue();
  }

  /** {@code socket} (omitted when negative, for sums), {@code start}, {@code end}, {@code seconds}, bytes, rate. */
  private static Map<String, Object> side(int socket, double start, double end, long bytes) {
    Map<String, Object> m = new LinkedHashMap<>();
    if (socket >= 0) {
      m.put("socket", socket);
    }
    double secs = end - start;
    m.put("start", start);
    m.put("end", end);
    m.put("seconds", secs);
    m.put("bytes", bytes);
    m.put("bits_per_second", secs <= 0 ? 0.0 : bytes * 8 / secs);
    return m;
  }
}
