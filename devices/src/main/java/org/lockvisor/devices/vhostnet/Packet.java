package org.lockvisor.devices.vhostnet;

import java.util.ArrayDeque;

/**
 * A packet of one flow: TSO payload on the way out, then the ACK (or duplicate ACK) coming back.
 * Packets are pooled ({@link Pool}) so that a run allocates none once the number in flight has
 * peaked.
 */
final class Packet {
  /** The wire size of a pure ACK: Ethernet 14 + IPv4 20 + TCP 32 (20 and the 12-byte timestamp option). */
  static final int ACK_WIRE_BYTES = 66;

  int flow;
  int bytes;
  long acked;
  long lost;
  /** A TCP retransmission (3.0 {@code tcp_retransmit_skb}): it fills a hole at the receiver. */
  boolean retrans;
  /**
   * Guest-send with sequence numbers (iperf {@code recovery: 3.0}): the first payload byte's
   * sequence number, or -1 when the sender reports none (the loss then comes back as {@link #lost}).
   */
  long seq = -1;
  /** An ACK from a peer that tracks sequence numbers: its cumulative ACK ({@code rcv_nxt}), else -1. */
  long ackSeq = -1;
  /**
   * TCP timestamps ({@code sysctl_tcp_timestamps} 1) of numbered flows: a data packet's TSval as the
   * guest's send time (ns), an ACK's TSecr (the peer's {@code ts_recent}); -1 for none.
   */
  long tsval = -1;
  long tsecr = -1;
  /** The ACK's SACK blocks, {@code {start, end}} pairs, most recent first ({@link SackReceiver}). */
  int sacks;
  final long[] sack = new long[2 * SackReceiver.MAX_SENT_BLOCKS];
  long readyAt;
  int refs;

  /**
   * The device's packets: reused when every holder has released one, most recently released
   * first (a stack), so the packet handed out is the one still in cache; every user sets the
   * fields it reads, so which free packet comes back changes nothing simulated.
   */
  static final class Pool {
    private final ArrayDeque<Packet> free = new ArrayDeque<>(1024);

    Pool(int initial) {
      for (int i = 0; i < initial; i++) {
        free.add(new Packet());
      }
    }

    /** A guest TX packet, held by the guest's TX reclaim and by the end of its transmission (or its drop). */
    Packet alloc() {
      Packet p = free.poll();
      if (p == null) {
        p = new Packet(); // the pool grows to the peak number in flight, then allocation stops
      }
      p.refs = 2;
      p.acked = 0;
      p.lost = 0;
      p.retrans = false;
      p.seq = -1;
      p.ackSeq = -1;
      p.tsval = -1;
      p.tsecr = -1;
      p.sacks = 0;
      return p;
    }

    /** A packet from the peer for {@code flow}, freed when the guest has received it. */
    Packet allocAck(int flow, int wireBytes) {
      Packet p = alloc();
      p.refs = 1;
      p.flow = flow;
      p.bytes = wireBytes;
      return p;
    }

    void release(Packet p) {
      if (--p.refs == 0) {
        free.push(p);
      }
    }
  }
}
