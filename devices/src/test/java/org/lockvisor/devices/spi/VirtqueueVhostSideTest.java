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
}
