package org.lockvisor.devices.vhostnet;

/**
 * One NAPI context's GRO list as 3.0 {@code net/core/dev.c} keeps it: {@code dev_gro_receive}
 * merges a frame into its flow's held skb, holds a new skb while fewer than {@code MAX_GRO_SKBS}
 * (8) are held, and otherwise passes the frame up unmerged ({@code napi->gro_count >=
 * MAX_GRO_SKBS: goto normal}); a held skb goes up when the next frame would reach 64 KiB
 * ({@code skb_gro_receive}: {@code -E2BIG}) or the segment limit; {@code napi_complete} →
 * {@code napi_gro_flush} sends every held skb up. Shared by the peer's receive ({@link
 * PeerReceiver}) and the host's ixgbe receive ({@link GuestReceive}). Allocation-free.
 */
final class GroTable {
  /** Where an skb goes when it leaves the GRO list (up the stack). */
  interface Sink {
    void skb(int flow, int frames, int bytes);
  }

  private final int segments;
  private final int[] flow = new int[PeerReceiver.MAX_GRO_SKBS];
  private final int[] frames = new int[PeerReceiver.MAX_GRO_SKBS];
  private final int[] bytes = new int[PeerReceiver.MAX_GRO_SKBS];
  private int count;

  /** {@code segments}: the most frames one skb merges. */
  GroTable(int segments) {
    this.segments = segments;
  }

  /**
   * {@code dev_gro_receive} for one frame of {@code b} bytes of {@code f}. Returns false when the
   * frame passed up unmerged because {@code MAX_GRO_SKBS} other flows are held.
   */
  boolean receive(int f, int b, Sink up) {
    for (int i = 0; i < count; i++) {
      if (flow[i] == f) {
        if (frames[i] >= segments || bytes[i] + b >= PeerReceiver.GRO_MAX_BYTES) {
          up.skb(f, frames[i], bytes[i]); // the full skb goes up, this frame starts anew
          frames[i] = 1;
          bytes[i] = b;
        } else {
          frames[i]++;
          bytes[i] += b;
        }
        return true;
      }
    }
    if (count < PeerReceiver.MAX_GRO_SKBS) {
      flow[count] = f;
      frames[count] = 1;
      bytes[count] = b;
      count++;
      return true;
    }
    up.skb(f, 1, b);
    return false;
  }

  /** {@code napi_gro_flush}: every held skb goes up, in the order they were held. */
  void flush(Sink up) {
    for (int i = 0; i < count; i++) {
      up.skb(flow[i], frames[i], bytes[i]);
    }
    count = 0;
  }
}
