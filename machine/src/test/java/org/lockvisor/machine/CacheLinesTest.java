package org.lockvisor.machine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.lockvisor.arch.spi.Topology;

/**
 * {@link CacheLines#xferNs}: the transfer price of a line between two physical CPUs is the price of
 * their topology distance class (SMT sibling, same socket, another socket; KERNEL-MODEL 1.2),
 * whether it comes from the per-pair table of a small host or from {@link Topology#distance} on a
 * large one, and a CPU id outside the host is refused as {@link Topology} refuses it.
 */
class CacheLinesTest {
  private static final long SMT = 5;
  private static final long SOCKET = 60;
  private static final long REMOTE = 150;

  @Test
  void xferNs_everyPairOfASmallHost_pricedByItsDistanceClass() {
    Topology topo = new Topology(2, 4, 2);
    assertEveryPairPricedByDistance(topo);
  }

  @Test
  void xferNs_everyPairOfALargeHost_pricedByItsDistanceClass() {
    Topology topo = new Topology(4, 20, 2); // 160 CPUs: no per-pair table
    assertEveryPairPricedByDistance(topo);
  }

  @Test
  void xferNs_cpuOutsideTheHost_isRefused() {
    CacheLines lines = CacheLines.of(new Topology(1, 4, 1), 7, 1, SMT, SOCKET, REMOTE);

    assertThatThrownBy(() -> lines.xferNs(0, 4)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> lines.xferNs(-1, 0)).isInstanceOf(IndexOutOfBoundsException.class);
  }

  private static void assertEveryPairPricedByDistance(Topology topo) {
    CacheLines lines = CacheLines.of(topo, 7, 1, SMT, SOCKET, REMOTE);
    long[] byClass = {0, SMT, SOCKET, REMOTE};
    for (int a = 0; a < topo.cpus(); a++) {
      for (int b = 0; b < topo.cpus(); b++) {
        assertThat(lines.xferNs(a, b)).as("cpu %s -> %s", a, b).isEqualTo(byClass[topo.distance(a, b)]);
      }
    }
    assertThat(lines.xferNs(0, 0)).isZero();
    assertThat(lines.xferNs(0, 1)).isEqualTo(SMT);
    assertThat(lines.xferNs(0, topo.cpus() - 1)).isEqualTo(REMOTE);
  }
}
