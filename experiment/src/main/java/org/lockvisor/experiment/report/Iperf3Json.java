package org.lockvisor.experiment.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The iperf workload's result in the shape of {@code iperf3 --json -i 0} (no interval reports):
 * {@code start.test_start}, an empty {@code intervals}, and {@code end} with per-stream {@code
 * sender}/{@code receiver} blocks, {@code sum_sent}, {@code sum_received} and the congestion
 * control, so scripts written for iperf3 read it unchanged. Bytes are the bytes the receiver
 * acknowledged over the measurement window (the simulator does not split sent from received, so
 * both sides show them); {@code retransmits} counts lost segments (lost bytes over the mean
 * segment size), as every lost segment is retransmitted. Fields the model has no value for
 * (sockets, RTT, CPU utilization) are left out rather than invented.
 */
public final class Iperf3Json {

  private Iperf3Json() {}

  /**
   * @param nativeReport the workload's native report ({@code streams[].{stream, bytes}}, {@code seconds})
   * @param figures its figures ({@code lost_bytes}, {@code mean_segment_bytes})
   */
  public static Map<String, Object> of(Map<String, Object> nativeReport, Map<String, Number> figures) {
    double secs = ((Number) nativeReport.get("seconds")).doubleValue();
    List<?> streams = (List<?>) nativeReport.get("streams");
    double segment = figures.getOrDefault("mean_segment_bytes", 0).doubleValue();
    long lost = figures.getOrDefault("lost_bytes", 0).longValue();
    long retransmits = segment <= 0 ? 0 : Math.round(lost / segment);
    List<Object> endStreams = new ArrayList<>();
    long total = 0;
    for (Object o : streams) {
      Map<?, ?> s = (Map<?, ?>) o;
      long bytes = ((Number) s.get("bytes")).longValue();
      total += bytes;
      // iperf3's data sockets are file descriptors from 5 up (4 is the control connection).
      int socket = 5 + ((Number) s.get("stream")).intValue();
      Map<String, Object> sender = socket(socket);
      sender.putAll(side(secs, bytes));
      Map<String, Object> receiver = socket(socket);
      receiver.putAll(side(secs, bytes));
      Map<String, Object> stream = new LinkedHashMap<>();
      stream.put("sender", sender);
      stream.put("receiver", receiver);
      endStreams.add(stream);
    }
    Map<String, Object> testStart = new LinkedHashMap<>();
    testStart.put("protocol", "TCP");
    testStart.put("num_streams", streams.size());
    testStart.put("omit", 0);
    testStart.put("duration", secs);
    testStart.put("reverse", 0);
    Map<String, Object> start = new LinkedHashMap<>();
    start.put("version", "lockvisor iperf model");
    start.put("test_start", testStart);
    Map<String, Object> sumSent = side(secs, total);
    sumSent.put("retransmits", retransmits);
    Map<String, Object> end = new LinkedHashMap<>();
    end.put("streams", endStreams);
    end.put("sum_sent", sumSent);
    end.put("sum_received", side(secs, total));
    end.put("sender_tcp_congestion", "reno");
    end.put("receiver_tcp_congestion", "reno");
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("start", start);
    root.put("intervals", List.of());
    root.put("end", end);
    return root;
  }

  private static Map<String, Object> socket(int fd) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("socket", fd);
    return m;
  }

  private static Map<String, Object> side(double secs, long bytes) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("start", 0);
    m.put("end", secs);
    m.put("seconds", secs);
    m.put("bytes", bytes);
    m.put("bits_per_second", secs <= 0 ? 0.0 : bytes * 8 / secs);
    return m;
  }
}
