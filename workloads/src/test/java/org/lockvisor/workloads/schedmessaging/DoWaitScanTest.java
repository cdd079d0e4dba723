package org.lockvisor.workloads.schedmessaging;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.lockvisor.arch.catalog.ArchProfiles;
import org.lockvisor.arch.spi.ArchCosts;
import org.lockvisor.arch.spi.CostKey;
import org.lockvisor.workloads.schedmessaging.SchedMessagingState.Member;

/**
 * perf's {@code wait()} as 4.8 kernel/exit.c runs it: {@code do_wait_thread} walks the parent's
 * children list (creation order: copy_process's {@code list_add_tail}; reaped children unlinked by
 * {@code __unhash_process}) calling {@code wait_consider_task} on each, and stops at the first
 * zombie; with none, it considers every child. A live child's consideration reads {@code p->ptrace},
 * on the cache line of {@code p->state} that the running child keeps writing: one line transfer.
 */
class DoWaitScanTest {

  /** Children in creation order: 'z' zombie, 'r' reaped, '.' alive. */
  private static Member[] children(String states) {
    Member[] m = new Member[states.length()];
    for (int i = 0; i < m.length; i++) {
      m[i] = new Member(0, i, true);
      m[i].zombie = states.charAt(i) == 'z' || states.charAt(i) == 'r';
      m[i].reaped = states.charAt(i) == 'r';
    }
    return m;
  }

  @Test
  void scan_stopsAtTheFirstZombieInCreationOrder_skippingReapedChildren() {
    int[] scanned = new int[1];
    // r r . . z . z : two reaped are off the list, two live ones are considered, then the zombie
    assertThat(SchedMessagingOps.scan(children("rr..z.z"), 0, scanned)).isEqualTo(4);
    assertThat(scanned[0]).isEqualTo(3);
    // a later zombie is not reached while an earlier one exists
    assertThat(SchedMessagingOps.scan(children("z.....z"), 0, scanned)).isZero();
    assertThat(scanned[0]).isEqualTo(1);
  }

  @Test
  void scan_noZombie_considersEveryChildOnTheList() {
    int[] scanned = new int[1];
    assertThat(SchedMessagingOps.scan(children(".r.r..."), 0, scanned)).isEqualTo(-1);
    assertThat(scanned[0]).isEqualTo(5);
    // the walk starts past the children all reaped before it (the list head)
    assertThat(SchedMessagingOps.scan(children("rrr..z"), 3, scanned)).isEqualTo(5);
    assertThat(scanned[0]).isEqualTo(3);
  }

  @Test
  void perChildCost_isTheProfilesCacheLineTransferBetweenCores() {
    ArchCosts ppc = ArchCosts.of(ArchProfiles.byName("ppc64-powervm"));
    assertThat(SchedMessagingCosts.from(ppc).waitConsiderNs()).isEqualTo(ppc.ns(CostKey.CACHELINE_XFER_SOCKET));
  }
}
