package org.lockvisor.reports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.experiment.model.Experiment;

/**
 * The files of a run read by the real tools they imitate. The JSON files are compared by key
 * path with reference output of fio 3.33 and iperf3 3.12 shipped as fixtures ({@code
 * src/test/resources/real-tools/README.md} says how they were made) and, where the tools are
 * installed, with their output made now (fio on a temporary file, iperf3 on 127.0.0.1 for one
 * second): every key path of the reference is present in lockvisor's file or listed here as not
 * applicable with its reason. fio's {@code fio_jsonplus_clat2csv}, FlameGraph's {@code
 * stackcollapse-perf.pl}, {@code flamegraph.pl} and {@code difffolded.pl} then run on lockvisor's
 * files and must not fail. A test whose tool is missing is skipped, saying which package has it
 * ({@code .ci/run} installs them where Debian packages them).
 */
class RealConsumersTest {

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final long WINDOW_NS = 5_000_000;

  /**
   * Key paths of real fio's output that lockvisor's fio JSON does not have, with the reason. Empty:
   * every one of fio 3.33's key paths for these jobs is there.
   */
  static final Map<String, String> FIO_NOT_APPLICABLE = Map.of();
  /** Likewise for iperf3 3.12's client output. */
  static final Map<String, String> IPERF3_NOT_APPLICABLE = Map.of();

  private static RunOutputs base;
  private static RunOutputs ticket;
  @TempDir static Path dir;

  /** fio libaio randread and iperf with 1 ms interval reports in vm0; fio psync randwrite in vm1. */
  static Experiment experiment() {
    return Experiment.builder("consumers").seed(11).warmupNs(1_000_000).durationNs(WINDOW_NS).host(4, "cfs")
        .vm("vm0", vm -> vm.vcpus(2).pinning(0, 1)
            .device("blk0", "virtio-blk", Map.of()).device("net0", "vhost-net", Map.of())
            .workload("fio", "fio", Map.of("iodepth", "4", "log-avg", "1ms"))
            .workload("iperf", "iperf", Map.of("streams", "2", "interval", "1ms")))
        .vm("vm1", vm -> vm.vcpus(2).pinning(2, 3)
            .device("blk0", "virtio-blk", Map.of())
            .workload("fio", "fio", Map.of("ioengine", "psync", "rw", "randwrite")))
        .variant("ticket", Map.of("vms[0].locks.spinlock", "ticket"))
        .build();
  }

  @BeforeAll
  static void runOnce() throws IOException {
    base = RunOutputsTest.run(experiment(), "base", 0);
    ticket = RunOutputsTest.run(experiment(), "ticket", 0);
    for (RunOutputs o : List.of(base, ticket)) {
      for (Map.Entry<String, byte[]> f : o.files().entrySet()) {
        Files.write(dir.resolve(f.getKey()), f.getValue());
      }
    }
    Files.writeString(dir.resolve("oncpu-diff-ticket.folded"),
        FoldedStacks.diff(base.text("oncpu.folded"), ticket.text("oncpu-ticket.folded")));
  }

  private static JsonNode fixture(String name) throws IOException {
    try (InputStream in = RealConsumersTest.class.getResourceAsStream("/real-tools/" + name)) {
      assertThat(in).as("fixture " + name).isNotNull();
      return MAPPER.readTree(in);
    }
  }

  private static JsonNode ours(String file) throws IOException {
    return MAPPER.readTree(dir.resolve(file).toFile());
  }

  private static Path tool(String name, String packageHint) {
    Optional<Path> p = RealTools.find(name);
    assumeTrue(p.isPresent(), name + " is not installed (" + packageHint + "); skipping the check against it");
    return p.get();
  }

  // ---------------------------------------------------------------------------------------------
  // fio

  @Test
  void fioJson_everyKeyPathOfFio333_presentOrNotApplicable() throws IOException {
    assertThat(RealTools.missing(fixture("fio-3.33-randread-libaio.json"), ours("fio-vm0-fio.json"),
        FIO_NOT_APPLICABLE)).isEmpty();
    assertThat(RealTools.missing(fixture("fio-3.33-randwrite-psync.json"), ours("fio-vm1-fio.json"),
        FIO_NOT_APPLICABLE)).isEmpty();
  }

  @Test
  void fioJson_zeroBlocksAsFioPrintsThem_percentilesOnlyWithSamples() throws IOException {
    for (String[] c : new String[][] {{"fio-3.33-randread-libaio.json", "fio-vm0-fio.json", "read"},
        {"fio-3.33-randwrite-psync.json", "fio-vm1-fio.json", "write"}}) {
      JsonNode ref = fixture(c[0]).at("/jobs/0");
      JsonNode job = ours(c[1]).at("/jobs/0");
      for (String ddir : List.of("read", "write", "trim")) {
        boolean active = ddir.equals(c[2]);
        assertThat(ref.at("/" + ddir + "/total_ios").asLong() > 0).as(c[0] + " " + ddir).isEqualTo(active);
        assertThat(job.at("/" + ddir + "/total_ios").asLong() > 0).as(c[1] + " " + ddir).isEqualTo(active);
        for (JsonNode j : List.of(ref, job)) {
          assertThat(j.at("/" + ddir + "/clat_ns").has("percentile")).as(ddir).isEqualTo(active);
          assertThat(j.at("/" + ddir + "/clat_ns").has("bins")).as(ddir).isEqualTo(active);
        }
      }
      assertThat(job.at("/sync/total_ios").asLong()).isZero();
    }
    // psync has no submission latency, as fio's synchronous engines; libaio has.
    assertThat(ours("fio-vm1-fio.json").at("/jobs/0/write/slat_ns/N").asLong()).isZero();
    assertThat(fixture("fio-3.33-randwrite-psync.json").at("/jobs/0/write/slat_ns/N").asLong()).isZero();
    assertThat(ours("fio-vm0-fio.json").at("/jobs/0/read/slat_ns/N").asLong()).isPositive();
  }

  @Test
  void fioJson_percentilesAndBinsAgree_asFioComputesThem() throws IOException {
    JsonNode clat = ours("fio-vm0-fio.json").at("/jobs/0/read/clat_ns");
    long n = clat.get("N").asLong();
    TreeMap<Long, Long> bins = new TreeMap<>();
    clat.get("bins").fields().forEachRemaining(e -> bins.put(Long.parseLong(e.getKey()), e.getValue().asLong()));
    assertThat(bins.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(n);
    // calc_clat_percentiles: the first bucket whose running count reaches p % of N.
    for (String p : List.of("1.000000", "50.000000", "99.000000", "99.990000")) {
      double pct = Double.parseDouble(p);
      long sum = 0;
      long expected = -1;
      for (Map.Entry<Long, Long> b : bins.entrySet()) {
        sum += b.getValue();
        if (sum >= pct / 100 * n) {
          expected = b.getKey();
          break;
        }
      }
      assertThat(clat.at("/percentile/" + p.replace(".", ".")).asLong()).as(p).isEqualTo(expected);
    }
    // lat = slat + clat on average (each I/O's lat is its slat plus its clat).
    JsonNode read = ours("fio-vm0-fio.json").at("/jobs/0/read");
    assertThat(read.at("/lat_ns/mean").asDouble())
        .isCloseTo(read.at("/slat_ns/mean").asDouble() + read.at("/clat_ns/mean").asDouble(),
            within(read.at("/lat_ns/mean").asDouble() * 0.05));
    assertThat(read.at("/lat_ns/min").asLong()).isLessThanOrEqualTo(read.at("/lat_ns/max").asLong());
    double depthSum = 0;
    for (JsonNode v : ours("fio-vm0-fio.json").at("/jobs/0/iodepth_level")) {
      depthSum += v.asDouble();
    }
    assertThat(depthSum).isCloseTo(100, within(0.01));
  }

  @Test
  void fioJson_keyPathsOfFioRunNow_presentOrNotApplicable(@TempDir Path tmp) throws Exception {
    Path fio = tool("fio", "Debian package fio");
    for (String[] c : new String[][] {{"randread", "libaio", "fio-vm0-fio.json"}, {"randwrite", "psync",
        "fio-vm1-fio.json"}}) {
      String out = RealTools.ok(tmp, null, 120, fio.toString(), "--name=fio", "--filename=" + tmp.resolve("fio.dat"),
          "--size=4M", "--rw=" + c[0], "--bs=4k", "--ioengine=" + c[1], "--iodepth=4", "--runtime=1",
          "--output-format=json+");
      JsonNode ref = MAPPER.readTree(out.substring(out.indexOf('{')));
      assertThat(RealTools.missing(ref, ours(c[2]), FIO_NOT_APPLICABLE)).as(c[0] + " " + c[1]).isEmpty();
    }
  }

  @Test
  void fioJsonplusClat2csv_readsLockvisorsFioJson() throws Exception {
    Path script = tool("fio_jsonplus_clat2csv", "Debian package fio");
    Path out = Files.createDirectories(dir.resolve("clat2csv"));
    RealTools.ok(out, null, 120, script.toString(), dir.resolve("fio-vm0-fio.json").toString(),
        out.resolve("vm0.csv").toString());
    List<String> csv = Files.readAllLines(out.resolve("vm0_job0.csv"));
    long n = ours("fio-vm0-fio.json").at("/jobs/0/read/clat_ns/bins").size();
    // A header, then one row per latency bucket with a sample.
    assertThat(csv.get(0)).contains("nsec", "read", "write", "trim");
    assertThat(csv).hasSize((int) n + 1);
    // Its own check: the CSV it wrote holds the bins of the JSON.
    RealTools.ok(out, null, 120, script.toString(), "--validate", dir.resolve("fio-vm0-fio.json").toString(),
        out.resolve("vm0.csv").toString());
    RealTools.ok(out, null, 120, script.toString(), dir.resolve("fio-vm1-fio.json").toString(),
        out.resolve("vm1.csv").toString());
    assertThat(Files.readAllLines(out.resolve("vm1_job0.csv")).size()).isGreaterThan(1);
  }

  @Test
  void fioLogs_asFioWritesThem_fio2gnuplotReadsThem() throws Exception {
    // fio 3.33's averaged log lines: "time_ms, value, ddir, 0, 0", one per log-avg period.
    List<String> bw = Files.readAllLines(dir.resolve("fio-vm0-fio_bw.1.log"));
    List<String> iops = Files.readAllLines(dir.resolve("fio-vm0-fio_iops.1.log"));
    assertThat(bw.size()).isBetween(4, 5);
    assertThat(iops).hasSameSizeAs(bw);
    long ios = 0;
    for (int i = 0; i < bw.size(); i++) {
      assertThat(bw.get(i)).matches((i + 1) + ", \\d+, 0, 0, 0");
      ios += Long.parseLong(iops.get(i).split(", ")[1]) / 1000; // IO/s over 1 ms
    }
    // The logged rates account for the I/Os of the window (the last partial period is not logged).
    assertThat(ios).isPositive().isLessThanOrEqualTo(ours("fio-vm0-fio.json").at("/jobs/0/read/total_ios").asLong());
    assertThat(dir.resolve("fio-vm1-fio_bw.1.log")).doesNotExist();

    Path script = tool("fio2gnuplot", "Debian package fio");
    Path logs = Files.createDirectories(dir.resolve("fio2gnuplot"));
    Files.copy(dir.resolve("fio-vm0-fio_bw.1.log"), logs.resolve("fio-vm0-fio_bw.1.log"));
    Files.copy(dir.resolve("fio-vm0-fio-ticket_bw.1.log"), logs.resolve("fio-vm0-fio-ticket_bw.1.log"));
    String out = RealTools.ok(logs, null, 120, script.toString(), "-b");
    assertThat(out).contains("fio-vm0-fio_bw.1.log", "fio-vm0-fio-ticket_bw.1.log");
    assertThat(logs.resolve("mygraph")).exists();
    assertThat(Files.readString(logs.resolve("result.global"))).contains("avg=", "values_count=");
  }

  // ---------------------------------------------------------------------------------------------
  // iperf3

  @Test
  void iperf3Json_everyKeyPathOfIperf312_presentOrNotApplicable() throws IOException {
    assertThat(RealTools.missing(fixture("iperf3-3.12-client.json"), ours("iperf3-vm0-iperf.json"),
        IPERF3_NOT_APPLICABLE)).isEmpty();
  }

  @Test
  void iperf3Json_intervalsFollowTheOption_endCarriesRttCwndAndCpu() throws IOException {
    JsonNode j = ours("iperf3-vm0-iperf.json");
    JsonNode intervals = j.get("intervals");
    // 1 ms intervals over a 5 ms window: 5 reports (the last one closes at the window's end).
    assertThat(intervals.size()).isBetween(4, 6);
    long bytes = 0;
    double last = 0;
    for (JsonNode iv : intervals) {
      assertThat(iv.at("/sum/start").asDouble()).isCloseTo(last, within(1e-12));
      last = iv.at("/sum/end").asDouble();
      assertThat(iv.get("streams")).hasSize(2);
      bytes += iv.at("/sum/bytes").asLong();
      for (JsonNode s : iv.get("streams")) {
        assertThat(s.get("snd_cwnd").asLong()).isPositive();
      }
    }
    assertThat(last).isCloseTo(WINDOW_NS / 1e9, within(1e-9));
    assertThat(bytes).isEqualTo(j.at("/end/sum_sent/bytes").asLong());
    for (JsonNode s : j.at("/end/streams")) {
      JsonNode sender = s.get("sender");
      assertThat(sender.get("min_rtt").asLong()).isPositive().isLessThanOrEqualTo(sender.get("mean_rtt").asLong());
      assertThat(sender.get("mean_rtt").asLong()).isLessThanOrEqualTo(sender.get("max_rtt").asLong());
      assertThat(sender.get("max_snd_cwnd").asLong()).isPositive();
    }
    JsonNode cpu = j.at("/end/cpu_utilization_percent");
    assertThat(cpu.get("host_total").asDouble()).isPositive()
        .isCloseTo(cpu.get("host_user").asDouble() + cpu.get("host_system").asDouble(), within(1e-9));
    assertThat(cpu.get("host_system").asDouble()).isPositive();
    assertThat(j.at("/start/connected")).hasSize(2);
  }

  @Test
  void iperf3Json_keyPathsOfIperf3RunNowOnLoopback_presentOrNotApplicable(@TempDir Path tmp) throws Exception {
    Path iperf3 = tool("iperf3", "Debian package iperf3");
    // A loopback run can fail for reasons of the machine, not of our file: the client may connect
    // before the one-off server listens, or the server may drop the test on a loaded machine, and
    // iperf3 then reports an "error" member (sometimes with exit status 0). Such a run is not a
    // reference; each attempt gets a fresh server on a fresh port.
    JsonNode ref = null;
    String last = "";
    for (int attempt = 0; attempt < 8 && ref == null; attempt++) {
      int port;
      try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
        port = s.getLocalPort();
      }
      Process server = new ProcessBuilder(iperf3.toString(), "-s", "-1", "-B", "127.0.0.1", "-p",
          Integer.toString(port)).redirectErrorStream(true).redirectOutput(tmp.resolve("server.txt").toFile()).start();
      try {
        awaitListening(tmp.resolve("server.txt"));
        RealTools.Run client = RealTools.run(tmp, null, 30, iperf3.toString(), "-c", "127.0.0.1", "-p",
            Integer.toString(port), "-t", "1", "-i", "0.5", "-P", "2", "-J");
        last = "exit " + client.exit() + ": " + client.out() + client.err();
        if (client.exit() == 0) {
          JsonNode run = MAPPER.readTree(client.out());
          if (!run.has("error")) {
            ref = run;
          }
        }
      } finally {
        server.destroy();
        server.waitFor();
      }
    }
    assertThat(ref).as("no clean iperf3 loopback run in 8 attempts; last: %s", last).isNotNull();
    assertThat(RealTools.missing(ref, ours("iperf3-vm0-iperf.json"), IPERF3_NOT_APPLICABLE)).isEmpty();
  }

  /**
   * Waits until the one-off server says it listens (at most 5 s); a probe connection would be
   * taken for the test's own.
   */
  private static void awaitListening(Path serverOutput) throws Exception {
    for (int i = 0; i < 100; i++) {
      if (Files.exists(serverOutput) && Files.readString(serverOutput).contains("Server listening")) {
        return;
      }
      Thread.sleep(50);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // perf script and FlameGraph

  /** stackcollapse-perf.pl's event line and frame line (and speedscope's, which are the same). */
  private static final Pattern EVENT =
      Pattern.compile("^(\\S.+?)\\s+(\\d+)/*(\\d+)*\\s+.*?(\\d+\\.\\d+):\\s*(\\d+)*\\s+(\\S+):\\s*$");
  private static final Pattern FRAME = Pattern.compile("^\\s*(\\w+)\\s*(.+) \\((\\S*)\\)$");

  @Test
  void perfScript_parsesAsStackcollapseAndSpeedscopeRead_periodsSumToThePerfEventCount() throws IOException {
    List<OutputParsers.PerfSection> sections = OutputParsers.perfReport(base.text("perf-report.txt"));
    for (String kernel : List.of("vm0", "vm1", "host")) {
      String text = base.text("perf-script-" + kernel + ".txt");
      long periods = 0;
      Map<Integer, Double> lastTime = new TreeMap<>();
      for (String block : text.split("\n\n")) {
        List<String> lines = new ArrayList<>(List.of(block.split("\n")));
        lines.removeIf(l -> l.startsWith("#") || l.isEmpty());
        if (lines.isEmpty()) {
          continue;
        }
        Matcher m = EVENT.matcher(lines.get(0));
        assertThat(m.matches()).as(lines.get(0)).isTrue();
        assertThat(m.group(1).length()).isLessThanOrEqualTo(15);
        assertThat(m.group(6)).isEqualTo("cpu-clock");
        periods += Long.parseLong(m.group(5));
        // speedscope needs each thread's timestamps in order.
        int tid = Integer.parseInt(m.group(2));
        double t = Double.parseDouble(m.group(4));
        assertThat(t).isGreaterThanOrEqualTo(lastTime.getOrDefault(tid, 0.0));
        lastTime.put(tid, t);
        assertThat(lines.size()).as(block).isGreaterThan(1);
        for (String f : lines.subList(1, lines.size())) {
          Matcher fm = FRAME.matcher(f);
          assertThat(fm.matches()).as(f).isTrue();
          assertThat(fm.group(3)).isNotEqualTo("[unknown]").as(f);
        }
      }
      String title = kernel.equals("host") ? "host host" : "guest " + kernel;
      OutputParsers.PerfSection s = sections.stream().filter(x -> x.title().equals(title)).findFirst().orElseThrow();
      // Guest perf report sees only guest CPUs, as this file does (no [H] on KVM).
      assertThat(periods).as(kernel).isEqualTo(s.eventCount());
    }
  }

  @Test
  void perfReport_userSymbolsNameTheirExecutable() {
    List<OutputParsers.PerfSection> sections = OutputParsers.perfReport(base.text("perf-report.txt"));
    List<OutputParsers.PerfLine> user = sections.stream().flatMap(s -> s.lines().stream())
        .filter(l -> l.marker() == '.').toList();
    assertThat(user).isNotEmpty();
    assertThat(user).allMatch(l -> !l.dso().equals("[unknown]"));
    assertThat(user).anyMatch(l -> l.symbol().equals("fio_io_u_queue") && l.dso().equals("fio"));
    assertThat(user).anyMatch(l -> l.symbol().equals("iperf_client_loop") && l.dso().equals("iperf"));
  }

  @Test
  void stackcollapsePerf_readsPerfScript_intoTheSameWeights() throws Exception {
    Path script = tool("stackcollapse-perf.pl", "FlameGraph scripts: Debian has no package; set FLAMEGRAPH_DIR");
    for (String kernel : List.of("vm0", "host")) {
      String folded = RealTools.ok(dir, dir.resolve("perf-script-" + kernel + ".txt"), 120, script.toString());
      long sum = 0;
      for (String line : folded.split("\n")) {
        if (!line.isBlank()) {
          sum += Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
        }
      }
      String title = kernel.equals("host") ? "host host" : "guest " + kernel;
      long events = OutputParsers.perfReport(base.text("perf-report.txt")).stream()
          .filter(x -> x.title().equals(title)).findFirst().orElseThrow().eventCount();
      assertThat(sum).as(kernel).isEqualTo(events);
    }
  }

  @Test
  void flamegraph_rendersEveryFoldedFile() throws Exception {
    Path script = tool("flamegraph.pl", "FlameGraph scripts: Debian has no package; set FLAMEGRAPH_DIR");
    for (String f : List.of("oncpu.folded", "spin.folded", "offcpu.folded", "oncpu-diff-ticket.folded")) {
      String svg = RealTools.ok(dir, dir.resolve(f), 120, script.toString(), "--countname", "ns");
      assertThat(svg).as(f).startsWith("<?xml").contains("</svg>");
    }
  }

  @Test
  void difffolded_withoutN_equalsTheDiffFile_asTheDocsSay() throws Exception {
    Path script = tool("difffolded.pl", "FlameGraph scripts: Debian has no package; set FLAMEGRAPH_DIR");
    String out = RealTools.ok(dir, null, 120, script.toString(), dir.resolve("oncpu.folded").toString(),
        dir.resolve("oncpu-ticket.folded").toString());
    assertThat(new java.util.TreeSet<>(List.of(out.split("\n"))))
        .isEqualTo(new java.util.TreeSet<>(Files.readAllLines(dir.resolve("oncpu-diff-ticket.folded"))));
  }
}
