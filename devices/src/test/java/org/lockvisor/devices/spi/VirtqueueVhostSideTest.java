package org.lockvisor.devices.spi;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The vhost side of the ring (drivers/vhost/vhost.c 3.x): {@code vhost_get_vq_desc} does not
 * publish avail_event (QEMU's pop does), {@code vhost_enable_notify} publishes it and re-checks,
 * {@code vhost_disable_notify} writes nothing under EVENT_IDX and sets NO_NOTIFY without it.
 */
class VirtqueueVhostSideTest {

  @Test
  void popQuiet_leavesAvailEvent_soTheDriverKicksOnlyOncePastIt() {
    Virtqueue vq = new Virtqueue("tx", 16, true);
    vq.add("a", 1);
    assertThat(vq.kickPrepare()).isTrue(); // crosses avail_event 0
    vq.popQuiet(); // the worker runs; avail_event stays 0
    vq.add("b", 1);
    assertThat(vq.kickPrepare()).isFalse(); // already past the stale event index: suppressed
    assertThat(vq.availEvent()).isZero();
  }

  @Test
  void enableNotify_publishesLastAvail_andReportsRaces() {
    Virtqueue vq = new Virtqueue("tx", 16, true);
    vq.add("a", 1);
    vq.kickPrepare();
    vq.popQuiet();
    assertThat(vq.enableNotify()).isFalse(); // ring empty: the worker may sleep
    assertThat(vq.availEvent()).isEqualTo(1);
    vq.add("b", 1);
    assertThat(vq.kickPrepare()).isTrue(); // the next add kicks again
    assertThat(vq.enableNotify()).isTrue(); // an entry is waiting: keep processing
  }

  @Test
  void disableNotify_withoutEventIdx_setsNoNotify() {
    Virtqueue vq = new Virtqueue("tx", 16, false);
    vq.disableNotify();
    vq.add("a", 1);
    assertThat(vq.kickPrepare()).isFalse();
    vq.popQuiet();
    vq.enableNotify();
    vq.add("b", 1);
    assertThat(vq.kickPrepare()).isTrue();
  }

  /**
   * 3.0.27 handle_rx with mergeable buffers: get_rx_bufs finds 3 buffers for a packet that needs
   * 17, discards them; vhost_enable_notify compares avail->idx with vq->avail_idx (what
   * vhost_get_vq_desc just read), so with nothing new it returns false (handle_rx breaks and waits
   * for the kick) and publishes avail_event = vq->avail_idx, so the guest's next refill kicks.
   */
  @Test
  void enableNotifySinceRead_tooFewBuffers_waitsForTheKickInsteadOfRetrying() {
    Virtqueue vq = new Virtqueue("rx", 256, true);
    for (int i = 0; i < 3; i++) {
      vq.add("page" + i, 1);
    }
    vq.kickPrepare();
    assertThat(vq.readAvail()).isEqualTo(3).isLessThan(17);
    assertThat(vq.enableNotify()).as("the old check: any buffer left means retry").isTrue();
    assertThat(vq.enableNotifySinceRead()).as("nothing added since the read").isFalse();
    assertThat(vq.availEvent()).isEqualTo(3);
    vq.add("page3", 1);
    assertThat(vq.kickPrepare()).as("the refill crosses avail_event: a kick").isTrue();
    assertThat(vq.enableNotifySinceRead()).as("added since the read: check again").isTrue();
  }
}
