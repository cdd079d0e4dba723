package org.lockvisor.workloads.iperf;

import static com.google.common.base.Preconditions.checkState;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.lockvisor.core.plugin.Footprint;
import org.lockvisor.core.sim.EventHandler;
import org.lockvisor.devices.spi.NetDevice;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.SpinCondition;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.TaskAttachment;
import org.lockvisor.machine.TaskState;
import org.lockvisor.workloads.spi.Workload;
import org.lockvisor.workloads.spi.WorkloadContext;

/**
 * An iperf 2 client in the guest: {@code streams} TCP connections to a peer behind the VM's
 * network device, each written by its own guest task in a loop of {@code write(writeBytes)}.
 *
 * <p>The guest TCP sender, after Linux 3.0 {@code net/ipv4/tcp.c} and {@code tcp_output.c}:
 * <ul>
 *   <li>{@code tcp_sendmsg}: {@code lock_sock}; wait while the send buffer is full
 *       ({@code sk_stream_wait_memory}, which releases the socket); copy the write into the write
 *       queue; {@code tcp_push}; {@code release_sock} (runs the ACKs that arrived meanwhile).
 *   <li>{@code tcp_write_xmit}: send TSO packets of up to {@code size_goal} (64 KiB worth of
 *       MSS-sized segments) while the window {@code min(cwnd, rwnd)} allows; a sub-MSS tail waits
 *       for Nagle, and a window-limited packet smaller than {@code cwnd / tcp_tso_win_divisor}
 *       is deferred ({@code tcp_tso_should_defer}) until more ACKs come.
 *   <li>ACKs arrive in the driver's receive context: with the socket owned by the writer they go
 *       to its backlog, else {@code tcp_ack} frees the window (slow start, then Reno congestion
 *       avoidance; a reported loss halves cwnd once per window and the lost bytes are resent),
 *       {@code tcp_write_xmit} sends more, and {@code sk_stream_write_space} wakes the writer.
 * </ul>
 * With {@code recovery: simple} (the default): Reno instead of 3.0's default CUBIC, a loss reported
 * by the device at the drop and retransmitted at once as new data (no RTO, no SACK). With
 * {@code recovery: 3.0} the packets carry sequence numbers and {@link SackSender} runs 3.0.27's SACK
 * scoreboard, recovery, RTO (a timer interrupt on the guest CPU that armed it) and CUBIC on the
 * peer's cumulative ACKs and SACK blocks; the socket backlog keeps every ACK. {@code sk_lock.slock}
 * is a wait for the receive context, not a lock plugin. Reports goodput (acknowledged bytes) in
 * Gbps and a host {@code top} view.
 *
 * <p>With {@code direction: guest-receive} (issue 32) the guest is the server of an external
 * client: no guest task writes; the device models the sender ({@code receiveFromExternalSender}).
 *
 * <p>Above 600 lines on purpose: the 3.0 sender's paths (sendmsg, write_xmit, ACK, backlog, the
 * retransmission timer) share one stream's state and read best together; the figures and native
 * report belong beside them (the TCP state machine itself is in {@link SackSender}).
 */
public final class IperfWorkload implements Workload, EventHandler {
  /** One queued ACK: cumulative ACK, TSecr, block count, 3 blocks. */
  private static final int ACK_ENTRY = 9;
  private static final TaskAttachment<Stream> STREAM = TaskAttachment.of("iperf stream", Stream.class);

  private final String name;
  private final IperfConfig config;
  private final IperfCosts costOverride;
  private IperfCosts costs;
  private Machine machine;
  private NetDevice dev;
  private final List<Stream> streams = new ArrayList<>();
  /** Per guest CPU: the stream whose packet (or timer) the interrupt context on it is handling. */
  private Stream[] softirqStream = new Stream[1];
  private boolean v3;
  private Program writeXmitProgram;
  private long since;
  private long[] hostCpuBase = new long[0];
  /** User and total CPU time of the writer tasks at the start of the window. */
  private long[] senderCpuBase = new long[2];
  private int mss;
  private long sizeGoal;

  public IperfWorkload(String name, IperfConfig config) {
    this(name, config, null);
  }

  /** With explicit costs (tests, what-ifs); null takes them from the context at start. */
  public IperfWorkload(String name, IperfConfig config, IperfCosts costs) {
    this.name = name;
    this.config = config;
    this.costOverride = costs;
  }

  /** One TCP connection's sender state and its writer task. */
  final class Stream {
    final int id;
    Task task;
    long backlog; // written, not yet sent
    long retrans; // reported lost, not yet retransmitted (recovery 3.0)
    boolean segRetrans; // the segment being sent is a retransmission
    int cwndCnt; // tcp_cwnd_down's snd_cwnd_cnt: one decrement per second ACK in Recovery
    long inflight; // sent, not yet acknowledged or reported lost
    long cwnd;
    long ssthresh = Long.MAX_VALUE;
    long sndNxt;
    long resolved; // acknowledged + reported lost, cumulative
    long recover;
    long seg;
    boolean owned;
    boolean softirqActive;
    boolean waitingMemory;
    Task sockWaiter;
    long pendingAcked;
    long pendingLost;
    long ackedBytes;
    long lostBytes;
    long segments;
    long segmentBytes;
    long reductions;
    Program lockSock;
    Program releaseSock;
    /** Recovery 3.0: the scoreboard and 3.0.27 SACK/FACK recovery, RTO and CUBIC; null with simple. */
    SackSender tcp;
    /** Recovery 3.0: tcp_xmit_retransmit_queue runs before new data (after an ACK or the RTO). */
    boolean xmitRetrans;
    long segSeq; // the packet's first sequence number
    long retransK; // the scoreboard segment being retransmitted
    /** Recovery 3.0: ACKs not yet processed (the socket backlog), {ack, n, 3 blocks} each, in order. */
    long[] ackQ = new long[ACK_ENTRY * 4];
    int ackQHead;
    int pendingAcks;
    final long[] ackSack = new long[6];
    Program rtoProgram;
    long timerAt = Long.MAX_VALUE; // the retransmission timer's live simulation event
    boolean rtoRaised; // the timer softirq is pending
    int timerCpu; // the guest CPU that last armed the retransmission timer (mod_timer)
    /** RTT measurement (one timed segment at a time, Karn: none across a loss). */
    boolean timing;
    long rttSeq;
    long rttStartNs;
    long srttNs;
    long rttvarNs;
    long minRttNs = Long.MAX_VALUE;
    long maxRttNs;
    long rttSumNs;
    long rttSamples;
    long maxCwnd;
    /** Interval reports: counters at the start of the current interval, and the closed ones. */
    long intervalBytes;
    long intervalLost;
    final List<long[]> intervals = new ArrayList<>();

    Stream(int id) {
      this.id = id;
      this.cwnd = (long) config.initCwndSegments() * mss;
    }
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String model() {
    return IperfFactory.NAME;
  }

  /** Each stream: a task and its socket state, about 1,500 bytes (10,000 streams took 12 MB). */
  @Override
  public Footprint footprint() {
    return new Footprint(Footprint.times(config.streams(), 1_500), config.streams() + " streams");
  }

  public IperfConfig config() {
    return config;
  }

  @Override
  public void start(WorkloadContext ctx) {
    checkState(machine == null, "%s is started already", name);
    this.machine = ctx.machine();
    this.costs = costOverride != null ? costOverride : IperfCosts.from(ctx.costs());
    this.dev = ctx.device(config.netdev(), NetDevice.class);
    this.mss = dev.mss();
    if (config.direction() == IperfConfig.Direction.GUEST_RECEIVE) {
      dev.receiveFromExternalSender(config.streams(), config.rwndBytes());
      this.since = machine.sim().now();
      return;
    }
    this.sizeGoal = Math.max(mss, (long) (dev.gsoMaxBytes() / mss) * mss);
    this.v3 = config.recovery() == IperfConfig.Recovery.V3_0;
    this.softirqStream = new Stream[ctx.vm().guest().cpuCount()];
    Program xmit = v3
        ? dev.xmitPath(t -> ctxStream(t).id, t -> (int) ctxStream(t).seg, t -> ctxStream(t).segSeq,
            t -> ctxStream(t).segRetrans)
        : dev.xmitPath(t -> ctxStream(t).id, t -> (int) ctxStream(t).seg, t -> ctxStream(t).segRetrans);
    Program sendOne = Program.named("tcp_transmit_skb")
        .run(t -> {
          Stream s = ctxStream(t);
          if (s.tcp != null) {
            s.timerCpu = t.cpu().index(); // the retransmission timer is (re)armed on this CPU
            sent3(s);
            return;
          }
          s.inflight += s.seg;
          if (s.segRetrans) {
            s.retrans -= s.seg; // tcp_retransmit_skb: snd_nxt stays, no RTT sample (Karn)
          } else {
            s.backlog -= s.seg;
            s.sndNxt += s.seg;
          }
          if (!s.timing && !s.segRetrans) {
            s.timing = true;
            s.rttSeq = s.sndNxt;
            s.rttStartNs = machine.sim().now();
          }
          s.segments++;
          s.segmentBytes += s.seg;
        })
        .work(costs.segmentNs(), "ip_queue_xmit")
        .call(xmit)
        .build();
    Program writeXmit = Program.named("tcp_write_xmit")
        .op(Ops.loopCall(t -> {
          Stream s = ctxStream(t);
          s.seg = nextSegment(s);
          return s.seg > 0 ? sendOne : null;
        }))
        .build();
    this.writeXmitProgram = writeXmit;
    Program ack = Program.named("tcp_rcv_established")
        .work(costs.ackNs(), "tcp_ack")
        .run(t -> {
          Stream s = ctxStream(t);
          s.timerCpu = t.cpu().index();
          processPending(s);
        })
        .call(writeXmit)
        .op(Ops.wake(t -> {
          Stream s = ctxStream(t);
          return s.waitingMemory && hasSpace(s) ? s.task : null; // sk_stream_write_space
        }))
        .build();
    Program rcvOwned = Program.named("sk_add_backlog").work(costs.backlogNs(), "sk_add_backlog").build();
    Program receive = Program.named("tcp_v4_rcv")
        .op(Ops.call(t -> {
          Stream s = streams.get(dev.rxFlow(t));
          softirqStream[t.cpu().index()] = s;
          if (s.tcp != null) {
            queueAck(s, dev.rxAckSeq(t), t);
          } else {
            s.pendingAcked += dev.rxAcked(t);
            s.pendingLost += dev.rxLost(t);
          }
          if (s.owned) {
            return rcvOwned;
          }
          s.softirqActive = true;
          return ack;
        }))
        .run(t -> endSoftirq(t))
        .build();
    dev.setProtocol(() -> receive);

    Program processBacklog = Program.named("tcp_v4_do_rcv")
        .work(costs.ackNs(), "tcp_ack")
        .run(t -> {
          Stream s = ctxStream(t);
          s.timerCpu = t.cpu().index();
          processPending(s);
        })
        .call(writeXmit)
        .build();
    for (int i = 0; i < config.streams(); i++) {
      Stream s = new Stream(i);
      s.lockSock = Program.named("lock_sock").op(new LockSock(s)).build();
      s.releaseSock = Program.named("release_sock")
          .op(Ops.loopCall(t -> s.pendingAcked + s.pendingLost + s.pendingAcks > 0 ? processBacklog
              : releaseNow(s)))
          .build();
      if (v3) {
        s.tcp = new SackSender(mss, config.initCwndSegments(), config.rwndBytes(),
            ctx.vm().guest().config().tickNs());
        s.rtoProgram = rtoProgram(s);
      }
      streams.add(s);
    }
    Program waitMemory = Program.named("sk_stream_wait_memory")
        .run(t -> ctxStream(t).waitingMemory = true)
        .call(Program.named("release_sock_wrap").op(Ops.call(t -> ctxStream(t).releaseSock)).build())
        .op(Ops.sleepUntil(null, t -> hasSpace(ctxStream(t))))
        .run(t -> ctxStream(t).waitingMemory = false)
        .op(Ops.call(t -> ctxStream(t).lockSock))
        .build();
    Program sendmsg = Program.named("tcp_sendmsg")
        .op(Ops.call(t -> ctxStream(t).lockSock))
        .op(Ops.loopWhile(t -> !hasSpace(ctxStream(t)), waitMemory))
        .op(Ops.work(t -> costs.sendmsgNs() + costs.copyNs(config.writeBytes()), "copy_from_user"))
        .run(t -> ctxStream(t).backlog += config.writeBytes())
        .call(writeXmit)
        .op(Ops.call(t -> ctxStream(t).releaseSock))
        .build();
    Program write = Program.named("sys_write")
        .work(costs.syscallNs(), "system_call")
        .call(sendmsg)
        .build();
    Program iteration = Program.named("iperf_client")
        .op(Ops.userWork(costs.userPerWriteNs(), "iperf_client_loop"))
        .call(write)
        .build();
    Program main = Program.named("iperf").loopWhile(t -> true, iteration).build();
    for (Stream s : streams) {
      s.task = ctx.vm().guest().spawn(name + "/stream" + s.id, main);
      STREAM.set(s.task, s);
    }
    this.since = machine.sim().now();
  }

  /** Stream {@code i} (tests). */
  Stream streamForTest(int i) {
    return streams.get(i);
  }

  /** The stream of the context: the softirq's packet in the receive path, else the task's own. */
  private Stream ctxStream(Task t) {
    return t.inInterrupt() ? softirqStream[t.cpu().index()] : STREAM.get(t);
  }

  /** The receive context leaves the socket: the writer spinning in lock_sock may take it. */
  private void endSoftirq(Task t) {
    int cpu = t.cpu().index();
    Stream s = softirqStream[cpu];
    if (s.softirqActive) {
      s.softirqActive = false;
      if (s.sockWaiter != null) {
        s.sockWaiter.poke(0);
      }
    }
    softirqStream[cpu] = null;
  }

  /** Recovery 3.0: the received ACK joins the stream's queue (processed at once unless the socket is owned). */
  private void queueAck(Stream s, long ack, Task t) {
    int cap = s.ackQ.length / ACK_ENTRY;
    if (s.pendingAcks == cap) { // grows to the deepest backlog seen, then stays
      long[] q = new long[s.ackQ.length * 2];
      for (int i = 0; i < cap; i++) {
        System.arraycopy(s.ackQ, ACK_ENTRY * ((s.ackQHead + i) % cap), q, ACK_ENTRY * i, ACK_ENTRY);
      }
      s.ackQ = q;
      s.ackQHead = 0;
      cap *= 2;
    }
    int e = ACK_ENTRY * ((s.ackQHead + s.pendingAcks) % cap);
    s.ackQ[e] = ack;
    s.ackQ[e + 1] = dev.rxTsecr(t);
    s.ackQ[e + 2] = dev.rxSackBlocks(t, s.ackSack);
    System.arraycopy(s.ackSack, 0, s.ackQ, e + 3, 6);
    s.pendingAcks++;
  }

  /** tcp_ack of what arrived (in the softirq, or from the backlog at release_sock). */
  private void processPending(Stream s) {
    if (s.tcp != null) {
      int cap = s.ackQ.length / ACK_ENTRY;
      int e = ACK_ENTRY * s.ackQHead;
      long ack = s.ackQ[e];
      long tsecr = s.ackQ[e + 1];
      int n = (int) s.ackQ[e + 2];
      System.arraycopy(s.ackQ, e + 3, s.ackSack, 0, 2 * n);
      s.ackQHead = (s.ackQHead + 1) % cap;
      s.pendingAcks--;
      onAck3(s, ack, s.ackSack, n, tsecr); // one ACK per tcp_v4_do_rcv, as __release_sock feeds the backlog
      return;
    }
    long acked = s.pendingAcked;
    long lost = s.pendingLost;
    s.pendingAcked = 0;
    s.pendingLost = 0;
    onAck(s, acked, lost);
  }

  private boolean hasSpace(Stream s) {
    return s.backlog + s.retrans + s.inflight + config.writeBytes() <= config.sndbufBytes();
  }

  /** release_sock's last step, atomic with the softirq's owned check: returns null to end the loop. */
  private Program releaseNow(Stream s) {
    s.owned = false;
    return null;
  }

  /** In {@code TCP_CA_Recovery}: a loss was reported and not all data sent before it is resolved. */
  static boolean inRecovery(Stream s) {
    if (s.tcp != null) {
      return s.tcp.state == SackSender.RECOVERY;
    }
    return s.resolved < s.recover;
  }

  /**
   * The next packet (0: send nothing now): with 3.0 recovery, {@code tcp_xmit_retransmit_queue}
   * first — while packets in flight are below cwnd, each lost segment again, fragmented to one MSS
   * by {@code tcp_retransmit_skb} (3.0.27 net/ipv4/tcp_output.c) — then {@code tcp_write_xmit}'s
   * TSO packet of new data.
   */
  long nextSegment(Stream s) {
    if (s.tcp != null) {
      return nextSegment3(s);
    }
    long wnd = Math.min(s.cwnd, config.rwndBytes());
    long avail = wnd - s.inflight;
    s.segRetrans = false;
    if (s.retrans > 0) {
      if (avail <= 0) {
        return 0;
      }
      s.segRetrans = true;
      return Math.min(mss, s.retrans);
    }
    if (s.backlog <= 0 || avail <= 0) {
      return 0;
    }
    long seg = Math.min(sizeGoal, Math.min(s.backlog, avail));
    if (seg < s.backlog) {
      seg = seg / mss * mss; // whole segments unless it is the write queue's tail
    }
    if (seg <= 0) {
      return 0;
    }
    if (seg < mss && s.inflight > 0) {
      return 0; // Nagle: a sub-MSS tail waits for the outstanding data
    }
    boolean windowLimited = seg < sizeGoal && seg < s.backlog;
    // tcp_tso_should_defer (3.0.27 tcp_output.c): "if (icsk->icsk_ca_state != TCP_CA_Open) goto send_now"
    boolean caOpen = config.recovery() == IperfConfig.Recovery.SIMPLE || !inRecovery(s);
    if (windowLimited && caOpen && s.inflight > 0 && config.tsoWinDivisor() > 0
        && avail < wnd / config.tsoWinDivisor()) {
      return 0; // wait for more ACKs to send a bigger packet
    }
    return seg;
  }

  /**
   * tcp_ack: window, congestion control, loss recovery. With 3.0 recovery (3.0.27
   * net/ipv4/tcp_input.c {@code tcp_fastretrans_alert}): a loss enters Recovery with ssthresh =
   * cwnd / 2 (Reno) and cwnd unchanged; every ACK in Recovery runs {@code tcp_cwnd_down}: one segment
   * off cwnd per second ACK while above ssthresh, then {@code snd_cwnd = min(snd_cwnd,
   * tcp_packets_in_flight(tp) + 1)}, so each ACK releases about one segment; the ACK that ends
   * Recovery runs {@code tcp_complete_cwr} (cwnd = min(cwnd, ssthresh)). Simple: cwnd halves at once.
   */
  void onAck(Stream s, long acked, long lost) {
    closeIntervals();
    boolean v3 = config.recovery() == IperfConfig.Recovery.V3_0;
    boolean wasRecovering = inRecovery(s);
    s.inflight -= acked + lost;
    s.ackedBytes += acked;
    if (lost > 0) {
      s.timing = false; // Karn: no sample from a window with a retransmission
      s.lostBytes += lost;
      if (v3) {
        s.retrans += lost; // tcp_xmit_retransmit_queue, one MSS at a time
      } else {
        s.backlog += lost; // retransmitted as new data
      }
      if (s.resolved >= s.recover) {
        s.ssthresh = Math.max(s.cwnd / 2, 2L * mss);
        if (!v3) {
          s.cwnd = s.ssthresh;
        }
        s.cwndCnt = 0;
        s.recover = s.sndNxt;
        s.reductions++;
      }
    }
    s.resolved += acked + lost;
    if (s.timing && s.resolved >= s.rttSeq) {
      rttSample(s, machine.sim().now() - s.rttStartNs);
    }
    if (v3 && inRecovery(s)) {
      int decr = s.cwndCnt + 1; // tcp_cwnd_down
      s.cwndCnt = decr & 1;
      if ((decr >> 1) > 0 && s.cwnd > s.ssthresh) {
        s.cwnd -= mss;
      }
      s.cwnd = Math.max(mss, Math.min(s.cwnd, s.inflight + mss));
    } else if (v3 && wasRecovering) {
      s.cwnd = Math.min(s.cwnd, s.ssthresh); // tcp_complete_cwr
    } else if (acked > 0 && s.resolved >= s.recover) {
      if (s.cwnd < s.ssthresh) {
        s.cwnd += acked;
      } else {
        s.cwnd += Math.max(1, (long) mss * acked / s.cwnd);
      }
      s.cwnd = Math.min(s.cwnd, config.rwndBytes());
    }
    s.maxCwnd = Math.max(s.maxCwnd, s.cwnd);
  }

  // -------------------------------------------------------------------------------------------
  // Recovery 3.0: the sender's segments, ACKs and timer through SackSender.

  /**
   * Recovery 3.0: after an ACK or the RTO, {@code tcp_xmit_retransmit_queue}'s next lost segment
   * (one MSS, {@code tcp_retransmit_skb}); then {@code tcp_write_xmit}'s TSO packet of new data
   * within {@code cwnd - tcp_packets_in_flight} segments and the receive window, deferred by
   * {@code tcp_tso_should_defer} only in {@code TCP_CA_Open} (3.0.27 net/ipv4/tcp_output.c).
   */
  private long nextSegment3(Stream s) {
    SackSender tcp = s.tcp;
    s.segRetrans = false;
    if (s.xmitRetrans) {
      long k = tcp.nextRetransmit();
      if (k >= 0) {
        s.segRetrans = true;
        s.retransK = k;
        s.segSeq = tcp.q.startOf(k);
        return tcp.q.endOf(k) - s.segSeq;
      }
      s.xmitRetrans = false;
    }
    int quota = tcp.cwnd() - tcp.inFlight(); // tcp_cwnd_test
    if (s.backlog <= 0 || quota <= 0) {
      return 0;
    }
    long avail = Math.min((long) quota * mss, tcp.q.sndUna + config.rwndBytes() - tcp.q.sndNxt); // tcp_snd_wnd_test
    if (avail <= 0) {
      return 0;
    }
    long seg = Math.min(sizeGoal, Math.min(s.backlog, avail));
    if (seg < s.backlog) {
      seg = seg / mss * mss;
    }
    if (seg <= 0 || (seg < mss && tcp.q.packetsOut() > 0)) {
      return 0; // Nagle holds a sub-MSS tail while data is out
    }
    long wnd = Math.min((long) tcp.cwnd() * mss, config.rwndBytes());
    boolean windowLimited = seg < sizeGoal && seg < s.backlog;
    if (windowLimited && tcp.state == SackSender.OPEN && tcp.q.packetsOut() > 0 && config.tsoWinDivisor() > 0
        && avail < wnd / config.tsoWinDivisor()) {
      return 0;
    }
    s.segSeq = tcp.q.sndNxt;
    return seg;
  }

  /** Recovery 3.0: the packet of {@link #nextSegment3} leaves ({@code tcp_transmit_skb}). */
  void sent3(Stream s) {
    SackSender tcp = s.tcp;
    long now = machine.sim().now();
    if (s.segRetrans) {
      tcp.retransmitted(s.retransK, now);
      s.lostBytes += s.seg; // bytes retransmitted
    } else {
      tcp.sendNew((int) s.seg, now);
      s.backlog -= s.seg;
      s.sndNxt = tcp.q.sndNxt;
      if (!s.timing) {
        s.timing = true;
        s.rttSeq = s.sndNxt;
        s.rttStartNs = now;
      }
    }
    s.inflight = tcp.q.sndNxt - tcp.q.sndUna;
    s.segments++;
    s.segmentBytes += s.seg;
    armTimer(s);
  }

  /** Recovery 3.0: {@code tcp_ack} of the cumulative ACK {@code ack} with {@code n} SACK blocks. */
  void onAck3(Stream s, long ack, long[] blocks, int n) {
    onAck3(s, ack, blocks, n, -1);
  }

  /** The same with the ACK's TSecr (ns of the guest's clock, -1: none). */
  void onAck3(Stream s, long ack, long[] blocks, int n, long tsecr) {
    closeIntervals();
    SackSender tcp = s.tcp;
    long now = machine.sim().now();
    long prevUna = tcp.q.sndUna;
    long prevEvents = tcp.recoveries + tcp.timeouts;
    if (ack >= 0 && tcp.onAck(ack, blocks, n, tsecr, now)) {
      s.xmitRetrans = true;
    }
    long acked = tcp.q.sndUna - prevUna;
    s.ackedBytes += acked;
    s.resolved = tcp.q.sndUna;
    if (tcp.recoveries + tcp.timeouts != prevEvents) {
      s.timing = false; // Karn: no sample across a retransmission
      s.reductions++;
    }
    if (s.timing && s.resolved >= s.rttSeq) {
      rttSample(s, now - s.rttStartNs);
    }
    if (acked > 0 && s.srttNs > 0) {
      tcp.rttSample(s.srttNs, s.rttvarNs); // timestamps: every ACK of data is a valid sample
    }
    s.inflight = tcp.q.sndNxt - tcp.q.sndUna;
    s.cwnd = (long) tcp.cwnd() * mss;
    s.ssthresh = (long) tcp.ssthresh() * mss;
    s.maxCwnd = Math.max(s.maxCwnd, s.cwnd);
    armTimer(s);
  }

  /** Keeps one simulation event at or before the stream's RTO deadline (lazily moved on). */
  private void armTimer(Stream s) {
    long due = s.tcp.timerNs;
    if (due == Long.MAX_VALUE || s.timerAt <= due || s.rtoRaised) {
      return;
    }
    s.timerAt = Math.max(due, machine.sim().now());
    machine.sim().scheduleAt(s.timerAt, this, 0, s.id);
  }

  /** The RTO's simulation event: due, it raises the timer softirq on the CPU that last armed the timer. */
  @Override
  public void onEvent(int kind, long arg) {
    Stream s = streams.get((int) arg);
    long now = machine.sim().now();
    if (now != s.timerAt) {
      return; // superseded by an earlier deadline
    }
    s.timerAt = Long.MAX_VALUE;
    if (s.tcp.timerNs > now) {
      armTimer(s);
      return;
    }
    s.rtoRaised = true;
    s.task.kernel().cpu(s.timerCpu).raiseInterrupt(s.rtoProgram); // the CPU that last armed it
  }

  /**
   * {@code tcp_write_timer} → {@code tcp_retransmit_timer} (3.0.27 net/ipv4/tcp_timer.c) in the
   * timer softirq: a socket owned by its writer retries in HZ / 20; else Loss, and the head goes
   * out again through {@code tcp_xmit_retransmit_queue}'s path.
   */
  private Program rtoProgram(Stream s) {
    Program xmit = Program.named("tcp_retransmit_timer")
        .call(writeXmitProgram)
        .op(Ops.wake(t -> s.waitingMemory && hasSpace(s) ? s.task : null))
        .build();
    return Program.interruptHandler("tcp_write_timer")
        .op(Ops.call(t -> {
          s.rtoRaised = false;
          s.timerCpu = t.cpu().index();
          long now = machine.sim().now();
          if (s.owned || s.softirqActive) {
            s.tcp.timerNs = now + SackSender.OWNED_RETRY_NS;
            armTimer(s);
            return null;
          }
          if (!s.tcp.onTimeout(now)) {
            return null;
          }
          s.timing = false;
          s.reductions++;
          s.cwnd = (long) s.tcp.cwnd() * mss;
          s.xmitRetrans = true;
          softirqStream[t.cpu().index()] = s;
          s.softirqActive = true;
          return xmit;
        }))
        .run(t -> {
          if (softirqStream[t.cpu().index()] == s) {
            endSoftirq(t);
          }
          armTimer(s);
        })
        .build();
  }

  /**
   * {@code tcp_rtt_estimator} (net/ipv4/tcp_input.c) in RFC 6298's form: the first sample sets
   * srtt and rttvar = rtt/2; later ones move srtt by 1/8 and rttvar by 1/4 of the difference.
   */
  private static void rttSample(Stream s, long rtt) {
    s.timing = false;
    if (s.srttNs == 0) {
      s.srttNs = rtt;
      s.rttvarNs = rtt / 2;
    } else {
      s.rttvarNs += (Math.abs(s.srttNs - rtt) - s.rttvarNs) / 4;
      s.srttNs += (rtt - s.srttNs) / 8;
    }
    s.minRttNs = Math.min(s.minRttNs, s.srttNs);
    s.maxRttNs = Math.max(s.maxRttNs, s.srttNs);
    s.rttSumNs += s.srttNs;
    s.rttSamples++;
  }

  /**
   * Closes the interval reports due by now ({@code iperf3 -i}: {@code iperf_stats_callback} on a
   * timer; here checked when an ACK arrives, so an interval ends at the first ACK at or after its
   * boundary, within one ACK of it). Each report holds, per stream, {@code {start, end, bytes,
   * lost bytes, cwnd, srtt, rttvar}} since the start of the window.
   */
  private void closeIntervals() {
    if (config.intervalNs() == 0 || streams.isEmpty()) {
      return;
    }
    long now = machine.sim().now();
    long start = streams.get(0).intervals.isEmpty() ? since
        : streams.get(0).intervals.get(streams.get(0).intervals.size() - 1)[1];
    if (now - start >= config.intervalNs()) {
      for (Stream s : streams) {
        closeInterval(s, start, now);
      }
    }
  }

  private void closeInterval(Stream s, long start, long end) {
    s.intervals.add(new long[] {start, end, s.ackedBytes - s.intervalBytes, s.lostBytes - s.intervalLost, s.cwnd,
        s.srttNs, s.rttvarNs});
    s.intervalBytes = s.ackedBytes;
    s.intervalLost = s.lostBytes;
  }

  /** lock_sock: waits while the receive context processes this socket, then owns it. */
  private static final class LockSock extends Op {
    private final Stream s;
    private final SpinCondition free;
    private int sym = -1;
    private Machine owner;

    LockSock(Stream s) {
      this.s = s;
      this.free = t -> !s.softirqActive;
    }

    @Override
    public int execute(Task t, int phase) {
      if (phase == 0 && s.softirqActive) {
        if (owner != t.machine()) {
          sym = t.machine().symbols().symbol("_raw_spin_lock_bh", Machine.DOMAIN_KERNEL);
          owner = t.machine();
        }
        s.sockWaiter = t;
        t.startSpin(sym, free, 0, null);
        return AGAIN;
      }
      s.sockWaiter = null;
      s.owned = true;
      return NEXT;
    }
  }

  // -------------------------------------------------------------------------------------------
  // Figures.

  @Override
  public void resetStats() {
    for (Stream s : streams) {
      s.ackedBytes = s.lostBytes = s.segments = s.segmentBytes = s.reductions = 0;
      s.intervalBytes = s.intervalLost = 0;
      s.intervals.clear();
      s.minRttNs = Long.MAX_VALUE;
      s.maxRttNs = s.rttSumNs = s.rttSamples = 0;
      s.maxCwnd = s.cwnd;
      if (s.tcp != null) {
        s.tcp.recoveries = s.tcp.timeouts = s.tcp.undos = s.tcp.q.retransmitted = s.tcp.q.reorderEvents = 0;
      }
    }
    if (machine != null) {
      since = machine.sim().now();
      senderCpuBase = senderCpu();
      machine.syncAccounting();
      List<Task> tasks = machine.tasks();
      hostCpuBase = new long[tasks.size()];
      for (Task t : tasks) {
        hostCpuBase[t.id()] = machine.account().threadTotal(t.id());
      }
    }
  }

  private double elapsedSeconds() {
    return Math.max(1, machine.sim().now() - since) / 1e9;
  }

  /** Goodput over the measurement window, Gbit/s. */
  public double throughputGbps() {
    if (config.direction() == IperfConfig.Direction.GUEST_RECEIVE) {
      return dev.deliveredBitsPerSecond() / 1e9; // what the guest's TCP received, in order
    }
    long bytes = streams.stream().mapToLong(s -> s.ackedBytes).sum();
    return bytes * 8 / elapsedSeconds() / 1e9;
  }

  /** Host threads by CPU share over the window, highest first: the host {@code top} view. */
  public ImmutableList<Map.Entry<String, Double>> hostTop() {
    machine.syncAccounting();
    double window = Math.max(1, machine.sim().now() - since);
    List<Map.Entry<String, Double>> rows = new ArrayList<>();
    for (Task t : machine.host().tasks()) {
      long base = t.id() < hostCpuBase.length ? hostCpuBase[t.id()] : 0;
      double pct = 100.0 * (machine.account().threadTotal(t.id()) - base) / window;
      if (pct > 0) {
        rows.add(Map.entry(t.name(), pct));
      }
    }
    rows.sort(Comparator.comparing((Map.Entry<String, Double> e) -> -e.getValue()).thenComparing(Map.Entry::getKey));
    return ImmutableList.copyOf(rows);
  }

  @Override
  public ImmutableMap<String, Number> figures() {
    long segments = streams.stream().mapToLong(s -> s.segments).sum();
    long segBytes = streams.stream().mapToLong(s -> s.segmentBytes).sum();
    ImmutableMap.Builder<String, Number> m = ImmutableMap.builder();
    m.put("throughput_gbps", throughputGbps());
    m.put("segments", segments);
    m.put("mean_segment_bytes", segments == 0 ? 0.0 : (double) segBytes / segments);
    m.put("lost_bytes", streams.stream().mapToLong(s -> s.lostBytes).sum());
    m.put("cwnd_reductions", streams.stream().mapToLong(s -> s.reductions).sum());
    m.put("mean_cwnd_bytes", streams.stream().mapToLong(s -> s.cwnd).average().orElse(0));
    if (v3) {
      m.put("tcp_recoveries", streams.stream().mapToLong(s -> s.tcp.recoveries).sum());
      m.put("tcp_timeouts", streams.stream().mapToLong(s -> s.tcp.timeouts).sum());
      m.put("tcp_retransmitted_segments", streams.stream().mapToLong(s -> s.tcp.q.retransmitted).sum());
      m.put("tcp_undos", streams.stream().mapToLong(s -> s.tcp.undos).sum());
      m.put("tcp_reordering_raised", streams.stream().mapToLong(s -> s.tcp.q.reorderEvents).sum());
      m.put("tcp_mean_reordering", streams.stream().mapToInt(s -> s.tcp.q.reordering).average().orElse(0));
    }
    for (Map.Entry<String, Double> e : hostTop()) {
      if (e.getKey().startsWith("vhost-")) {
        m.put("top." + e.getKey() + "_percent", e.getValue());
      }
    }
    m.put("runtime_ns", machine.sim().now() - since);
    return m.build();
  }

  /** iperf 2 shape: per-stream and summed intervals, plus the host top view. */
  @Override
  public Optional<Map<String, Object>> nativeReport() {
    if (machine == null) {
      return Optional.empty();
    }
    double secs = elapsedSeconds();
    List<Object> intervals = new ArrayList<>();
    long now = machine.sim().now();
    for (Stream s : streams) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("stream", s.id);
      row.put("bytes", s.ackedBytes);
      row.put("bits_per_second", s.ackedBytes * 8 / secs);
      row.put("lost_bytes", s.lostBytes);
      row.put("cwnd_bytes", s.cwnd);
      row.put("max_cwnd_bytes", Math.max(s.maxCwnd, s.cwnd));
      row.put("srtt_ns", s.srttNs);
      row.put("rttvar_ns", s.rttvarNs);
      row.put("min_rtt_ns", s.rttSamples == 0 ? 0 : s.minRttNs);
      row.put("max_rtt_ns", s.maxRttNs);
      row.put("mean_rtt_ns", s.rttSamples == 0 ? 0 : s.rttSumNs / s.rttSamples);
      List<long[]> closed = new ArrayList<>(s.intervals);
      long lastEnd = closed.isEmpty() ? since : closed.get(closed.size() - 1)[1];
      if (closed.isEmpty() || now > lastEnd) {
        closed.add(new long[] {lastEnd, now, s.ackedBytes - s.intervalBytes, s.lostBytes - s.intervalLost, s.cwnd,
            s.srttNs, s.rttvarNs});
      }
      List<Object> rows = new ArrayList<>();
      for (long[] iv : closed) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("start_ns", iv[0] - since);
        r.put("end_ns", iv[1] - since);
        r.put("bytes", iv[2]);
        r.put("lost_bytes", iv[3]);
        r.put("cwnd_bytes", iv[4]);
        r.put("srtt_ns", iv[5]);
        r.put("rttvar_ns", iv[6]);
        rows.add(r);
      }
      row.put("intervals", rows);
      intervals.add(row);
    }
    long[] cpu = senderCpu();
    double window = Math.max(1, now - since);
    double receiver = 0;
    for (Map.Entry<String, Double> e : hostTop()) {
      if (e.getKey().startsWith("vhost-")) {
        receiver += e.getValue();
      }
    }
    Map<String, Object> cpuReport = new LinkedHashMap<>();
    cpuReport.put("sender_user_percent", 100.0 * (cpu[0] - senderCpuBase[0]) / window);
    cpuReport.put("sender_system_percent", 100.0 * ((cpu[1] - senderCpuBase[1]) - (cpu[0] - senderCpuBase[0])) / window);
    cpuReport.put("receiver_system_percent", receiver);
    List<Object> top = new ArrayList<>();
    for (Map.Entry<String, Double> e : hostTop()) {
      top.add(ImmutableMap.of("thread", e.getKey(), "cpu_percent", e.getValue()));
    }
    Map<String, Object> report = new LinkedHashMap<>();
    report.put("tool", "lockvisor-iperf2-model");
    report.put("seconds", secs);
    report.put("streams", intervals);
    report.put("sum_bits_per_second", throughputGbps() * 1e9);
    report.put("interval_seconds", config.intervalNs() / 1e9);
    report.put("mss", mss);
    report.put("rwnd_bytes", config.rwndBytes());
    report.put("sndbuf_bytes", config.sndbufBytes());
    report.put("write_bytes", config.writeBytes());
    report.put("cpu", cpuReport);
    report.put("host_top", top);
    return Optional.of(report);
  }

  /** User and total CPU time of the writer tasks so far (ns). */
  private long[] senderCpu() {
    long[] out = new long[2];
    if (machine == null || streams.isEmpty() || streams.get(0).task == null) {
      return out;
    }
    machine.syncAccounting();
    var symbols = machine.symbols();
    java.util.BitSet seen = new java.util.BitSet();
    for (Stream s : streams) {
      if (seen.get(s.task.id())) {
        continue; // a thread writing several streams counts once
      }
      seen.set(s.task.id());
      machine.account().forEachOfThread(s.task.id(), (cpuId, threadId, stack, ns) -> {
        out[1] += ns;
        if (symbols.tag(symbols.leaf(stack)) == Machine.DOMAIN_USER) {
          out[0] += ns;
        }
      });
    }
    return out;
  }

  @Override
  public String toString() {
    return name + "(-P " + config.streams() + ")";
  }

  static boolean sleeping(Task t) {
    return t.state() != TaskState.RUNNING;
  }
}
