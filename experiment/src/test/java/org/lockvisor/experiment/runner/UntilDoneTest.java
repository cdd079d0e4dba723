package org.lockvisor.experiment.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.experiment.SimulationFailedException;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.model.ExperimentYaml;
import org.lockvisor.experiment.model.InvalidExperimentException;
import org.lockvisor.experiment.model.Problem;

/**
 * {@code duration: until-done}: the measurement ends at the first check after the last workload
 * finished, reports when that was, adds no event of its own (the run equals a fixed run of the
 * same length), refuses workloads that never end, and fails a run that hits its cap.
 */
class UntilDoneTest {

  /** One group of perf bench sched messaging with few loops: it ends within a few ms. */
  static final String YAML = """
      name: until-done
      arch: x86_64-kvm
      seed: 3
      warmup: 0
      duration: until-done
      max-duration: 2s
      done-check-interval: 500us
      host: {cpus: 2, scheduler: cfs}
      vms:
        - name: vm0
          vcpus: 4
          locks: {mutex: mutex-count}
          workloads:
            - name: sm
              type: sched-messaging
              options: {groups: 1, fds: 4, loops: 20}
      """;

  private final ExperimentRunner runner = new ExperimentRunner(
      ExperimentPlugins.discover(getClass().getClassLoader()));

  private Experiment experiment(String yaml, String... overrides) {
    ObjectNode tree = (ObjectNode) ExperimentYaml.parse("t.yaml", yaml);
    for (int i = 0; i < overrides.length; i += 2) {
      assertThat(ExperimentYaml.set(tree, overrides[i], overrides[i + 1])).isNull();
    }
    return runner.validateTree("t.yaml", tree);
  }

  private List<Problem> problems(String yaml, String... overrides) {
    try {
      experiment(yaml, overrides);
      return List.of();
    } catch (InvalidExperimentException e) {
      return e.problems();
    }
  }

  @Test
  void runsToCompletion_reportsTheFinish_deterministically() {
    Experiment e = experiment(YAML);
    ExperimentResult r = runner.run(e, "base");
    ExperimentResult again = runner.run(e, "base");
    ExperimentResult.WorkloadResult sm = r.workload("vm0", "sm");

    assertThat(sm.figures().get("exited").intValue()).isEqualTo(8);
    assertThat(sm.figures().get("messages_read").longValue()).isEqualTo(4 * 4 * 20);
    double totalS = sm.figures().get("total_time_s").doubleValue();
    assertThat(totalS).as("perf's Total time").isPositive();
    assertThat(r.finishedNs()).isEqualTo(sm.finishedNs()).isPositive();
    assertThat(r.finishedNs() / 1e9).as("finished after the total time from the start")
        .isGreaterThanOrEqualTo(totalS);
    // the measurement ends at the first 500 us check at or after the finish
    long end = r.warmupNs() + r.simulatedNs();
    assertThat(end % 500_000).isZero();
    assertThat(end).isGreaterThanOrEqualTo(r.finishedNs()).isLessThan(r.finishedNs() + 500_000);
    assertThat(again.events()).isEqualTo(r.events());
    assertThat(again.fingerprint()).isEqualTo(r.fingerprint());
    assertThat(again.finishedNs()).isEqualTo(r.finishedNs());
    assertThat(ResultJson.run(r).get("finished_ns").asLong()).isEqualTo(r.finishedNs());
    assertThat(ResultJson.run(r).at("/workloads/0/finished_ns").asLong()).isEqualTo(r.finishedNs());

    // no event of its own: a fixed window of the same length processes the same events
    ExperimentResult fixed = runner.run(experiment(YAML, "duration", end + ""), "base");
    assertThat(fixed.events()).isEqualTo(r.events());
    assertThat(fixed.fingerprint()).isEqualTo(r.fingerprint());
    assertThat(fixed.finishedNs()).isEqualTo(-1);
    assertThat(ResultJson.run(fixed).has("finished_ns")).isFalse();
  }

  @Test
  void coarserChecks_sameFinish_laterEnd() {
    ExperimentResult fine = runner.run(experiment(YAML), "base");
    ExperimentResult coarse = runner.run(experiment(YAML, "done-check-interval", "20ms"), "base");
    assertThat(coarse.finishedNs()).isEqualTo(fine.finishedNs());
    assertThat(coarse.workload("vm0", "sm").figures().get("total_time_s"))
        .isEqualTo(fine.workload("vm0", "sm").figures().get("total_time_s"));
    assertThat(coarse.simulatedNs()).isEqualTo(20_000_000);
    assertThat(coarse.events()).isGreaterThan(fine.events());
  }

  @Test
  void twoWorkloads_theRunEndsWithTheLastOne() {
    Experiment e = experiment(YAML, "vms[0].devices", "[{name: vdb, type: virtio-blk}]", "vms[0].workloads[1]",
        "{name: job, type: fio, options: {numjobs: 2, iodepth: 4, number-ios: 400}}");
    ExperimentResult r = runner.run(e, "base");
    long sm = r.workload("vm0", "sm").finishedNs();
    long fio = r.workload("vm0", "job").finishedNs();
    assertThat(sm).isPositive();
    assertThat(fio).isPositive();
    assertThat(r.finishedNs()).isEqualTo(Math.max(sm, fio));
    assertThat(r.workload("vm0", "job").figures().get("completed").longValue()).isEqualTo(2 * 400);
    assertThat(r.warmupNs() + r.simulatedNs()).isGreaterThanOrEqualTo(r.finishedNs())
        .isLessThan(r.finishedNs() + 500_000);
  }

  @Test
  void fioWithoutNumberIos_isRefusedAtItsOptions() {
    List<Problem> problems = problems(YAML, "vms[0].devices", "[{name: vdb, type: virtio-blk}]",
        "vms[0].workloads[1]", "{name: job, type: fio, options: {iodepth: 4}}");
    assertThat(problems).singleElement().satisfies(p -> {
      assertThat(p.path()).isEqualTo("vms[0].workloads[1].options");
      assertThat(p.message()).contains("[fio] as configured does not end on its own",
          "lockvisor plugins --options fio");
    });
  }

  @Test
  void builderAndYaml_sameModel_roundTrip() {
    Experiment built = Experiment.builder("until-done").arch("x86_64-kvm").seed(3).warmupNs(0)
        .untilDone(2_000_000_000L).doneCheckIntervalNs(500_000)
        .host(2, "cfs")
        .vm("vm0", vm -> vm.vcpus(4).mutex("mutex-count")
            .workload("sm", "sched-messaging", Map.of("groups", "1", "fds", "4", "loops", "20")))
        .build();
    Experiment read = ExperimentYaml.read("t.yaml", YAML);
    assertThat(read).isEqualTo(built);
    assertThat(read.untilDone()).isTrue();
    assertThat(ExperimentYaml.read("again", ExperimentYaml.write(built))).isEqualTo(built);
    assertThat(ExperimentYaml.write(built)).contains("duration: until-done", "max-duration: 2s");
    // a fixed duration given afterwards wins; the cap is then unused
    assertThat(built.toBuilder().durationNs(5_000_000).build().untilDone()).isFalse();
  }

  @Test
  void fixedDurationOverride_ignoresTheCap() {
    Experiment e = experiment(YAML, "duration", "3ms");
    assertThat(e.untilDone()).isFalse();
    assertThat(runner.run(e, "base").simulatedNs()).isEqualTo(3_000_000);
  }

  @Test
  void workloadThatNeverEnds_isRefusedAtItsType() {
    List<Problem> problems = problems(YAML, "vms[0].workloads[1]",
        "{name: t, type: locktorture, options: {nwriters: 2}}");
    assertThat(problems).singleElement().satisfies(p -> {
      assertThat(p.path()).isEqualTo("vms[0].workloads[1].type");
      assertThat(p.message()).contains("[locktorture] runs until the experiment stops it",
          "[duration: until-done]", "workloads that end on their own: [fio, sched-messaging]", "[100ms]");
    });
    // the same workload with a fixed window is fine
    assertThat(problems(YAML, "vms[0].workloads[1]", "{name: t, type: locktorture, options: {nwriters: 2}}",
        "duration", "2ms")).isEmpty();
  }

  @Test
  void variantThatTurnsUntilDoneOn_isCheckedToo() {
    String yaml = YAML.replace("duration: until-done", "duration: 2ms")
        .replace("options: {groups: 1, fds: 4, loops: 20}", "options: {groups: 1, fds: 4, loops: 20}\n"
            + "      - {name: t, type: locktorture, options: {nwriters: 2}}")
        + "variants:\n  done:\n    duration: until-done\n";
    assertThat(problems(yaml)).extracting(Problem::path).containsExactly("variants.done.vms[0].workloads[1].type");
  }

  @Test
  void badValues_pathAllowedValuesAndSuggestion() {
    assertThat(problems(YAML, "duration", "until_done")).singleElement().satisfies(p -> {
      assertThat(p.path()).isEqualTo("duration");
      assertThat(p.message()).contains("[until_done]", "[until-done]", "did you mean [until-done]?");
    });
    assertThat(problems(YAML, "max-duration", "-1")).extracting(Problem::path).containsExactly("max-duration");
    assertThat(problems(YAML, "max-duration", "forever")).singleElement().extracting(Problem::message).asString()
        .contains("expected a duration", "[forever]");
    assertThat(problems(YAML, "max-duration", "3601s")).singleElement().extracting(Problem::message).asString()
        .contains("at most [3600s]");
    assertThat(problems(YAML, "done-check-interval", "0")).extracting(Problem::path)
        .containsExactly("done-check-interval");
    assertThat(problems(YAML, "done-check-interval", "3s")).singleElement().extracting(Problem::message).asString()
        .contains("longer than max-duration [2s]", "allowed: (0, 2s]");
    assertThat(problems(YAML, "max-duraton", "1s")).singleElement().extracting(Problem::message).asString()
        .contains("did you mean [max-duration]?");
    assertThat(problems(YAML, "vms[0].workloads", "[]")).singleElement().extracting(Problem::message).asString()
        .contains("no VM has a workload");
  }

  @Test
  void capReached_failsTheRunNamingTheWorkload() {
    Experiment e = experiment(YAML, "max-duration", "400us", "done-check-interval", "100us");
    assertThatThrownBy(() -> runner.run(e, "base")).isInstanceOf(SimulationFailedException.class)
        .hasMessageContaining("1 of 1 workloads still running after max-duration [400us]")
        .hasMessageContaining("vm0/sm (sched-messaging)");
  }

  @Test
  void finishedDuringWarmup_failsTheRun() {
    Experiment e = experiment(YAML, "warmup", "1s");
    assertThatThrownBy(() -> runner.run(e, "base")).isInstanceOf(SimulationFailedException.class)
        .hasMessageContaining("every workload finished during the warm-up");
  }
}
