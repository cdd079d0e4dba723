package org.lockvisor.reproductions.vhost;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.lockvisor.devices.vhostnet.VhostNetConfig.WorkQueue;

/** The R1 scenario is a pure function of (configuration, seed); the llist variant runs too. */
class VhostScenarioTest {

  private static long fingerprint(long seed) {
    return new VhostScenario(seed, 4, 8, WorkQueue.WAKE_INSIDE_LOCK).run(20_000_000L, 10_000_000L)
        .machine.sim().fingerprint();
  }

  @Test
  void sameSeed_sameEventHistory() {
    assertThat(fingerprint(5)).isEqualTo(fingerprint(5));
  }

  @Test
  void llistVariant_runsWithoutWorkLock() {
    VhostScenario s = new VhostScenario(5, 4, 8, WorkQueue.LLIST).run(30_000_000L, 20_000_000L);
    assertThat(s.device.workLock()).isNull();
    assertThat(s.iperf.throughputGbps()).isBetween(9.0, 9.8);
  }
}
