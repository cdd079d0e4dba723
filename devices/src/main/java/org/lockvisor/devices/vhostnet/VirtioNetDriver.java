package org.lockvisor.devices.vhostnet;

import static com.google.common.base.Preconditions.checkState;

import java.util.ArrayDeque;
import java.util.function.ToIntFunction;
import org.lockvisor.devices.spi.NetDevice.NetProtocol;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;

/**
 * The guest half of {@link VhostNet}: 3.0 {@code drivers/net/virtio_net.c}. TX
 * ({@code dev_hard_start_xmit}): {@code HARD_TX_LOCK}, {@code free_old_xmit_skbs}, {@code
 * xmit_skb} + {@code virtqueue_add_buf}, {@code virtqueue_kick} (a PIO exit into the host's kick
 * handler), packets the ring cannot take wait in the qdisc's requeue list until the TX interrupt
 * ({@code skb_xmit_done}). RX: the interrupt runs NAPI ({@code virtnet_poll}), hands each packet
 * to the protocol, refills buffers when half are used ({@code try_fill_recv}) and kicks the RX
 * queue if needed. {@code irqfd_inject} ({@code kvm_set_irq}) raises the guest interrupts.
 *
 * <p>Split out of {@link VhostNet}: the lock, rings, pool and counters come from {@link
 * VhostNetState}, the host's kick handlers come in as programs ({@link #build}).
 */
final class VirtioNetDriver {
  /** The attached device's state; null before attach. */
  private VhostNetState state;
  private final ArrayDeque<Packet> guestRequeue = new ArrayDeque<>();
  private final ArrayDeque<RxBuf> rxToRefill = new ArrayDeque<>();
  private Packet txGuestPacket;
  private int reclaimed;
  private Packet rxPacket;
  private NetProtocol protocol;
  private Program txNotify;
  private Program rxNotify;
  private Program flushRequeue;
  private Program rxInterrupt;
  /** Guest-receive (issue 32): the guest TCP's receive of one data skb, or null in guest-send. */
  private Program tcpDataRcv;
  /** The ACK the guest TCP is sending: the bytes it acknowledges (0 for data packets). */
  private long txAckBytes;
  private int txAckFlow;
  private long[] unacked = new long[0];
  private Program txInterrupt;
  /** irqfd injection of the RX and TX interrupts (run by the signaller or a kworker). */
  Program rxInject;
  Program txInject;

  void setProtocol(NetProtocol protocol) {
    this.protocol = protocol;
  }

  /**
   * Builds the guest's programs on device state {@code s}: the kick exits run the host's {@code
   * txKickHandler} and {@code rxKickHandler}; {@link #txInject} and {@link #rxInject} are what the
   * host's {@code vhost_signal} calls.
   */
  void build(VhostNetState s, Program txKickHandler, Program rxKickHandler) {
    this.state = s;
    VhostNetCosts costs = state.costs;
    int rxIrqCpu = state.config.rxIrqCpu();
    this.txNotify = Program.named("virtqueue_notify").op(Ops.vmExit("IO_INSTRUCTION", txKickHandler)).build();
    this.rxNotify = Program.named("virtqueue_notify").op(Ops.vmExit("IO_INSTRUCTION", rxKickHandler)).build();
    this.flushRequeue = Program.named("qdisc_restart")
        .run(t -> {
          Packet p;
          while ((p = guestRequeue.peek()) != null && state.txVq.add(p, 1) >= 0) {
            guestRequeue.poll();
          }
          if (!guestRequeue.isEmpty()) {
            state.txVq.enableCb(); // netif_stop_queue + virtqueue_enable_cb: wait for the TX interrupt
          }
        })
        .work(costs.kickPrepareNs(), "virtqueue_kick_prepare")
        .op(Ops.call(t -> state.txVq.kickPrepare() ? txNotify : null))
        .build();
    Program txDoneIrq = Program.named("skb_xmit_done")
        .run(t -> state.txVq.disableCb())
        .op(state.txLock.lock(LockMode.IRQSAVE))
        .run(t -> reclaimed = reclaimTx())
        .op(Ops.work(t -> reclaimed * costs.freeOldXmitNs(), "free_old_xmit_skbs"))
        .call(flushRequeue)
        .op(state.txLock.unlock(LockMode.IRQSAVE))
        .build();
    this.txInterrupt = Program.interruptHandler("vring_interrupt").work(costs.rxIrqEntryNs(), "handle_edge_irq")
        .call(txDoneIrq).build();
    this.txInject = Program.named("irqfd_inject")
        .work(costs.signalNs() - costs.eventfdSignalNs(), "kvm_set_irq")
        .run(t -> state.guest.cpu(rxIrqCpu).raiseInterrupt(txInterrupt))
        .build();

    Program receiveOne = Program.named("receive_buf")
        .work(costs.rxPerPacketNs(), "netif_receive_skb")
        .op(Ops.call(t -> tcpDataRcv != null ? tcpDataRcv : protocol == null ? null : protocol.receivePath()))
        .run(t -> {
          Packet p = rxPacket;
          rxPacket = null;
          state.pool.release(p);
        })
        .build();
    Program refill = Program.named("try_fill_recv")
        .op(Ops.work(t -> (long) rxToRefill.size() * costs.refillNs(), "add_recvbuf_small"))
        .run(t -> {
          RxBuf b;
          while ((b = rxToRefill.poll()) != null) {
            state.rxVq.add(b, 1);
          }
        })
        .work(costs.kickPrepareNs(), "virtqueue_kick_prepare")
        .op(Ops.call(t -> state.rxVq.kickPrepare() ? rxNotify : null))
        .build();
    Program poll = Program.named("virtnet_poll")
        .op(Ops.loopCall(t -> {
          for (;;) {
            RxBuf b = (RxBuf) state.rxVq.getBuf();
            if (b != null && b.content == null) {
              rxToRefill.add(b); // receive_mergeable: a further page of the packet before it
              continue;
            }
            if (b != null) {
              rxPacket = b.content;
              b.content = null;
              rxToRefill.add(b);
              state.stats.acks++;
              return receiveOne;
            }
            if (state.rxVq.enableCb()) {
              return null; // napi_complete + virtqueue_enable_cb: nothing arrived meanwhile
            }
            state.rxVq.disableCb();
          }
        }))
        .op(Ops.call(t -> rxToRefill.size() >= state.config.ringSize() / 2 ? refill : null))
        .build();
    this.rxInterrupt = Program.interruptHandler("vring_interrupt")
        .work(costs.rxIrqEntryNs(), "handle_edge_irq")
        .run(t -> state.rxVq.disableCb()) // skb_recv_done -> napi_schedule
        .call(poll)
        .build();
    this.rxInject = Program.named("irqfd_inject")
        .work(costs.signalNs() - costs.eventfdSignalNs(), "kvm_set_irq")
        .run(t -> state.guest.cpu(rxIrqCpu).raiseInterrupt(rxInterrupt))
        .build();
  }

  /** {@code dev_hard_start_xmit} of one packet whose flow and size the two functions give. */
  Program xmitPath(ToIntFunction<Task> flow, ToIntFunction<Task> bytes) {
    return xmitPath(flow, bytes, t -> false);
  }

  /** The same; {@code retransmission} marks the packet a retransmission (the peer's receive sees it fill a hole). */
  Program xmitPath(ToIntFunction<Task> flow, ToIntFunction<Task> bytes,
      java.util.function.Predicate<Task> retransmission) {
    return xmitPath(flow, bytes, t -> -1L, retransmission);
  }

  /** The same; {@code seq} numbers the packet's first byte (-1: none), so the peer can SACK (iperf recovery 3.0). */
  Program xmitPath(ToIntFunction<Task> flow, ToIntFunction<Task> bytes, java.util.function.ToLongFunction<Task> seq,
      java.util.function.Predicate<Task> retransmission) {
    VhostNetCosts costs = state.costs;
    Program startXmit = Program.named("start_xmit")
        .run(t -> reclaimed = reclaimTx())
        .op(Ops.work(t -> reclaimed * costs.freeOldXmitNs(), "free_old_xmit_skbs"))
        .work(costs.xmitSkbNs(), "xmit_skb")
        .work(costs.addNs(), "virtqueue_add_buf")
        .run(t -> {
          Packet p = txGuestPacket;
          txGuestPacket = null;
          state.stats.xmits++;
          Packet q;
          while ((q = guestRequeue.peek()) != null && state.txVq.add(q, 1) >= 0) {
            guestRequeue.poll(); // the qdisc's requeued packets go first
          }
          if (!guestRequeue.isEmpty() || state.txVq.add(p, 1) < 0) {
            state.stats.txRingFull++;
            guestRequeue.add(p);
            state.txVq.enableCb();
          }
        })
        .work(costs.kickPrepareNs(), "virtqueue_kick_prepare")
        .op(Ops.call(t -> state.txVq.kickPrepare() ? txNotify : null))
        .build();
    return Program.named("dev_hard_start_xmit")
        .op(state.txLock.lock(LockMode.IRQSAVE))
        .run(t -> {
          Packet p = state.pool.alloc();
          p.flow = flow.applyAsInt(t);
          p.bytes = bytes.applyAsInt(t);
          p.retrans = retransmission.test(t);
          p.seq = seq.applyAsLong(t);
          p.tsval = p.seq >= 0 ? t.machine().sim().now() : -1; // tcp_transmit_skb's TSval
          p.acked = txAckBytes;
          txAckBytes = 0;
          checkState(p.bytes > 0, "%s: transmit of %s bytes", state.name, p.bytes);
          txGuestPacket = p;
        })
        .call(startXmit)
        .op(state.txLock.unlock(LockMode.IRQSAVE))
        .build();
  }

  /**
   * The guest-receive direction: each data skb reaching the guest's TCP (the iperf 2 server's
   * socket) is copied to the reader ({@code tcp_recvmsg}, charged here: a simplification) and
   * ACKed by 3.0 net/ipv4/tcp_input.c {@code __tcp_ack_snd_check}: at once when more than one full
   * frame ({@code rcv_mss}) is unacknowledged, else the delayed ACK (the next skb of the flow
   * covers it; the 40 ms timer is not modelled). The ACK leaves through this driver's transmit path
   * ({@code tcp_send_ack} → {@code dev_queue_xmit} → {@code start_xmit}, a kick when EVENT_IDX asks).
   */
  void guestReceive(GuestReceive rx) {
    this.unacked = new long[rx.streams];
    int mss = state.config.mss();
    Program ack = xmitPath(t -> txAckFlow, t -> Packet.ACK_WIRE_BYTES);
    this.tcpDataRcv = Program.named("tcp_v4_rcv")
        .op(Ops.work(t -> state.costs.copyNs(rxPacket.bytes), "tcp_recvmsg"))
        .op(Ops.call(t -> {
          Packet p = rxPacket;
          state.stats.deliveredBytes += p.bytes;
          unacked[p.flow] += p.bytes;
          if (unacked[p.flow] <= mss) {
            return null;
          }
          txAckFlow = p.flow;
          txAckBytes = unacked[p.flow];
          unacked[p.flow] = 0;
          return ack;
        }))
        .build();
  }

  private int reclaimTx() {
    int n = 0;
    Object token;
    while ((token = state.txVq.getBuf()) != null) {
      state.pool.release((Packet) token);
      n++;
    }
    return n;
  }

  /** The packet the guest's receive path is handing to the protocol. */
  Packet receiving() {
    return rxPacket;
  }
}
