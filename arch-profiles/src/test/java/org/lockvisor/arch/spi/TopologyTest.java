package org.lockvisor.arch.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * Property: CPU indices map one-to-one onto (socket, core, thread), siblings are adjacent, and the
 * distance class (and so the transfer price) grows SAME_CPU < SMT < SOCKET < REMOTE.
 */
class TopologyTest {

  private final Topology t = new Topology(2, 4, 2); // 16 CPUs

  @Test
  void cpuIndex_roundTripsThroughSocketCoreThread() {
    assertThat(t.cpus()).isEqualTo(16);
    for (int cpu = 0; cpu < t.cpus(); cpu++) {
      assertThat(t.cpu(t.socketOf(cpu), t.coreOf(cpu), t.threadOf(cpu))).isEqualTo(cpu);
    }
    assertThat(t.socketOf(7)).isZero();
    assertThat(t.socketOf(8)).isEqualTo(1);
    assertThat(t.coreOf(9)).isZero();
    assertThat(t.threadOf(9)).isEqualTo(1);
    assertThat(t.physicalCoreOf(9)).isEqualTo(4);
  }

  @Test
  void distance_classesByPosition() {
    assertThat(t.distance(3, 3)).isEqualTo(Topology.SAME_CPU);
    assertThat(t.distance(2, 3)).isEqualTo(Topology.SMT);
    assertThat(t.distance(3, 4)).isEqualTo(Topology.SOCKET); // adjacent indices, different cores
    assertThat(t.distance(0, 7)).isEqualTo(Topology.SOCKET);
    assertThat(t.distance(7, 8)).isEqualTo(Topology.REMOTE);
    assertThat(t.distance(15, 0)).isEqualTo(Topology.REMOTE);
  }

  @Test
  void distance_noSmt_neverSmt() {
    Topology noSmt = new Topology(1, 8, 1);
    for (int a = 0; a < 8; a++) {
      for (int b = 0; b < 8; b++) {
        assertThat(noSmt.distance(a, b)).isEqualTo(a == b ? Topology.SAME_CPU : Topology.SOCKET);
      }
    }
  }

  @Test
  void xferNs_pricesEachDistanceFromTable() {
    CostTable.Builder b = CostTable.builder();
    for (CostKey k : CostKey.values()) {
      b.put(k, 1, Cost.Confidence.E, "test 1-2");
    }
    CostTable costs = b.put(CostKey.CACHELINE_XFER_SMT, 5, Cost.Confidence.E, "test")
        .put(CostKey.CACHELINE_XFER_SOCKET, 60, Cost.Confidence.E, "test")
        .put(CostKey.CACHELINE_XFER_REMOTE, 150, Cost.Confidence.E, "test")
        .build();

    assertThat(t.xferNs(costs, 5, 5)).isZero();
    assertThat(t.xferNs(costs, 4, 5)).isEqualTo(5);
    assertThat(t.xferNs(costs, 0, 6)).isEqualTo(60);
    assertThat(t.xferNs(costs, 0, 8)).isEqualTo(150);
  }

  @Test
  void constructor_nonPositive_clearMessage() {
    assertThatThrownBy(() -> new Topology(0, 4, 2)).hasMessage("sockets must be positive: [0]");
    assertThatThrownBy(() -> new Topology(2, -1, 2)).hasMessage("coresPerSocket must be positive: [-1]");
    assertThatThrownBy(() -> new Topology(2, 4, 0)).hasMessage("threadsPerCore must be positive: [0]");
  }

  @Test
  void constructor_tooManyCpus_rejected() {
    assertThatThrownBy(() -> new Topology(1024, 1024, 8)).hasMessageContaining("at most 65536");
  }

  @Test
  void distance_cpuOutOfRange_rejected() {
    assertThatThrownBy(() -> t.distance(0, 16)).isInstanceOf(IndexOutOfBoundsException.class)
        .hasMessageContaining("[16]");
  }
}
