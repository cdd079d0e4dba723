package org.lockvisor.devices.spi;

import java.util.function.ToIntFunction;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;

/**
 * A guest network interface as a guest protocol stack sees it: a transmit path that takes one
 * packet (a TSO/GSO super-packet of one flow) from the stack to the driver
 * ({@code dev_queue_xmit -> ndo_start_xmit}), and a receive path that hands every packet arriving
 * for the guest to the stack in the driver's NAPI context.
 *
 * <p>What travels is abstract: a flow number, a payload size, and for packets coming back from
 * the peer the bytes they acknowledge and the bytes the peer reports lost (duplicate ACKs). The
 * device owns the wire: line rate, per-frame overhead, the host's queue to it and the peer.
 */
public interface NetDevice extends Device {

  /** Installs the guest stack that receives this device's packets; call before the run starts. */
  void setProtocol(NetProtocol protocol);

  /**
   * The program a guest context runs to transmit one packet of {@code bytes(t)} payload bytes for
   * flow {@code flow(t)}; both are read once, when the program starts. Build it once per caller.
   */
  Program xmitPath(ToIntFunction<Task> flow, ToIntFunction<Task> bytes);

  /**
   * The same, telling the device which packets are retransmissions (3.0 {@code tcp_retransmit_skb}),
   * so that its model of the receiver can see a hole being filled. Devices that model no receiver
   * state take the two-function path.
   */
  default Program xmitPath(ToIntFunction<Task> flow, ToIntFunction<Task> bytes,
      java.util.function.Predicate<Task> retransmission) {
    return xmitPath(flow, bytes);
  }

  /**
   * The same for a sender that numbers its bytes: {@code seq(t)} is the packet's first sequence
   * number. The device's peer then acknowledges by sequence ({@link #rxAckSeq}, {@link
   * #rxSackBlocks}) and reports no loss itself ({@link #rxLost} stays 0): the sender finds its
   * losses from the SACK blocks or its retransmission timer. Devices without a sequence-aware peer
   * refuse.
   */
  default Program xmitPath(ToIntFunction<Task> flow, ToIntFunction<Task> bytes,
      java.util.function.ToLongFunction<Task> seq, java.util.function.Predicate<Task> retransmission) {
    throw new IllegalArgumentException("device [" + name() + "] of type [" + model()
        + "] has no sequence-aware peer (SACK); use the simple loss recovery");
  }

  /** The cumulative ACK of the packet being received ({@code rcv_nxt} at the peer), -1 when it carries none. */
  default long rxAckSeq(Task t) {
    return -1;
  }

  /** The TSecr of the packet being received (the sender's clock, ns), -1 when it carries none. */
  default long rxTsecr(Task t) {
    return -1;
  }

  /**
   * Copies the SACK blocks of the packet being received into {@code out} as {@code {start, end}}
   * pairs, most recent first, and returns their number (at most 3, beside the timestamp option).
   */
  default int rxSackBlocks(Task t, long[] out) {
    return 0;
  }

  /** TCP maximum segment size on this link (payload bytes per wire frame). */
  int mss();

  /** The largest TSO/GSO packet the device accepts ({@code gso_max_size}), payload bytes. */
  int gsoMaxBytes();

  /** Flow of the packet being received on {@code cpu}'s receive context (inside {@link NetProtocol#receivePath}). */
  int rxFlow(Task t);

  /** Bytes the packet being received on {@code t}'s CPU acknowledges. */
  long rxAcked(Task t);

  /** Bytes the packet being received on {@code t}'s CPU reports lost on the way to the peer. */
  long rxLost(Task t);

  /** Payload bits per second delivered to the peer (guest-receive: to the guest's TCP) since the last reset. */
  double deliveredBitsPerSecond();

  /**
   * The guest-receive direction (issue 32): an external sender with {@code streams} TCP streams,
   * each limited to {@code windowBytes} in flight, sends to the guest through this device, whose
   * guest driver also runs the guest's TCP receive and ACKs. Call before the run starts, instead
   * of transmitting. A device without that direction refuses.
   */
  default void receiveFromExternalSender(int streams, long windowBytes) {
    throw new IllegalArgumentException("device [" + name() + "] of type [" + model()
        + "] has no guest-receive direction (an external sender)");
  }

  /** Receives packets for the guest. */
  interface NetProtocol {
    /**
     * The program the driver's receive context runs for each packet; it reads the packet with
     * {@link NetDevice#rxFlow}, {@link NetDevice#rxAcked} and {@link NetDevice#rxLost}.
     */
    Program receivePath();
  }
}
