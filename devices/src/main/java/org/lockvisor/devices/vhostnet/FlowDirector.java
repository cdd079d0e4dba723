package org.lockvisor.devices.vhostnet;

import java.util.Arrays;

/**
 * The host ixgbe's queue choice with Flow Director ATR (3.0.27 drivers/net/ixgbe/ixgbe_main.c),
 * shared by both traffic directions (issue 32):
 * <ul>
 *   <li>transmit: {@code ixgbe_select_queue} returns {@code smp_processor_id()} (folded into the
 *       queue count) when {@code IXGBE_FLAG_FDIR_HASH_CAPABLE}: a CPU transmits on its own queue;
 *   <li>{@code ixgbe_atr} samples a flow's first packet (its SYN) and then every
 *       {@code atr_sample_rate} = 20th packet on a ring ({@code ixgbe_sw_init}) and points the
 *       flow's receive filter at that ring, so the flow's receive follows the CPU that transmitted
 *       for it; before a flow has a filter, RSS hashes it.
 * </ul>
 * Disabled ({@code host-atr: false}): one transmit queue and RSS alone. Allocation-free once the
 * flow table has grown to the flow count.
 */
final class FlowDirector {
  /** ixgbe 3.0.27 {@code ixgbe_sw_init}: {@code adapter->atr_sample_rate = 20}. */
  static final int ATR_SAMPLE_RATE = 20;

  private final boolean enabled;
  private final int queues;
  private final int[] count;
  private int[] filter = new int[16];
  long samples;

  FlowDirector(boolean enabled, int queues) {
    this.enabled = enabled;
    this.queues = queues;
    this.count = new int[queues];
    Arrays.fill(filter, -1);
  }

  boolean enabled() {
    return enabled;
  }

  /**
   * A packet of {@code flow} leaves the host NIC from {@code cpu}: its transmit queue, after ATR has
   * sampled it (with ATR off, queue 0 and no sample).
   */
  int transmit(int flow, int cpu) {
    if (!enabled) {
      return 0;
    }
    int q = cpu % queues;
    ensure(flow);
    count[q]++;
    if (filter[flow] < 0 || count[q] >= ATR_SAMPLE_RATE) {
      count[q] = 0;
      filter[flow] = q;
      samples++;
    }
    return q;
  }

  /** The receive queue of a frame of {@code flow}: its ATR filter, else RSS ({@code flow}'s hash over the queues). */
  int receiveQueue(int flow) {
    if (enabled && flow < filter.length && filter[flow] >= 0) {
      return filter[flow];
    }
    return Math.floorMod(flow * 0x9E3779B1, queues);
  }

  private void ensure(int flow) {
    if (flow >= filter.length) {
      int old = filter.length;
      filter = Arrays.copyOf(filter, Math.max(flow + 1, old * 2));
      Arrays.fill(filter, old, filter.length, -1);
    }
  }
}
