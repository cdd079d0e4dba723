package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.cli.CliFixture.Run;
import org.lockvisor.reproductions.report.ReproductionPage;

/**
 * {@code lockvisor reproduce virtio-blk-notify --quick --out DIR} (the quickest built-in
 * reproduction): every internal run gets its directory under {@code virtio-blk-notify/runs/} with
 * the files of docs/outputs.md, each read back the way a script would; progress goes to stderr
 * only and stdout stays the same JSON document. (That the same seed writes the same bytes is
 * checked on one point in the reproductions module, RunFilesTest, to keep this test short.) A
 * what-if run beside it ({@code --set cost.arm64-kvm.EXIT_USERSPACE=...}) checks that a cost
 * override reaches the machines and is carried by every output.
 */
class ReproduceOutputFilesTest {

  static final String NAME = "virtio-blk-notify";
  static final List<String> ROWS = List.of("arm64-kvm-numjobs4", "x86_64-kvm-numjobs2", "x86_64-kvm-numjobs4",
      "x86_64-kvm-numjobs8", "x86_64-kvm-numjobs12");
  static final List<String> FILES = List.of("result.json", "perf-report.txt", "oncpu.folded", "spin.folded",
      "offcpu.folded", "lock_stat.txt", "lock-contention.txt", "kvm-stat.txt", "fio-vm0-fio.json", "report.html",
      "trace.json");
  static final int TRACE_EVENTS = 3_000;
  static final ObjectMapper MAPPER = new ObjectMapper();

  @TempDir
  static Path temp;

  static Run first;
  static Run whatIf;
  /** Three times the top of the range arm64-kvm states for its userspace exit (6-20 us). */
  static final String EXIT_USERSPACE_WHAT_IF = "cost.arm64-kvm.EXIT_USERSPACE=60000";

  @BeforeAll
  static void reproduceTwice() {
    String before = System.getProperty(Progress.AFTER_PROPERTY);
    System.setProperty(Progress.AFTER_PROPERTY, "0"); // progress from the first run on, however fast
    try {
      first = reproduce(temp.resolve("a"));
      whatIf = CliFixture.run(ReproduceOutputFilesTest.class.getClassLoader(), "reproduce", NAME, "--quick", "--out",
          temp.resolve("w").toString(), "--format", "json", "--set", EXIT_USERSPACE_WHAT_IF);
    } finally {
      if (before == null) {
        System.clearProperty(Progress.AFTER_PROPERTY);
      } else {
        System.setProperty(Progress.AFTER_PROPERTY, before);
      }
    }
  }

  private static Run reproduce(Path out) {
    return CliFixture.run(ReproduceOutputFilesTest.class.getClassLoader(), "reproduce", NAME, "--quick", "--out",
        out.toString(), "--format", "json", "--trace", "--trace-max-events", "" + TRACE_EVENTS);
  }

  private static Path runs(String dir) {
    return temp.resolve(dir).resolve(NAME).resolve("runs");
  }

  private static List<String> labels() {
    List<String> labels = new ArrayList<>();
    for (String row : ROWS) {
      labels.add(row + "-baseline");
      labels.add(row + "-patched");
    }
    return labels;
  }

  @Test
  void everyInternalRun_hasItsDirectory_withEveryFile_andThePageLinksThem() throws IOException {
    assertThat(first.exitCode()).as(first.err()).isIn(Lockvisor.EXIT_OK, Lockvisor.EXIT_FAILED);
    try (Stream<Path> dirs = Files.list(runs("a"))) {
      assertThat(dirs.map(d -> d.getFileName().toString())).containsExactlyInAnyOrderElementsOf(labels());
    }
    String page = Files.readString(temp.resolve("a").resolve(NAME).resolve("report.html"));
    // The page's pictures: flame graphs with a differential, within the page's size budget.
    assertThat(page).contains("class=\"fg\"", "class=\"fg fg-diff\"").doesNotContain("left out");
    assertThat(page.length()).isLessThanOrEqualTo(ReproductionPage.SIZE_BUDGET);
    for (String label : labels()) {
      Path dir = runs("a").resolve(label);
      for (String f : FILES) {
        assertThat(dir.resolve(f)).as(label).isNotEmptyFile();
      }
      if (label.endsWith("-patched")) {
        assertThat(dir.resolve("oncpu-diff.folded")).isNotEmptyFile();
        assertThat(dir.resolve("spin-diff.folded")).exists();
      } else {
        assertThat(dir.resolve("oncpu-diff.folded")).doesNotExist();
      }
      assertThat(page).contains("href=\"runs/" + label + "/report.html\"");
      assertThat(Files.readString(dir.resolve("report.html"))).contains("perf-report.txt", "config sha256",
          "lockvisor reproduce " + NAME + ": run " + label).doesNotContain("lockvisor run ");
    }
    try (Stream<Path> all = Files.walk(temp.resolve("a"))) {
      assertThat(all.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".tmp"));
    }
  }

  @Test
  void resultJson_carriesTheManifest_andTheFiguresTheReproductionReports() throws IOException {
    JsonNode reproduction = MAPPER.readTree(first.out());
    for (String label : labels()) {
      JsonNode doc = MAPPER.readTree(runs("a").resolve(label).resolve("result.json").toFile());
      JsonNode p = doc.get("provenance");
      JsonNode run = doc.at("/runs/0");
      assertThat(doc.get("runs")).hasSize(1);
      // the run of a shipped experiment file: its name
      assertThat(doc.get("experiment").asText()).isEqualTo(NAME + (label.startsWith("arm64") ? "-arm64" : "-x86"));
      assertThat(p.get("lockvisor_version").asText()).isNotBlank();
      assertThat(p.get("git_commit").asText()).isNotBlank();
      assertThat(p.get("config_sha256").asText()).matches("[0-9a-f]{64}");
      assertThat(p.get("root_seed").asLong()).isEqualTo(2014);
      List<String> plugins = new ArrayList<>();
      p.get("plugins").forEach(u -> {
        assertThat(u.get("version").asText()).isNotBlank();
        plugins.add(u.get("kind").asText() + "/" + u.get("name").asText());
      });
      assertThat(plugins).contains("workload/fio", "device/virtio-blk", "lock/ticket", "scheduler/cfs",
          "arch/" + run.get("arch").asText());
      assertThat(p.get("events").asLong()).isPositive().isEqualTo(run.get("events").asLong());
      assertThat(p.at("/fingerprints/0/fingerprint").asText()).isEqualTo(run.get("fingerprint").asText())
          .matches("[0-9a-f]{16}");
      assertThat(p.get("simulated_ns").asLong())
          .isEqualTo(run.get("warmup_ns").asLong() + run.get("simulated_ns").asLong());
      assertThat(run.get("simulated_ns").asLong()).isEqualTo(25_000_000L); // --quick: 25 ms measured
      assertThat(p.get("wall_ns").asLong()).isPositive();
      assertThat(p.get("events_per_s").asLong()).isPositive();
      // the shipped file's variant as lockvisor run names it: base (the baseline) or patched
      assertThat(run.get("variant").asText()).isEqualTo(label.endsWith("-patched") ? "patched" : "base");

      // The run's own fio figure is the one the reproduction's row prints.
      int row = ROWS.indexOf(label.substring(0, label.lastIndexOf('-')));
      String column = label.endsWith("-patched") ? "patched" : "baseline";
      long iops = reproduction.at("/rows/" + row + "/" + column + "/iops").asLong();
      assertThat(Math.round(run.at("/workloads/0/figures/iops").asDouble())).as(label).isEqualTo(iops);
      JsonNode fio = MAPPER.readTree(runs("a").resolve(label).resolve("fio-vm0-fio.json").toFile());
      double fioIops = 0;
      for (JsonNode job : fio.get("jobs")) {
        fioIops += job.at("/read/iops").asDouble();
      }
      assertThat(fioIops).as(label).isCloseTo(iops, within(0.01 * iops + 1));
    }
  }

  @Test
  void whatIf_costOverrideReachesTheMachines_andEveryOutputCarriesIt() throws IOException {
    JsonNode plain = MAPPER.readTree(first.out());
    JsonNode w = MAPPER.readTree(whatIf.out());
    assertThat(whatIf.exitCode()).as(whatIf.err()).isIn(Lockvisor.EXIT_OK, Lockvisor.EXIT_FAILED);
    assertThat(plain.has("whatIf")).isFalse();
    assertThat(w.at("/whatIf/costs/arm64-kvm/EXIT_USERSPACE").asLong()).isEqualTo(60_000);
    assertThat(w.get("headline").asText()).startsWith("WHAT-IF — ");
    assertThat(plain.get("headline").asText()).doesNotContain("WHAT-IF");
    // every baseline request exits to the VMM under vq_lock: a longer exit serialises the arm64
    // baseline further, so it completes fewer requests per second
    assertThat(w.at("/rows/0/arch").asText()).isEqualTo("arm64-kvm");
    assertThat(w.at("/rows/0/baseline/iops").asLong()).isLessThan(plain.at("/rows/0/baseline/iops").asLong());
    assertThat(w.at("/rows/0/baseline/notify_exit_mean_us").asDouble())
        .isGreaterThan(plain.at("/rows/0/baseline/notify_exit_mean_us").asDouble());
    // the x86 machines are built on x86_64-kvm, which the what-if leaves alone
    assertThat(w.at("/rows/1")).isEqualTo(plain.at("/rows/1"));
    for (String label : labels()) {
      JsonNode a = MAPPER.readTree(runs("a").resolve(label).resolve("result.json").toFile());
      JsonNode b = MAPPER.readTree(runs("w").resolve(label).resolve("result.json").toFile());
      assertThat(a.at("/provenance").has("what_if")).isFalse();
      assertThat(b.at("/provenance/what_if/costs/arm64-kvm/EXIT_USERSPACE").asLong()).as(label).isEqualTo(60_000);
      assertThat(b.at("/provenance/config_sha256").asText()).as(label)
          .matches("[0-9a-f]{64}").isNotEqualTo(a.at("/provenance/config_sha256").asText());
      assertThat(b.get("source").asText()).contains("--set " + EXIT_USERSPACE_WHAT_IF);
    }
    assertThat(Files.readString(temp.resolve("w").resolve(NAME + ".json"))).contains("\"whatIf\"", "WHAT-IF — ");
    assertThat(Files.readString(temp.resolve("w").resolve(NAME).resolve("report.html")))
        .contains("what-if: " + EXIT_USERSPACE_WHAT_IF, "WHAT-IF — ");
  }

  private static final Pattern SAMPLES = Pattern.compile("^# lockvisor: (.+), exact CPU time ([0-9.]+) ms \\(.*\\)$");
  private static final Pattern PERF_LINE = Pattern.compile("^\\s+(\\d+\\.\\d\\d)%\\s+\\S.*\\[\\S\\] \\S.*$");

  @Test
  void perfReport_sectionsSumTo100_foldedLinesAreWellFormed() throws IOException {
    for (String label : labels()) {
      Path dir = runs("a").resolve(label);
      List<Double> sums = new ArrayList<>();
      List<Integer> counts = new ArrayList<>();
      List<String> titles = new ArrayList<>();
      for (String line : Files.readAllLines(dir.resolve("perf-report.txt"))) {
        Matcher m = SAMPLES.matcher(line);
        if (m.matches()) {
          titles.add(m.group(1));
          sums.add(0.0);
          counts.add(0);
          continue;
        }
        Matcher l = PERF_LINE.matcher(line);
        if (l.matches()) {
          int i = sums.size() - 1;
          sums.set(i, sums.get(i) + Double.parseDouble(l.group(1)));
          counts.set(i, counts.get(i) + 1);
        } else {
          assertThat(line.isBlank() || line.startsWith("#")).as(label + ": " + line).isTrue();
        }
      }
      assertThat(titles).as(label).contains("guest vm0", "host host");
      for (int i = 0; i < sums.size(); i++) {
        assertThat(counts.get(i)).as(titles.get(i)).isPositive();
        assertThat(sums.get(i)).as(label + " " + titles.get(i)).isCloseTo(100, within(0.005 * counts.get(i) + 0.01));
      }
      for (String f : List.of("oncpu.folded", "spin.folded", "offcpu.folded")) {
        List<String> lines = Files.readAllLines(dir.resolve(f));
        if (!f.equals("spin.folded")) {
          assertThat(lines).as(label + "/" + f).isNotEmpty();
        }
        assertThat(lines).as(label + "/" + f).allMatch(s -> s.matches("[^ ;]+(;[^;]+)* [1-9]\\d*"));
      }
      if (label.endsWith("-patched")) {
        assertThat(Files.readAllLines(dir.resolve("oncpu-diff.folded"))).isNotEmpty()
            .allMatch(s -> s.matches("[^ ;]+(;[^;]+)* \\d+ \\d+"));
      }
    }
  }

  @Test
  void lockStat_columnsAreConsistent_withEachOtherAndResultJson() throws IOException {
    for (String label : labels()) {
      Path dir = runs("a").resolve(label);
      JsonNode locks = MAPPER.readTree(dir.resolve("result.json").toFile()).at("/runs/0/lock_stat");
      List<String> lines = Files.readAllLines(dir.resolve("lock_stat.txt"));
      assertThat(lines.get(0)).isEqualTo("lock_stat version 0.4");
      List<String> header = List.of(lines.get(2).trim().replace("class name", "class-name").split("\\s+"));
      // the kernel's class name and 12 columns, then lockvisor's halts and kicks
      assertThat(header).startsWith("class-name", "con-bounces", "contentions").endsWith("halts", "kicks").hasSize(15);
      int rows = 0;
      for (String line : lines) {
        Matcher m = Pattern.compile("^\\s*(\\S+):\\s+(.*)$").matcher(line);
        if (!m.matches() || line.startsWith("lock_stat")) {
          continue;
        }
        double[] c = Stream.of(m.group(2).trim().split("\\s+")).mapToDouble(Double::parseDouble).toArray();
        if (c.length != 14) {
          continue; // a contention point row
        }
        rows++;
        // con-bounces, contentions, wait min/max/total/avg (us), acq-bounces, acquisitions, hold min/max/total/avg
        assertThat(c[1]).isLessThanOrEqualTo(c[7]);
        if (c[1] > 0) {
          assertThat(c[5]).as(line).isCloseTo(c[4] / c[1], within(0.02));
          assertThat(c[2]).isLessThanOrEqualTo(c[5] + 0.01);
          assertThat(c[5]).isLessThanOrEqualTo(c[3] + 0.01);
        }
        if (c[7] > 0) {
          assertThat(c[11]).as(line).isCloseTo(c[10] / c[7], within(0.02));
          assertThat(c[8]).isLessThanOrEqualTo(c[11] + 0.01);
          assertThat(c[11]).isLessThanOrEqualTo(c[9] + 0.01);
        }
        JsonNode own = null;
        for (JsonNode l : locks) {
          if (l.get("class").asText().equals(m.group(1))) {
            own = l;
          }
        }
        assertThat(own).as(label + ": " + m.group(1)).isNotNull();
        assertThat((long) c[1]).isEqualTo(own.get("contentions").asLong());
        assertThat((long) c[7]).isEqualTo(own.get("acquisitions").asLong());
        assertThat(c[4]).isCloseTo(own.get("waittime_total_ns").asLong() / 1e3, within(0.01));
        assertThat((long) c[12]).isEqualTo(own.get("halts").asLong());
        assertThat((long) c[13]).isEqualTo(own.get("kicks").asLong());
      }
      assertThat(rows).as(label).isEqualTo(locks.size()).isPositive();
    }
  }

  @Test
  void trace_everyRunHasABoundedChromeTrace_withSlicesOnCpuTracks() throws IOException {
    for (String label : labels()) {
      JsonNode trace = MAPPER.readTree(runs("a").resolve(label).resolve("trace.json").toFile());
      JsonNode events = trace.isArray() ? trace : trace.get("traceEvents");
      assertThat(events).as(label).isNotNull();
      long slices = 0;
      for (JsonNode e : events) {
        assertThat(e.has("ph")).as(label + " event phase").isTrue();
        if (e.get("ph").asText().equals("X")) {
          slices++;
          assertThat(e.get("dur").asDouble()).as(label + " slice duration").isNotNegative();
        }
      }
      assertThat(slices).as(label + " complete slices").isPositive();
      // the bound counts recorded events (a slice is drawn on its CPU's and its thread's track)
      assertThat(trace.at("/metadata/events").asInt()).as(label + " recorded events").isPositive()
          .isLessThanOrEqualTo(TRACE_EVENTS);
      if (trace.at("/metadata/truncated").asBoolean()) {
        assertThat(events.toString()).as(label).contains("trace truncated at " + TRACE_EVENTS + " events");
      }
    }
  }

  @Test
  void trace_withoutOut_exit2OneLine() {
    Run run = CliFixture.run(ReproduceOutputFilesTest.class.getClassLoader(), "reproduce", NAME, "--quick", "--trace");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.errLines()).singleElement().asString().contains("--trace needs --out");
  }

  @Test
  void progress_goesToStderrOnly_andStdoutStaysOneJsonDocument() throws IOException {
    List<String> progress = first.errLines().stream().filter(l -> l.startsWith("reproduce " + NAME + ": run "))
        .toList();
    assertThat(progress).hasSize(labels().size());
    assertThat(progress.get(progress.size() - 1)).matches(
        "reproduce virtio-blk-notify: run \\S+ done \\(10/10\\), [0-9.]+ s elapsed, ETA 0\\.0 s");
    assertThat(first.out()).doesNotContain("elapsed", "ETA");
    JsonNode out = MAPPER.readTree(first.out());
    assertThat(out.get("experiment").asText()).isEqualTo(NAME);
    assertThat(out.get("rows")).hasSize(ROWS.size());
  }
}
