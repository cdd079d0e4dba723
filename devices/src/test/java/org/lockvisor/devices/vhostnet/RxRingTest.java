package org.lockvisor.devices.vhostnet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.Simulation;

/**
 * The host NIC's receive ring is bounded as 3.0.27 ixgbe sets it up: {@code IXGBE_DEFAULT_RXD} =
 * 512 descriptors per ring (drivers/net/ixgbe/ixgbe.h), of which the driver posts {@code
 * IXGBE_DESC_UNUSED} = count - 1 to the hardware ({@code ixgbe_configure_rx_ring} →
 * {@code ixgbe_alloc_rx_buffers}; next_to_use never catches next_to_clean), one frame each (82599:
 * no packet split, erratum #45, {@code ixgbe_set_rx_buffer_len}). A frame finding none is dropped
 * and counted ({@code rx_missed_errors}); the sender learns of it as of any other loss.
 * {@code ethtool -G rx N} sets the count within {@code IXGBE_MIN_RXD}..{@code IXGBE_MAX_RXD} =
 * 64..4096, a multiple of 8 ({@code ixgbe_set_ringparam}).
 */
class RxRingTest {
  private static GuestReceive receive(VhostNetConfig c) {
    return new GuestReceive(new Simulation(1), null, c, null, new Packet.Pool(16), 2, 4 << 20, 1,
        new FlowDirector(false, 1));
  }

  @Test
  void defaultRing_holds511Frames_the512thIsDroppedAndCounted() {
    VhostNetConfig c = VhostNetConfig.defaults().withMtu(9000);
    assertThat(c.rxDescriptors()).isEqualTo(512);
    GuestReceive rx = receive(c);
    int mss = c.mss();
    for (int i = 0; i < 511; i++) {
      rx.arrive(i % 2, mss);
    }
    assertThat(rx.rxMissed).isZero();
    rx.arrive(1, mss); // the 512th: count - 1 descriptors were posted
    assertThat(rx.rxMissed).isEqualTo(1);
    assertThat(rx.unreported[1]).as("a hole of flow 1 the sender must learn of").isEqualTo(mss);
    assertThat(rx.unreported[0]).isZero();
    rx.arrive(0, mss); // the 513th
    assertThat(rx.rxMissed).isEqualTo(2);
  }

  @Test
  void aPollsFramesHoldTheirDescriptorsUntilItRefills() {
    VhostNetConfig c = VhostNetConfig.defaults().withMtu(9000).withRxDescriptors(64);
    GuestReceive rx = receive(c);
    for (int i = 0; i < 63; i++) {
      rx.arrive(0, c.mss());
    }
    assertThat(rx.poll(0, 64)).isEqualTo(63); // cleaned, not yet given back (ixgbe_alloc_rx_buffers ends the poll)
    rx.arrive(0, c.mss());
    assertThat(rx.rxMissed).isEqualTo(1);
  }

  @Test
  void ringSize_isADeclaredOption_refusedOutsideTheDriversRange() {
    assertThat(VhostNetFactory.config(Map.of("rx-descriptors", "4096")).rxDescriptors()).isEqualTo(4096);
    assertThat(VhostNetFactory.config(Map.of("rx-descriptors", "64")).rxDescriptors()).isEqualTo(64);
    assertThatThrownBy(() -> VhostNetFactory.config(Map.of("rx-descriptors", "4104"))).hasMessageContaining("4096");
    assertThatThrownBy(() -> VhostNetFactory.config(Map.of("rx-descriptors", "56"))).hasMessageContaining("64");
    assertThatThrownBy(() -> VhostNetConfig.defaults().withRxDescriptors(100)) // ixgbe would ALIGN it to 104
        .hasMessageContaining("multiple of 8");
  }
}
