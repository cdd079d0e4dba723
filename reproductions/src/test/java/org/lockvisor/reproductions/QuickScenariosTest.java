package org.lockvisor.reproductions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.lockvisor.reproductions.support.QuickScenario;

/**
 * The public entry to the quick scenarios runs a whole machine per call, deterministically (a
 * benchmark times the same work every invocation), and refuses a platform the reproduction has no
 * quick scenario for.
 */
class QuickScenariosTest {

  @Test
  void virtioBlkNotify_runTwice_sameEventsAndFingerprint() {
    QuickScenario scenario = QuickScenarios.virtioBlkNotify("x86_64-kvm");

    QuickScenario.Outcome first = scenario.run();
    QuickScenario.Outcome second = scenario.run();

    assertThat(first.events()).isPositive();
    assertThat(first.simulatedNs()).isPositive();
    assertThat(second).isEqualTo(first);
  }

  @Test
  void virtioBlkNotify_otherPlatform_refusedNamingTheKnownOnes() {
    assertThatThrownBy(() -> QuickScenarios.virtioBlkNotify("s390x-kvm"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[s390x-kvm]")
        .hasMessageContaining("arm64-kvm, x86_64-kvm");
  }

  @Test
  void vcpuPreempted_otherPlatform_refused() {
    assertThatThrownBy(() -> QuickScenarios.vcpuPreempted("arm64-kvm"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[arm64-kvm]");
  }

  @Test
  void vhostWakeup_runTwice_sameEventsAndFingerprint() {
    QuickScenario scenario = QuickScenarios.vhostWakeup(1);

    QuickScenario.Outcome first = scenario.run();

    assertThat(first.events()).isPositive();
    assertThat(first.simulatedNs()).isEqualTo(210_000_000L);
    assertThat(scenario.run()).isEqualTo(first);
  }

  @Test
  void vhostWakeup_noStreams_refused() {
    assertThatThrownBy(() -> QuickScenarios.vhostWakeup(0)).isInstanceOf(IllegalArgumentException.class);
  }
}
