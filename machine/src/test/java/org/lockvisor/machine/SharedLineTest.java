package org.lockvisor.machine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.lockvisor.arch.spi.Topology;

/**
 * Pricing of a shared cache line by where it last was (KERNEL-MODEL 1.2): a locked RMW on a line
 * the CPU itself last wrote costs only the atomic; a line that moves costs the transfer of its
 * topology distance, cheaper between SMT siblings than across a socket, cheapest-to-dearest
 * SMT &lt; socket &lt; remote; reads take shared copies that a later write must invalidate.
 */
class SharedLineTest {
  // 2 sockets x 4 cores x 2 threads: CPUs 0/1 are siblings, 0/2 share a socket, 0/8 do not
  private static final Topology TOPO = new Topology(2, 4, 2);
  private static final long ATOMIC = 7;
  private static final long ACCESS = 1;
  private final CacheLines pricing = CacheLines.of(TOPO, ATOMIC, ACCESS, 5, 60, 150);

  @Test
  void rmw_lineLastWrittenByTheSameCpu_costsNoTransfer() {
    SharedLine line = pricing.line("list");
    line.rmw(3);

    assertThat(line.rmw(3)).isEqualTo(ATOMIC);
    assertThat(line.lastMoved()).isFalse();
    assertThat(line.transfers()).isZero();
  }

  @Test
  void rmw_firstTouch_costsOnlyTheAtomic() {
    assertThat(pricing.line("fresh").rmw(0)).isEqualTo(ATOMIC);
  }

  @Test
  void rmw_lineFromSiblingSocketAndRemote_transferGrowsWithDistance() {
    long smt = moveFrom(0, 1);
    long socket = moveFrom(0, 2);
    long remote = moveFrom(0, 8);

    assertThat(smt).isGreaterThan(ATOMIC);
    assertThat(smt).isLessThan(socket);
    assertThat(socket).isLessThan(remote);
  }

  @Test
  void store_lineOwnedElsewhere_paysTheTransferAndTakesTheLine() {
    SharedLine line = pricing.line("flag");
    line.store(0);

    assertThat(line.store(2)).isGreaterThan(ACCESS);
    assertThat(line.owner()).isEqualTo(2);
    assertThat(line.store(2)).isEqualTo(ACCESS);
  }

  @Test
  void load_repeatedByTheSameReader_onlyTheFirstMovesTheLine() {
    SharedLine line = pricing.line("head");
    line.rmw(0);

    long first = line.load(8);
    long second = line.load(8);

    assertThat(first).isGreaterThan(ACCESS);
    assertThat(second).isEqualTo(ACCESS);
    assertThat(line.transfers()).isEqualTo(1);
  }

  @Test
  void rmw_afterARemoteReadByAnother_invalidatingTheCopyCostsATransfer() {
    SharedLine line = pricing.line("head");
    line.rmw(0);
    line.load(8);

    // the writer still owns the line but must invalidate the remote copy
    assertThat(line.rmw(0)).isGreaterThan(ATOMIC);
    assertThat(line.rmw(0)).isEqualTo(ATOMIC);
  }

  @Test
  void free_pricesEveryAccessAtZero() {
    SharedLine line = CacheLines.free(4).line("x");
    line.rmw(0);

    assertThat(line.rmw(3)).isZero();
    assertThat(line.load(2)).isZero();
  }

  private long moveFrom(int from, int to) {
    SharedLine line = pricing.line("word");
    line.rmw(from);
    return line.rmw(to);
  }
}
