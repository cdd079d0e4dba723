package org.lockvisor.reports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.model.ExperimentYaml;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.experiment.runner.ExperimentRunner;

/**
 * Golden-shape tests of every file a run writes: each is parsed back as a script reading the real
 * tool's output would (by its header's columns), and checked against the run's own counters and
 * against the other files (the same account seen as perf report, folded stacks and thread CPU).
 */
class RunOutputsTest {

  private static final ExperimentPlugins PLUGINS = ExperimentPlugins.discover(RunOutputsTest.class.getClassLoader());
  private static final ObjectMapper MAPPER = new ObjectMapper();
  static final long WARMUP_NS = 500_000;
  static final long DURATION_NS = 4_000_000;
  static final int CPUS = 2;

  private static RunOutputs base;
  private static RunOutputs ticket;

  /** locktorture, 4 vCPUs on 2 CPUs; variant: ticket spinlock. */
  static Experiment torture() {
    return Experiment.builder("torture").seed(5).warmupNs(WARMUP_NS).durationNs(DURATION_NS).host(CPUS, "cfs")
        .vm("vm0", vm -> vm.vcpus(4).pinning(0, 1, 0, 1).spinlock("pv-qspinlock").vcpuIsPreempted(true)
            .workload("torture", "locktorture", Map.of("torture-type", "spin_lock", "nwriters", "6",
                "hold-ns", "2us", "think-ns", "1us", "think-jitter-ns", "2us")))
        .variant("ticket", Map.of("vms[0].locks.spinlock", "ticket"))
        .build();
  }

  static RunOutputs run(Experiment e, String variant, int traceEvents) {
    ExperimentRunner runner = new ExperimentRunner(PLUGINS);
    Experiment v = variant.equals("base") ? e : ExperimentYaml.variant(e, variant);
    RunOutputs o = new RunOutputs(PLUGINS, v.arch(), variant, traceEvents);
    runner.run(v, variant, o);
    return o;
  }

  @BeforeAll
  static void runOnce() {
    base = run(torture(), "base", 100_000);
    ticket = run(torture(), "ticket", 0);
  }

  @Test
  void files_perVariant_withSuffix_traceOnlyWhenAsked() {
    assertThat(base.files().keySet()).containsExactly("perf-report.txt", "perf-script-vm0.txt",
        "perf-script-host.txt", "oncpu.folded", "spin.folded", "offcpu.folded", "kvm-stat.txt", "lock_stat.txt", "lock-contention.txt", "trace.json");
    assertThat(ticket.files().keySet()).contains("perf-report-ticket.txt", "oncpu-ticket.folded",
        "lock-contention-ticket.txt").doesNotContain("trace-ticket.json");
  }

  @Test
  void perfReport_sectionsParse_sharesSumTo100_hostSamplesEveryCpuForTheWindow() {
    List<OutputParsers.PerfSection> sections = OutputParsers.perfReport(base.text("perf-report.txt"));

    assertThat(sections).extracting(OutputParsers.PerfSection::title).containsExactly("guest vm0", "host host");
    for (OutputParsers.PerfSection s : sections) {
      assertThat(s.lines()).isNotEmpty();
      // perf's header: the event count of cpu-clock is its summed period, nanoseconds; the samples
      // are what -F 4000 takes in that time, scaled as perf's convert_unit does.
      assertThat((double) s.eventCount()).as(s.title()).isCloseTo(s.totalMs() * 1e6, within(500.0));
      long samples = s.eventCount() * 4000 / 1_000_000_000L;
      assertThat(s.samples()).as(s.title()).isEqualTo(samples > 1000 ? samples / 1000 + "K" : samples + " ");
      assertThat(s.lines()).allMatch(l -> l.command().length() <= 15, "comm fits TASK_COMM_LEN");
      // Each line is rounded to 0.01 %.
      assertThat(s.percentSum()).as(s.title()).isCloseTo(100, within(0.005 * s.lines().size() + 0.01));
    }
    // The host's CPUs are sampled all the time (idle as swapper): CPUs x measurement window.
    assertThat(sections.get(1).totalMs()).isEqualTo(CPUS * DURATION_NS / 1e6);
    assertThat(sections.get(1).lines()).anyMatch(l -> l.marker() == 'g' && l.command().startsWith("vm0/vcpu"));
    // The guest is sampled only while its vCPUs run, so never more than the host gives them.
    assertThat(sections.get(0).totalMs()).isPositive().isLessThanOrEqualTo(CPUS * DURATION_NS / 1e6);
    assertThat(sections.get(0).lines()).allMatch(l -> l.marker() == 'k' && l.dso().equals("[kernel.vmlinux]"));
  }

  @Test
  void folded_wellFormed_spinIsTheSpinPartOfOnCpu_andMatchesThePerfShares() {
    Map<String, Long> oncpu = FoldedStacks.parse(base.text("oncpu.folded"));
    Map<String, Long> spin = FoldedStacks.parse(base.text("spin.folded"));

    assertThat(oncpu).isNotEmpty();
    assertThat(spin).isNotEmpty();
    for (String stack : oncpu.keySet()) {
      String[] frames = stack.split(";");
      assertThat(frames.length).as(stack).isGreaterThanOrEqualTo(3);
      assertThat(frames[0]).isIn("host", "vm0");
      if (frames[1].startsWith("swapper/")) {
        // interrupt work done in the idle task is on CPU; the idle loop itself never is
        assertThat(frames[frames.length - 1]).as(stack).isNotIn("intel_idle", "default_idle");
      }
    }
    // The spin graph is the same account filtered by leaf: every spin stack is an on-CPU stack
    // with the same weight.
    spin.forEach((stack, ns) -> assertThat(oncpu.get(stack)).as(stack).isEqualTo(ns));
    Set<String> spinLeaves = new HashSet<>();
    long guestSpinNs = 0;
    for (Map.Entry<String, Long> e : spin.entrySet()) {
      String[] frames = e.getKey().split(";");
      spinLeaves.add(frames[frames.length - 1]);
      if (frames[0].equals("vm0")) {
        guestSpinNs += e.getValue();
      }
    }
    assertThat(spinLeaves).contains("__pv_queued_spin_lock_slowpath");
    // The guest's perf report shows the same spin share as the folded spin stacks.
    OutputParsers.PerfSection guest = OutputParsers.perfReport(base.text("perf-report.txt")).get(0);
    double perfSpin = spinLeaves.stream().mapToDouble(guest::percentOf).sum();
    double foldedSpin = 100.0 * guestSpinNs / (guest.totalMs() * 1e6);
    assertThat(perfSpin).isCloseTo(foldedSpin, within(0.005 * guest.lines().size() + 0.05));
  }

  @Test
  void offCpu_plusOnCpu_coversTheWindow_forEveryVcpuThread() {
    Map<String, Long> offcpu = FoldedStacks.parse(base.text("offcpu.folded"));
    Map<String, Long> offByThread = new HashMap<>();
    offcpu.forEach((stack, ns) -> {
      String[] f = stack.split(";");
      assertThat(f).hasSize(3);
      assertThat(f[2]).isIn("[sleeping]", "[blocked]", "[runqueue]");
      offByThread.merge(f[0] + ";" + f[1], ns, Long::sum);
    });
    ExperimentResult r = base.result();
    int vcpus = 0;
    for (ExperimentResult.ThreadCpu t : r.threads()) {
      if (t.kernel().equals("host") && t.name().startsWith("vm0/vcpu")) {
        vcpus++;
        long off = offByThread.getOrDefault("host;" + t.name(), 0L);
        assertThat(t.cpuNs() + off).as(t.name()).isCloseTo(DURATION_NS, within(DURATION_NS / 100));
      }
    }
    assertThat(vcpus).isEqualTo(4);
  }

  @Test
  void kvmStat_sharesSumTo100_totalsAddUp_perVcpuSectionsSumToTheVm() {
    List<OutputParsers.KvmSection> sections = OutputParsers.kvmStat(base.text("kvm-stat.txt"));

    assertThat(sections).hasSize(1 + 4);
    long perVcpu = 0;
    for (OutputParsers.KvmSection s : sections) {
      long samples = s.rows().stream().mapToLong(OutputParsers.KvmRow::samples).sum();
      assertThat(samples).as(s.heading()).isEqualTo(s.totalSamples());
      if (samples > 0) {
        double n = s.rows().size();
        assertThat(s.rows().stream().mapToDouble(OutputParsers.KvmRow::samplesPct).sum())
            .isCloseTo(100, within(0.005 * n + 0.01));
        assertThat(s.rows().stream().mapToDouble(OutputParsers.KvmRow::timePct).sum())
            .isCloseTo(100, within(0.005 * n + 0.01));
      }
      for (OutputParsers.KvmRow row : s.rows()) {
        assertThat(row.minUs()).isLessThanOrEqualTo(row.avgUs() + 0.01);
        assertThat(row.avgUs()).isLessThanOrEqualTo(row.maxUs() + 0.01);
      }
      if (s.heading().contains("VCPU ")) {
        perVcpu += s.totalSamples();
      }
    }
    assertThat(sections.get(0).totalSamples()).isPositive().isEqualTo(perVcpu);
  }

  @Test
  void lockStat_columnsConsistent_andAgreeWithTheWorkloadsOwnCount() {
    List<OutputParsers.LockStatRow> rows = OutputParsers.lockStat(base.text("lock_stat.txt"));

    assertThat(rows).hasSize(1);
    OutputParsers.LockStatRow row = rows.get(0);
    double[] c = row.columns();
    // con-bounces contentions wmin wmax wtotal wavg acq-bounces acquisitions hmin hmax htotal havg
    assertThat(row.contentions()).isPositive().isLessThanOrEqualTo(row.acquisitions());
    assertThat(c[5]).isCloseTo(c[4] / c[1], within(0.02));
    assertThat(c[11]).isCloseTo(c[10] / c[7], within(0.02));
    assertThat(c[2]).isLessThanOrEqualTo(c[5]);
    assertThat(c[5]).isLessThanOrEqualTo(c[3]);
    assertThat(c[8]).isLessThanOrEqualTo(c[11]);
    assertThat(c[11]).isLessThanOrEqualTo(c[9]);
    // Every locktorture write is one acquisition of the lock (in flight at the window's edges: one per writer).
    long writes = base.result().workload("vm0", "torture").figures().get("writes").longValue();
    assertThat(row.acquisitions()).isCloseTo(writes, within(6L));
  }

  @Test
  void lockContention_perfLayout_agreesWithLockStat() {
    List<List<OutputParsers.ContentionRow>> tables = OutputParsers.lockContention(base.text("lock-contention.txt"));
    OutputParsers.LockStatRow lockStat = OutputParsers.lockStat(base.text("lock_stat.txt")).get(0);

    assertThat(tables).hasSize(2);
    for (List<OutputParsers.ContentionRow> table : tables) {
      assertThat(table).hasSize(1);
      OutputParsers.ContentionRow row = table.get(0);
      assertThat(row.contended()).isEqualTo(lockStat.contentions());
      // lock_stat prints us with two decimals; perf scales to the unit.
      assertThat(row.totalWaitNs()).isCloseTo(lockStat.columns()[4] * 1e3, within(row.totalWaitNs() * 0.005 + 10));
      assertThat(row.maxWaitNs()).isCloseTo(lockStat.columns()[3] * 1e3, within(row.maxWaitNs() * 0.005 + 10));
      assertThat(row.avgWaitNs()).isCloseTo(row.totalWaitNs() / row.contended(), within(row.avgWaitNs() * 0.01 + 10));
    }
    assertThat(tables.get(0).get(0).rest()).startsWith("spinlock");
    assertThat(tables.get(1).get(0).rest()).matches("[0-9a-f]{16}   vm0/torture/\\S+ \\(spinlock\\)");
  }

  @Test
  void lockContention_timeUnits_asPerfPrintsThem() {
    assertThat(LockContentionReport.time(557)).isEqualTo("      557 ns");
    assertThat(LockContentionReport.time(1_420)).isEqualTo("     1.42 us");
    assertThat(LockContentionReport.time(811_740_000)).isEqualTo("   811.74 ms");
    assertThat(LockContentionReport.time(6_030_000_000L)).isEqualTo("     6.03 s ");
  }

  @Test
  void trace_validJson_slicesInTheMeasurementWindow() throws Exception {
    JsonNode trace = MAPPER.readTree(base.files().get("trace.json"));

    assertThat(trace.at("/metadata/truncated").asBoolean()).isFalse();
    JsonNode events = trace.get("traceEvents");
    int slices = 0;
    Set<String> cats = new HashSet<>();
    for (JsonNode e : events) {
      assertThat(e.get("ph").asText()).isIn("M", "X", "i");
      if (e.get("ph").asText().equals("X")) {
        slices++;
        cats.add(e.get("cat").asText());
        assertThat(e.get("dur").asDouble()).isGreaterThanOrEqualTo(0);
        assertThat(e.get("ts").asDouble() + e.get("dur").asDouble())
            .isLessThanOrEqualTo((WARMUP_NS + DURATION_NS) / 1e3 + 1e-6);
      }
    }
    assertThat(slices).isGreaterThan(100);
    assertThat(cats).contains("run", "spin", "lock");
    // every lock hold lasts at least the configured hold time (2 us) of the critical section
    int holds = 0;
    for (JsonNode e : events) {
      if (e.get("ph").asText().equals("X") && e.get("cat").asText().equals("lock")) {
        holds++;
        assertThat(e.get("name").asText()).isEqualTo("hold vm0/torture/torture_lock");
        assertThat(e.get("dur").asDouble()).isGreaterThanOrEqualTo(2.0);
      }
    }
    assertThat(holds).isGreaterThan(100);
    // A track per thread (the thread groups from pid 1000), named, with the thread's own slices.
    Set<String> namedThreadTracks = new HashSet<>();
    int writerTracks = 0;
    Set<String> instants = new HashSet<>();
    int threadSlices = 0;
    for (JsonNode e : events) {
      int pid = e.get("pid").asInt();
      if (e.get("ph").asText().equals("M") && e.get("name").asText().equals("thread_name") && pid >= 1000) {
        namedThreadTracks.add(pid + "/" + e.get("tid").asInt());
        writerTracks += e.at("/args/name").asText().startsWith("lock_torture_wr/") ? 1 : 0;
      }
      if (e.get("ph").asText().equals("X") && pid >= 1000) {
        threadSlices++;
        assertThat(namedThreadTracks).as("slice on a named thread track").contains(pid + "/" + e.get("tid").asInt());
      }
      if (e.get("ph").asText().equals("i")) {
        instants.add(e.get("cat").asText());
      }
    }
    assertThat(writerTracks).isEqualTo(6);
    assertThat(threadSlices).isPositive();
    assertThat(instants).contains("wakeup", "preempt");
  }

  @Test
  void trace_bounded_saysItWasTruncated() throws Exception {
    RunOutputs small = run(torture(), "base", 50);
    JsonNode trace = MAPPER.readTree(small.files().get("trace.json"));

    assertThat(trace.at("/metadata/truncated").asBoolean()).isTrue();
    assertThat(trace.at("/metadata/events").asInt()).isEqualTo(50);
    assertThat(small.traceEventCount()).isEqualTo(50);
  }

  @Test
  void sameInputs_sameFiles_byteForByte() {
    RunOutputs again = run(torture(), "base", 100_000);

    for (String name : base.files().keySet()) {
      assertThat(again.text(name)).as(name).isEqualTo(base.text(name));
    }
  }

  @Test
  void diff_pairsBaselineAndVariant_inDifffoldedLayout() {
    String diff = FoldedStacks.diff(base.text("oncpu.folded"), ticket.text("oncpu-ticket.folded"));
    Map<String, Long> before = FoldedStacks.parse(base.text("oncpu.folded"));
    Map<String, Long> after = FoldedStacks.parse(ticket.text("oncpu-ticket.folded"));

    Set<String> seen = new HashSet<>();
    for (String line : diff.split("\n")) {
      String[] p = line.split(" ");
      assertThat(p).as(line).hasSize(3);
      assertThat(Long.parseLong(p[1])).isEqualTo(before.getOrDefault(p[0], 0L));
      assertThat(Long.parseLong(p[2])).isEqualTo(after.getOrDefault(p[0], 0L));
      seen.add(p[0]);
    }
    Set<String> all = new HashSet<>(before.keySet());
    all.addAll(after.keySet());
    assertThat(seen).isEqualTo(all);
    // The ticket lock spins in its own symbol: the pair shows one going, the other coming.
    assertThat(diff).contains("__pv_queued_spin_lock_slowpath");
  }

  @Test
  void folded_malformedLine_isRejectedWithItsNumber() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> FoldedStacks.parse("a;b 1\na;b x\n"))
        .hasMessageContaining("line 2");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> FoldedStacks.parse("a b;c 1\n"))
        .hasMessageContaining("line 1");
  }

  @Test
  void nativeJson_fioAndIperf3Shapes_agreeWithTheFigures() throws Exception {
    Experiment e = Experiment.builder("native").seed(3).warmupNs(1_000_000).durationNs(5_000_000).host(4, "cfs")
        .vm("vm0", vm -> vm.vcpus(2).pinning(0, 1)
            .device("blk0", "virtio-blk", Map.of()).device("net0", "vhost-net", Map.of())
            .workload("fio", "fio", Map.of()).workload("iperf", "iperf", Map.of()))
        .build();
    RunOutputs o = run(e, "base", 0);

    JsonNode fio = MAPPER.readTree(o.files().get("fio-vm0-fio.json"));
    JsonNode job = fio.at("/jobs/0");
    String dir = job.at("/read/total_ios").asLong() > 0 ? "read" : "write";
    var figures = o.result().workload("vm0", "fio").figures();
    assertThat(job.at("/" + dir + "/total_ios").asLong()).isPositive();
    assertThat(job.at("/" + dir + "/clat_ns/percentile/99.000000").asLong()).isPositive();
    assertThat(job.at("/" + dir + "/iops").asDouble())
        .isCloseTo(job.at("/" + dir + "/total_ios").asLong() / (DURATION_NS * 5 / 4 / 1e9), within(1.0));
    assertThat(figures).isNotEmpty();

    JsonNode iperf = MAPPER.readTree(o.files().get("iperf3-vm0-iperf.json"));
    JsonNode sum = iperf.at("/end/sum_received");
    assertThat(iperf.at("/start/test_start/protocol").asText()).isEqualTo("TCP");
    assertThat(iperf.at("/end/streams")).hasSize(iperf.at("/start/test_start/num_streams").asInt());
    long bytes = 0;
    for (JsonNode s : iperf.at("/end/streams")) {
      bytes += s.at("/receiver/bytes").asLong();
      assertThat(s.at("/sender/socket").asInt()).isGreaterThanOrEqualTo(5);
    }
    assertThat(sum.get("bytes").asLong()).isPositive().isEqualTo(bytes);
    assertThat(sum.get("bits_per_second").asDouble())
        .isCloseTo(bytes * 8 / sum.get("seconds").asDouble(), within(1.0));
    double gbps = o.result().workload("vm0", "iperf").figures().get("throughput_gbps").doubleValue();
    assertThat(sum.get("bits_per_second").asDouble() / 1e9).isCloseTo(gbps, within(gbps * 1e-9 + 1e-9));
    assertThat(iperf.at("/end/sum_sent/retransmits").isNumber()).isTrue();
    List<String> names = new ArrayList<>(o.files().keySet());
    assertThat(names).contains("fio-vm0-fio.json", "iperf3-vm0-iperf.json");
  }
}
