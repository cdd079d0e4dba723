package org.lockvisor.devices.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * The split ring's notification suppression follows the kernel's {@code vring_need_event} in
 * u16 arithmetic (including wraparound of the free-running indexes), the driver's
 * kick_prepare / get_buf / enable_cb and the device's pop / need-interrupt as 3.x virtio_ring.c
 * and 2014 QEMU do them.
 */
class VirtqueueTest {

  @Test
  void needEvent_eventInsideNewEntries_true() {
    assertThat(Virtqueue.vringNeedEvent(5, 7, 4)).isTrue(); // entries 4,5,6 include 5
    assertThat(Virtqueue.vringNeedEvent(4, 7, 4)).isTrue();
    assertThat(Virtqueue.vringNeedEvent(6, 7, 4)).isTrue();
  }

  @Test
  void needEvent_eventOutsideNewEntries_false() {
    assertThat(Virtqueue.vringNeedEvent(7, 7, 4)).isFalse(); // asked for the entry after these
    assertThat(Virtqueue.vringNeedEvent(3, 7, 4)).isFalse(); // already past
    assertThat(Virtqueue.vringNeedEvent(100, 7, 4)).isFalse();
  }

  @Test
  void needEvent_nothingNew_false() {
    assertThat(Virtqueue.vringNeedEvent(4, 4, 4)).isFalse();
  }

  @Test
  void needEvent_indexesWrapPast65535_sameAnswerAsWithoutWrap() {
    // new entries 65534, 65535, 0 (old = 65534, new = 1)
    assertThat(Virtqueue.vringNeedEvent(65534, 1, 65534)).isTrue();
    assertThat(Virtqueue.vringNeedEvent(65535, 1, 65534)).isTrue();
    assertThat(Virtqueue.vringNeedEvent(0, 1, 65534)).isTrue();
    assertThat(Virtqueue.vringNeedEvent(1, 1, 65534)).isFalse();
    assertThat(Virtqueue.vringNeedEvent(65533, 1, 65534)).isFalse();
    // every shift of the same situation by k gives the same answer
    for (int k = 0; k < 65536; k += 4099) {
      assertThat(Virtqueue.vringNeedEvent((5 + k) & 0xffff, (7 + k) & 0xffff, (4 + k) & 0xffff)).isTrue();
      assertThat(Virtqueue.vringNeedEvent((7 + k) & 0xffff, (7 + k) & 0xffff, (4 + k) & 0xffff)).isFalse();
    }
  }

  @Test
  void kickPrepare_eventIdxDeviceHasNotPopped_suppressesSecondKick() {
    Virtqueue vq = new Virtqueue("vq", 8, true);
    vq.add("a", 1);
    assertThat(vq.kickPrepare()).isTrue(); // avail_event 0 is inside [0, 1)
    vq.add("b", 1);
    assertThat(vq.kickPrepare()).isFalse(); // device still owes a look at 0: no new kick
    assertThat(vq.kicks()).isEqualTo(1);
    assertThat(vq.kicksSuppressed()).isEqualTo(1);
  }

  @Test
  void kickPrepare_eventIdxDeviceConsumedEverything_kicksAgain() {
    Virtqueue vq = new Virtqueue("vq", 8, true);
    vq.add("a", 1);
    vq.add("b", 1);
    assertThat(vq.kickPrepare()).isTrue();
    vq.pop();
    vq.pop(); // avail_event = avail->idx = 2
    assertThat(vq.availEvent()).isEqualTo(2);
    vq.add("c", 1);
    assertThat(vq.kickPrepare()).isTrue();
  }

  @Test
  void pop_eventIdxWithBacklog_publishesCurrentAvailIdxSoTheNextAddKicks() {
    // QEMU 2.0 virtqueue_pop: vring_avail_event(vq, vring_avail_idx(vq)), not last_avail_idx
    Virtqueue vq = new Virtqueue("vq", 8, true);
    vq.add("a", 1);
    vq.add("b", 1);
    vq.add("c", 1);
    assertThat(vq.kickPrepare()).isTrue();
    vq.pop(); // one of three popped: last_avail_idx 1, avail->idx 3
    assertThat(vq.lastAvailIdx()).isEqualTo(1);
    assertThat(vq.availEvent()).isEqualTo(3);
    vq.add("d", 1);
    assertThat(vq.kickPrepare()).isTrue(); // the backlog does not suppress the kick
    vq.add("e", 1);
    assertThat(vq.kickPrepare()).isFalse(); // no pop since the last kick: suppressed
  }

  @Test
  void kickPrepare_withoutEventIdx_followsNoNotifyFlag() {
    Virtqueue vq = new Virtqueue("vq", 8, false);
    vq.add("a", 1);
    assertThat(vq.kickPrepare()).isTrue();
    vq.add("b", 1);
    assertThat(vq.kickPrepare()).isTrue(); // no event index: the flag alone decides
    vq.setNoNotify(true);
    vq.add("c", 1);
    assertThat(vq.kickPrepare()).isFalse();
  }

  @Test
  void needInterrupt_eventIdx_onlyThePushCrossingUsedEventInterrupts() {
    Virtqueue vq = new Virtqueue("vq", 8, true);
    for (String s : new String[] {"a", "b", "c"}) {
      vq.add(s, 1);
    }
    int a = vq.pop();
    int b = vq.pop();
    int c = vq.pop();
    vq.pushUsed(a);
    assertThat(vq.needInterrupt()).isTrue(); // first signal ever
    vq.pushUsed(b);
    assertThat(vq.needInterrupt()).isFalse(); // driver has not consumed entry 0 yet (used_event 0)
    // virtblk_done: disable, drain, enable
    vq.disableCb();
    assertThat(vq.getBuf()).isEqualTo("a");
    assertThat(vq.getBuf()).isEqualTo("b");
    assertThat(vq.usedEvent()).isZero(); // NO_INTERRUPT set: get_buf leaves used_event alone
    assertThat(vq.enableCb()).isTrue();
    assertThat(vq.usedEvent()).isEqualTo(2);
    vq.pushUsed(c);
    assertThat(vq.needInterrupt()).isTrue();
    assertThat(vq.interrupts()).isEqualTo(2);
    assertThat(vq.interruptsSuppressed()).isEqualTo(1);
  }

  @Test
  void enableCb_usedEntryArrivedDuringDrain_returnsFalse() {
    Virtqueue vq = new Virtqueue("vq", 8, true);
    vq.add("a", 1);
    vq.add("b", 1);
    int a = vq.pop();
    int b = vq.pop();
    vq.pushUsed(a);
    vq.disableCb();
    assertThat(vq.getBuf()).isEqualTo("a");
    vq.pushUsed(b);
    assertThat(vq.enableCb()).isFalse();
    assertThat(vq.getBuf()).isEqualTo("b");
    assertThat(vq.enableCb()).isTrue();
  }

  @Test
  void needInterrupt_withoutEventIdx_followsNoInterruptFlag() {
    Virtqueue vq = new Virtqueue("vq", 8, false);
    vq.add("a", 1);
    vq.add("b", 1);
    int a = vq.pop();
    int b = vq.pop();
    vq.pushUsed(a);
    assertThat(vq.needInterrupt()).isTrue();
    vq.disableCb();
    vq.pushUsed(b);
    assertThat(vq.needInterrupt()).isFalse();
  }

  @Test
  void add_ringFull_returnsMinusOneUntilGetBufFreesDescriptors() {
    Virtqueue vq = new Virtqueue("vq", 4, true);
    assertThat(vq.add("a", 3)).isNotNegative();
    assertThat(vq.add("b", 3)).isEqualTo(-1);
    assertThat(vq.addsRingFull()).isEqualTo(1);
    vq.pushUsed(vq.pop());
    assertThat(vq.getBuf()).isEqualTo("a");
    assertThat(vq.add("b", 3)).isNotNegative();
  }

  @Test
  void ring_indexesWrapAround_keepsFifoOrderAndKickRule() {
    Virtqueue vq = new Virtqueue("vq", 8, true, 65530);
    int kicks = 0;
    for (int i = 0; i < 40; i++) {
      vq.add(i, 1);
      vq.add(-i - 1, 1);
      if (vq.kickPrepare()) {
        kicks++;
      }
      int h1 = vq.pop();
      int h2 = vq.pop();
      vq.pushUsed(h1);
      vq.pushUsed(h2);
      vq.needInterrupt();
      assertThat(vq.getBuf()).isEqualTo(i);
      assertThat(vq.getBuf()).isEqualTo(-i - 1);
    }
    assertThat(vq.availIdx()).isEqualTo((65530 + 80) & 0xffff);
    assertThat(vq.usedIdx()).isEqualTo(vq.availIdx());
    assertThat(kicks).isEqualTo(40); // the device always caught up, so every batch kicks
    assertThat(vq.outstanding()).isZero();
  }

  @Test
  void constructor_sizeNotPowerOfTwo_rejected() {
    assertThatThrownBy(() -> new Virtqueue("vq", 100, true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("power of two");
  }
}
