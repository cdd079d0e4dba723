package org.lockvisor.reproductions.vcpupreempted;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.lockvisor.reproductions.support.ShippedExperiment;

/**
 * Properties of the verdict's scale (issue 37): the shipped PowerVM file holds the full scale's
 * {@code -g} and run limit, so {@code lockvisor run} of the file and {@code reproduce
 * vcpu-preempted} are the same machine; the runs start longest first, each job exactly once.
 * Nothing is simulated here.
 */
class FullScaleTest {

  private static final VcpuPreemptedReproduction R3 = new VcpuPreemptedReproduction();

  @Test
  void shippedPowervmFile_holdsTheFullScalesGroupsAndLimit() {
    // the file's tree as shipped (no runner: nothing is validated or built here)
    JsonNode tree = ShippedExperiment.load(R3, VcpuPreemptedReproduction.POWERVM_FILE).tree();

    assertThat(tree.at("/vms/0/workloads/0/options/groups").asInt()).isEqualTo(Scale.FULL.powervmGroups());
    assertThat(tree.at("/max-duration").asText()).isEqualTo(Scale.FULL.limitNs() / 1_000_000_000L + "s");
    assertThat(Scale.QUICK.powervmGroups()).as("--quick stays small: the tests run it")
        .isLessThan(Scale.FULL.powervmGroups() / 10);
  }

  @Test
  void longestFirst_everyPowervmRunBeforeAnyKvmRun_eachJobOnce() {
    List<Integer> order = VcpuPreemptedReproduction.longestFirst(3);

    assertThat(order).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
    // jobs per seed: PowerVM baseline, PowerVM patched, KVM baseline, KVM patched
    assertThat(order.subList(0, 6)).allSatisfy(i -> assertThat(i % 4).isLessThan(2));
    assertThat(order.subList(0, 3)).as("the patched runs, the longest").allSatisfy(i -> assertThat(i % 4).isOne());
  }
}
