package org.lockvisor.experiment.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.lockvisor.experiment.runner.ExperimentRunner;
import org.lockvisor.experiment.runner.RunObserver;
import org.lockvisor.machine.Machine;

/**
 * {@code vms[i].kernel.hz}: the guest's CONFIG_HZ (4.8 kernel/Kconfig.hz: HZ_100, HZ_250, HZ_1000)
 * sets the guest tick's period to 1e9 / HZ; left out, the arch profile's guestHz; any other value,
 * or the key on the host, is refused before anything runs.
 */
class GuestHzTest {

  static final String YAML = """
      name: hz
      arch: x86_64-kvm
      seed: 1
      warmup: 0
      duration: 30ms
      host: {cpus: 2}
      vms:
        - name: vm0
          vcpus: 2
          kernel: {HZ}
          workloads:
            - name: hb
              type: sched-messaging
              options: {groups: 1, fds: 2, loops: 2}
      """;

  private final ExperimentPlugins plugins = ExperimentPlugins.discover(getClass().getClassLoader());

  private static String yaml(String kernel) {
    return YAML.replace("{HZ}", kernel);
  }

  private List<Problem> problems(String yaml) {
    try {
      new ExperimentRunner(plugins).validateTree("t.yaml", ExperimentYaml.parse("t.yaml", yaml));
      return List.of();
    } catch (InvalidExperimentException e) {
      return e.problems();
    }
  }

  /** The guest tick period the assembled machine runs with, and the guest ticks taken in 30 ms. */
  private long guestTickNs(String yaml) {
    List<Long> seen = new ArrayList<>();
    RunObserver observer = new RunObserver() {
      @Override
      public void measurementStarted(Machine machine) {
        seen.add(machine.vms().get(0).guest().config().tickNs());
      }
    };
    new ExperimentRunner(plugins).run(ExperimentYaml.read("t.yaml", yaml), "base", observer);
    return seen.get(0);
  }

  @Test
  void hz_setsTheGuestTickPeriod_leftOut_theProfilesGuestHz() {
    assertThat(guestTickNs(yaml("{hz: 100}"))).isEqualTo(10_000_000L);
    assertThat(guestTickNs(yaml("{hz: 250}"))).isEqualTo(4_000_000L);
    assertThat(guestTickNs(yaml("{hz: 1000}"))).isEqualTo(1_000_000L);
    // x86_64-kvm's guestHz is 250
    assertThat(guestTickNs(yaml("{}"))).isEqualTo(4_000_000L);
  }

  @Test
  void hz_roundTrips_andIsLeftOutWhenNotGiven() {
    Experiment e = ExperimentYaml.read("t", yaml("{hz: 1000}"));
    assertThat(e.vms().get(0).kernel().hz()).isEqualTo(1000);
    assertThat(ExperimentYaml.read("again", ExperimentYaml.write(e))).isEqualTo(e);
    Experiment plain = ExperimentYaml.read("t", yaml("{}"));
    assertThat(plain.vms().get(0).kernel().hz()).isNull();
    assertThat(ExperimentYaml.write(plain)).doesNotContain("hz:");
  }

  @Test
  void hz_otherThanTheKconfigChoices_isRefused_naming100_250_1000() {
    assertThat(problems(yaml("{hz: 300}"))).singleElement().satisfies(p -> {
      assertThat(p.path()).isEqualTo("vms[0].kernel.hz");
      assertThat(p.message()).contains("[300]").contains("[100, 250, 1000]");
    });
    assertThat(problems(yaml("{hz: 100}"))).isEmpty();
  }

  @Test
  void hz_onTheHost_isRefused() {
    String onHost = yaml("{}").replace("host: {cpus: 2}", "host: {cpus: 2, kernel: {hz: 250}}");
    assertThat(problems(onHost)).extracting(Problem::path).containsExactly("host.kernel.hz");
  }
}
