package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.lockvisor.cli.CliFixture.Run;

/**
 * {@code reproduce NAME --calibrate}: a reproduction's declared cost is fitted to its published
 * baseline column (recovering the value the published figure was made at), the patched column is
 * predicted and judged, the three outputs are written under {@code DIR/<name>/}; a parameter that
 * is not declared, a range outside the declared one, {@code --set} or {@code --params} in the
 * wrong place, or a reproduction that declares nothing to fit is one line and exit 2 before
 * anything runs.
 */
class ReproduceCalibrateTest {

  private static final ObjectMapper MAPPER = new ObjectMapper();

  @TempDir
  Path temp;

  private ClassLoader fakes() {
    return CliFixture.withReproductions(temp.resolve("plugins"), FakeReproductions.Calibratable.class,
        FakeReproductions.WithParameter.class);
  }

  @Test
  void calibrate_fitsTheBaselineColumn_predictsAndJudgesThePatchedOne() throws IOException {
    Path out = temp.resolve("out");
    Run run = CliFixture.run(fakes(), "reproduce", "fake-calibratable", "--calibrate", "--seeds", "2",
        "--format", "json", "--out", out.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode json = MAPPER.readTree(run.out());
    assertThat(json.get("name").asText()).isEqualTo("fake-calibratable");
    JsonNode p = json.get("parameters").get(0);
    assertThat(p.get("name").asText()).isEqualTo("cost.x86_64-kvm.TTWU_FULL");
    // published baseline = the figure at 1200 ns; the range (500-1500) is the profile's estimate
    assertThat(p.get("value").asDouble()).isCloseTo(1200, within(15.0));
    assertThat(p.get("low").asDouble()).isEqualTo(500);
    assertThat(json.get("baseline_figures").has("base.rate")).isTrue();
    assertThat(json.get("baseline_figures").has("patched.rate")).isFalse();
    JsonNode predicted = json.get("predictions").get(0);
    assertThat(predicted.get("figure").asText()).isEqualTo("patched.rate");
    assertThat(predicted.get("met").asBoolean()).isTrue();
    assertThat(out.resolve("fake-calibratable/calibration.json")).exists();
    assertThat(out.resolve("fake-calibratable/calibration.txt")).exists();
    assertThat(Files.readString(out.resolve("fake-calibratable/report.html"))).contains("Calibrate, then predict");
  }

  static Stream<Arguments> badInputs() {
    return Stream.of(
        Arguments.of(List.of("reproduce", "fake-calibratable", "--calibrate", "--params", "level"),
            List.of("--params", "[level]")),
        Arguments.of(List.of("reproduce", "fake-calibratable", "--calibrate", "--params",
            "cost.x86_64-kvm.TTWU_FULL=100..1500"), List.of("outside the declared", "500")),
        Arguments.of(List.of("reproduce", "fake-calibratable", "--calibrate", "--params", "cost.x86_64-kvm.TTWU_FUL"),
            List.of("TTWU_FUL", "did you mean")),
        Arguments.of(List.of("reproduce", "fake-calibratable", "--calibrate", "--params", "cost.s390x-kvm.TTWU_FULL"),
            List.of("builds no machine", "s390x-kvm")),
        Arguments.of(List.of("reproduce", "fake-calibratable", "--calibrate", "--set", "seed=3"),
            List.of("--set and --calibrate")),
        Arguments.of(List.of("reproduce", "fake-calibratable", "--params", "cost.x86_64-kvm.TTWU_FULL"),
            List.of("also with --calibrate")),
        Arguments.of(List.of("reproduce", "fake-calibratable", "--calibrate", "--envelope"),
            List.of("--calibrate and --envelope")),
        Arguments.of(List.of("reproduce", "fake-calibratable", "--calibrate", "--samples", "8"),
            List.of("options of --envelope")),
        Arguments.of(List.of("reproduce", "fake-calibratable", "--calibrate", "--params",
            "cost.x86_64-kvm.TTWU_FULL=600|900"), List.of("set of values")),
        Arguments.of(List.of("reproduce", "fake-param", "--calibrate"),
            List.of("declares no calibration parameters")));
  }

  @ParameterizedTest
  @MethodSource("badInputs")
  void badInput_oneLineExit2_beforeAnythingRuns(List<String> args, List<String> fragments) {
    Path out = temp.resolve("out");
    List<String> all = new java.util.ArrayList<>(args);
    all.add("--out");
    all.add(out.toString());
    Run run = CliFixture.run(fakes(), all.toArray(String[]::new));

    assertThat(run.exitCode()).as("exit code; stderr: %s", run.err()).isEqualTo(2);
    assertThat(run.errLines()).hasSize(1);
    assertThat(run.err()).startsWith("lockvisor: ").contains(fragments).doesNotContain("\tat ", "Exception");
    assertThat(out).doesNotExist();
  }
}
