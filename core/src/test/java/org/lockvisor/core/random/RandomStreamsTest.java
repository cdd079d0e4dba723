package org.lockvisor.core.random;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Named streams are reproducible, independent of each other, and depend on the root seed. */
class RandomStreamsTest {

  @Test
  void get_sameNameSameSeed_sameSequence() {
    assertThat(new RandomStreams(5).get("a/b").nextLong()).isEqualTo(new RandomStreams(5).get("a/b").nextLong());
  }

  @Test
  void get_differentNamesOrSeeds_differentSequences() {
    RandomStreams s = new RandomStreams(5);
    assertThat(s.get("a").nextLong()).isNotEqualTo(s.get("b").nextLong());
    assertThat(new RandomStreams(6).get("a").nextLong()).isNotEqualTo(s.get("a").nextLong());
  }

  @Test
  void get_otherStreamsCreatedFirst_doNotPerturbThisStream() {
    // Adding a component (a new named stream) must not change the numbers any other one sees.
    RandomStreams alone = new RandomStreams(1);
    long expected = alone.get("vm0/vcpu0").nextLong();
    RandomStreams crowded = new RandomStreams(1);
    crowded.get("vm0/vcpu1").nextLong();
    crowded.get("host/tick").nextLong();
    assertThat(crowded.get("vm0/vcpu0").nextLong()).isEqualTo(expected);
    assertThat(crowded.seedFor("vm0/vcpu0")).isNotEqualTo(crowded.seedFor("vm0/vcpu1"));
  }

  @Test
  void exponential_meanIsClose() {
    var r = new RandomStreams(3).get("exp");
    double sum = 0;
    int n = 200_000;
    for (int i = 0; i < n; i++) {
      sum += RandomStreams.exponential(r, 1000);
    }
    assertThat(sum / n).isBetween(990.0, 1010.0);
  }
}
