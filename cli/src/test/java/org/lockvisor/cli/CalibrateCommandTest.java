package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.withinPercentage;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.lockvisor.cli.CliFixture.Run;
import org.lockvisor.studies.calibrate.MeasuredFigures;

/**
 * {@code lockvisor calibrate}: a parameter planted in a simulated target is recovered within the
 * optimiser's tolerance when the target is a real tool's file ({@code fio --output-format=json}
 * with two jobs, and {@code iperf3 -J}, made on this machine, see {@code real-tools/README.md}) whose figures are
 * replaced by those of a run at the planted value; every variant other than the baseline is
 * predicted and all three outputs are written; and every bad input (a parameter that is not a path
 * or cost key of the experiment, a range the experiment refuses, a target in no known format, a
 * figure the target lacks or the experiment can not produce) is one line and exit 2, before any
 * simulation and before the output directory exists.
 */
class CalibrateCommandTest {

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final String BLK = "../examples/experiments/quick-virtio-blk.yaml";
  private static final String NET = "../examples/experiments/quick-vhost-net.yaml";
  private static final Path REAL = Path.of("../reports/src/test/resources/real-tools");
  private static final String FIO_REAL = REAL.resolve("fio-3.33-randread-numjobs2.json").toString();
  private static final String IPERF_REAL = REAL.resolve("iperf3-3.12-client.json").toString();

  @TempDir
  Path temp;

  /** The figures of a run of {@code file}'s baseline with {@code set}, read from its file {@code name}. */
  private Map<String, Double> simulated(String file, String set, String name) {
    Path dir = temp.resolve("planted");
    Run run = CliFixture.run("run", file, "--variant", "base", "--set", set, "--out", dir.toString());
    assertThat(run.exitCode()).as(run.err()).isZero();
    try {
      return MeasuredFigures.parse(name, Files.readAllBytes(dir.resolve(name)));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void realFioJson_plantedInjectionCostRecovered_variantsPredicted() throws IOException {
    Map<String, Double> planted = simulated(BLK, "cost.x86_64-kvm.IRQ_INJECT=3500", "fio-vm0-fio.json");
    // The real fio file (plain json, two jobs): each job's figures replaced by half the planted
    // run's totals and its mean latencies.
    ObjectNode real = (ObjectNode) MAPPER.readTree(Files.readString(Path.of(FIO_REAL)));
    assertThat(real.get("jobs")).hasSize(2);
    for (JsonNode job : real.get("jobs")) {
      ObjectNode read = (ObjectNode) job.get("read");
      read.put("iops", planted.get("fio.read.iops") / 2);
      read.put("bw", planted.get("fio.read.bw_kib") / 2);
      ((ObjectNode) read.get("clat_ns")).put("mean", planted.get("fio.read.clat_mean_us") * 1000);
      ((ObjectNode) read.get("lat_ns")).put("mean", planted.get("fio.read.lat_mean_us") * 1000);
    }
    Path target = temp.resolve("fio-target.json");
    Files.writeString(target, MAPPER.writeValueAsString(real));
    Path out = temp.resolve("out");

    Run run = CliFixture.run("calibrate", BLK, "--target", target.toString(),
        "--params", "cost.x86_64-kvm.IRQ_INJECT=1500..5000", "--figures", "fio.read.iops,fio.read.clat_mean_us",
        "--seeds", "1", "--out", out.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode json = MAPPER.readTree(out.resolve("calibration.json").toFile());
    JsonNode p = json.get("parameters").get(0);
    assertThat(p.get("name").asText()).isEqualTo("cost.x86_64-kvm.IRQ_INJECT");
    // Brent's tolerance is 1e-4 of the range, but a discrete-event run's figures are a step
    // function of a cost: the optimum is a plateau around the planted value, several % wide. Since
    // QEMU 2.0's main loop is priced iteration by iteration (issue 33) the injection is a smaller
    // share of the loop's work per completion in this 3 ms run, and the plateau about 8 % wide.
    assertThat(p.get("value").asDouble()).isCloseTo(3500, within(0.10 * 3500));
    assertThat(json.get("objective").asDouble()).isLessThan(1e-3);
    assertThat(json.get("baseline").asText()).isEqualTo("base");
    List<String> predicted = json.get("predictions").findValuesAsText("variant");
    assertThat(predicted).containsOnly("inside-lock", "arm64").contains("inside-lock", "arm64");
    // R2's directions at the example's numjobs=4, predicted at the fitted point: with the notify
    // inside vq_lock and an exit to the VMM under its lock (arm64, 2014) IOPS drop; on x86 the
    // seed mail saw "no obvious difference" above numjobs=2.
    double armIops = predictionOf(json, "arm64", "fio.read.iops").get("mean").asDouble();
    double insideIops = predictionOf(json, "inside-lock", "fio.read.iops").get("mean").asDouble();
    assertThat(armIops).isLessThan(0.9 * planted.get("fio.read.iops"));
    assertThat(insideIops).isCloseTo(planted.get("fio.read.iops"), withinPercentage(10));
    assertThat(Files.readString(out.resolve("calibration.txt"))).contains("IRQ_INJECT", "inside-lock");
    assertThat(Files.readString(out.resolve("report.html"))).contains("Calibrate, then predict", "IRQ_INJECT");
  }

  @Test
  void realIperf3Json_plantedLineRateRecovered_withSeedsAndIntervals() throws IOException {
    Map<String, Double> planted = simulated(NET, "vms[0].devices[0].options.line-rate-mbps=6000",
        "iperf3-vm0-iperf.json");
    ObjectNode real = (ObjectNode) MAPPER.readTree(Files.readString(Path.of(IPERF_REAL)));
    ObjectNode end = (ObjectNode) real.get("end");
    ((ObjectNode) end.get("sum_sent")).put("bits_per_second", planted.get("iperf3.sent_gbps") * 1e9);
    ((ObjectNode) end.get("sum_received")).put("bits_per_second", planted.get("iperf3.received_gbps") * 1e9);
    Path target = temp.resolve("iperf3-target.json");
    Files.writeString(target, MAPPER.writeValueAsString(real));
    Path out = temp.resolve("out");

    Run run = CliFixture.run("calibrate", NET, "--target", target.toString(),
        "--params", "vms[0].devices[0].options.line-rate-mbps=2000..10000", "--figures", "iperf3.sent_gbps",
        "--seeds", "2", "--jobs", "2", "--out", out.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode json = MAPPER.readTree(out.resolve("calibration.json").toFile());
    // A whole-number parameter, link-limited throughput: the planted rate within 5%.
    assertThat(json.get("parameters").get(0).get("value").asDouble()).isCloseTo(6000, within(300.0));
    JsonNode oneStream = predictionOf(json, "one-stream", "iperf3.sent_gbps");
    assertThat(oneStream.get("low").asDouble()).isLessThanOrEqualTo(oneStream.get("mean").asDouble());
    assertThat(oneStream.get("high").asDouble()).isGreaterThanOrEqualTo(oneStream.get("mean").asDouble());
    assertThat(json.get("seeds")).hasSize(2);
  }

  private static JsonNode predictionOf(JsonNode json, String variant, String figure) {
    for (JsonNode p : json.get("predictions")) {
      if (p.get("variant").asText().equals(variant) && p.get("figure").asText().equals(figure)) {
        return p;
      }
    }
    throw new AssertionError("no prediction of " + figure + " for " + variant + " in " + json);
  }

  static Stream<Arguments> badInputs() {
    return Stream.of(
        Arguments.of("notAPath", List.of("--params", "vms[0].devices[0].options.no-such=1..5"),
            List.of("--params", "no-such")),
        Arguments.of("unknownCostKey", List.of("--params", "cost.x86_64-kvm.IRQ_INJEKT=1..5"),
            List.of("--params", "IRQ_INJEKT", "did you mean")),
        Arguments.of("profileNotUsed", List.of("--params", "cost.s390x-kvm.IRQ_INJECT=1000..2000"),
            List.of("s390x-kvm")),
        Arguments.of("rangeRefused", List.of("--params", "vms[0].vcpus=0..4"),
            List.of("--params", "vms[0].vcpus")),
        Arguments.of("outsideDeclaredRange", List.of("--params", "cost.x86_64-kvm.IRQ_INJECT=1000..5000"),
            List.of("outside the declared", "1500-5000")),
        Arguments.of("costWithoutRange", List.of("--params", "cost.x86_64-kvm.VMEXIT_ROUNDTRIP=1000..3000"),
            List.of("declares no range")),
        Arguments.of("noRangeOnAPath", List.of("--params", "vms[0].vcpus"),
            List.of("[vms[0].vcpus] has no range", "only a cost.<profile>.<KEY> estimate brings its own")),
        // a bare estimate takes its own range (as sweep --envelope does): the check after it speaks
        Arguments.of("bareCostTakesItsRange", List.of("--params", "cost.x86_64-kvm.IRQ_INJECT", "--target",
            IPERF_REAL), List.of("not producible", "iperf3.sent_gbps")),
        Arguments.of("bareCostWithoutRange", List.of("--params", "cost.x86_64-kvm.VMEXIT_ROUNDTRIP"),
            List.of("declares no range")),
        Arguments.of("emptyRange", List.of("--params", "cost.x86_64-kvm.IRQ_INJECT=5..5"),
            List.of("LOW < HIGH")),
        Arguments.of("figureNotInTarget", List.of("--figures", "fio.read.iopz"),
            List.of("--figures", "fio.read.iopz", "fio.read.iops")),
        Arguments.of("figureNotProducible", List.of("--target", IPERF_REAL),
            List.of("not producible", "iperf3.sent_gbps", "iperf workloads")),
        Arguments.of("wrongFormat", List.of("--target", BLK), List.of(BLK, "not a finite number")),
        Arguments.of("missingTarget", List.of("--target", "no-such-file.json"), List.of("no such file")),
        Arguments.of("unknownBaseline", List.of("--baseline", "inside-lok"), List.of("--baseline", "inside-lok")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badInputs")
  void badInput_oneLineExit2_beforeAnythingRuns(String name, List<String> change, List<String> fragments) {
    Path out = temp.resolve("out");
    List<String> args = new java.util.ArrayList<>(List.of("calibrate", BLK, "--target", FIO_REAL,
        "--params", "cost.x86_64-kvm.IRQ_INJECT=1500..5000", "--out", out.toString()));
    for (int i = 0; i < change.size(); i += 2) {
      int at = args.indexOf(change.get(i));
      if (at >= 0) {
        args.set(at + 1, change.get(i + 1));
      } else {
        args.add(change.get(i));
        args.add(change.get(i + 1));
      }
    }
    Run run = CliFixture.run(args.toArray(String[]::new));

    assertThat(run.exitCode()).as("exit code; stderr: %s", run.err()).isEqualTo(2);
    assertThat(run.errLines()).hasSize(1);
    assertThat(run.err()).startsWith("lockvisor: ").contains(fragments).doesNotContain("\tat ", "Exception");
    assertThat(out).doesNotExist();
  }
}
