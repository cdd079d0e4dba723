package org.lockvisor.workloads.iperf;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * Options of one iperf client run (costs come from the arch profile instead, see {@link IperfCosts}).
 *
 * @param streams parallel TCP streams ({@code -P}), one guest task each
 * @param writeBytes bytes per {@code write()} ({@code -l}; iperf 2: 128 KiB)
 * @param sndbufBytes socket send buffer limit on bytes queued + unacknowledged ({@code tcp_wmem} max)
 * @param rwndBytes peer's advertised receive window ({@code tcp_rmem} max on the peer)
 * @param initCwndSegments initial congestion window in segments (TCP_INIT_CWND, 10 since 2.6.39)
 * @param tsoWinDivisor {@code tcp_tso_win_divisor}: a window-limited TSO packet smaller than
 *     cwnd/divisor is deferred until more ACKs arrive
 * @param netdev instance name of the guest network device; empty: the VM's only one
 * @param intervalNs iperf3's {@code -i}: period of the interval reports; 0 reports one interval
 *     over the whole measurement window, as {@code iperf3 -i 0} does
 * @param direction which way the streams run: the guest is the iperf 2 client ({@code guest-send})
 *     or the server of an external client ({@code guest-receive}, issue 32), whose streams the
 *     network device models outside the guest
 * @param recovery the guest sender's loss recovery: Linux 3.0.27's with its defaults ({@code 3.0}:
 *     SACK/FACK scoreboard fed by the peer's SACK blocks, RTO, D-SACK undo, CUBIC, TSO deferral only
 *     in {@code TCP_CA_Open}; {@link SackSender}) or the earlier simplification ({@code simple}: a
 *     loss reported at the drop, cwnd halved at once, the lost bytes resent as new data), issue 32
 */
public record IperfConfig(
    int streams,
    int writeBytes,
    long sndbufBytes,
    long rwndBytes,
    int initCwndSegments,
    int tsoWinDivisor,
    String netdev,
    long intervalNs,
    Direction direction,
    Recovery recovery) {

  /** How the guest sender recovers from a loss. */
  public enum Recovery {
    /**
     * Linux 3.0.27 with SACK, FACK, D-SACK and CUBIC ({@link SackSender}, {@link SackScoreboard},
     * {@link CongestionWindow}, {@link org.lockvisor.devices.tcp.Cubic}): net/ipv4/tcp_input.c,
     * tcp_output.c, tcp_timer.c, tcp_cubic.c.
     */
    V3_0("3.0"),
    /** The model before issue 32: cwnd halved at once, lost bytes resent as new TSO data, deferral in any state. */
    SIMPLE("simple");

    private final String option;

    Recovery(String option) {
      this.option = option;
    }

    public String option() {
      return option;
    }

    public static Recovery of(String option) {
      for (Recovery r : values()) {
        if (r.option.equals(option)) {
          return r;
        }
      }
      throw new IllegalArgumentException("unknown recovery [" + option + "]; known: [3.0, simple]");
    }
  }

  /** With the simple loss recovery (the default: 3.0's still loses throughput in part of R1's setup space, iperf.md). */
  public IperfConfig(int streams, int writeBytes, long sndbufBytes, long rwndBytes, int initCwndSegments,
      int tsoWinDivisor, String netdev, long intervalNs, Direction direction) {
    this(streams, writeBytes, sndbufBytes, rwndBytes, initCwndSegments, tsoWinDivisor, netdev, intervalNs, direction,
        Recovery.SIMPLE);
  }

  /** Which way the iperf streams run. */
  public enum Direction {
    /** The guest runs the iperf 2 client: its tasks write, the peer receives. */
    GUEST_SEND("guest-send"),
    /** An external iperf 2 client sends to the guest's iperf server. */
    GUEST_RECEIVE("guest-receive");

    private final String option;

    Direction(String option) {
      this.option = option;
    }

    public String option() {
      return option;
    }

    public static Direction of(String option) {
      for (Direction d : values()) {
        if (d.option.equals(option)) {
          return d;
        }
      }
      throw new IllegalArgumentException("unknown direction [" + option + "]; known: [guest-send, guest-receive]");
    }
  }

  /** The guest sends (the iperf 2 client in the guest). */
  public IperfConfig(int streams, int writeBytes, long sndbufBytes, long rwndBytes, int initCwndSegments,
      int tsoWinDivisor, String netdev, long intervalNs) {
    this(streams, writeBytes, sndbufBytes, rwndBytes, initCwndSegments, tsoWinDivisor, netdev, intervalNs,
        Direction.GUEST_SEND);
  }

  public IperfConfig {
    checkArgument(direction != null, "direction must be set");
    checkArgument(recovery != null, "recovery must be set");
    checkArgument(streams > 0, "streams must be positive: %s", streams);
    checkArgument(writeBytes > 0, "write-size must be positive: %s", writeBytes);
    checkArgument(sndbufBytes >= writeBytes, "sndbuf %s must hold at least one write of %s", sndbufBytes, writeBytes);
    checkArgument(rwndBytes > 0, "rwnd must be positive: %s", rwndBytes);
    checkArgument(initCwndSegments > 0, "init-cwnd must be positive: %s", initCwndSegments);
    checkArgument(tsoWinDivisor >= 0, "tso-win-divisor must not be negative: %s", tsoWinDivisor);
    checkArgument(netdev != null, "netdev must not be null (empty: the only one)");
    checkArgument(intervalNs >= 0, "interval must not be negative: %s", intervalNs);
  }

  /** The same with {@code r} as the loss recovery. */
  public IperfConfig withRecovery(Recovery r) {
    return new IperfConfig(streams, writeBytes, sndbufBytes, rwndBytes, initCwndSegments, tsoWinDivisor, netdev,
        intervalNs, direction, r);
  }

  /** With one interval report over the window ({@code -i 0}). */
  public IperfConfig(int streams, int writeBytes, long sndbufBytes, long rwndBytes, int initCwndSegments,
      int tsoWinDivisor, String netdev) {
    this(streams, writeBytes, sndbufBytes, rwndBytes, initCwndSegments, tsoWinDivisor, netdev, 0);
  }

  /** iperf 2 defaults with {@code streams} streams and Linux 3.0 socket defaults. */
  public static IperfConfig defaults(int streams) {
    return new IperfConfig(streams, 128 * 1024, 4 << 20, 4 << 20, 10, 3, "");
  }
}
