package org.lockvisor.workloads.iperf;

import com.google.auto.service.AutoService;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.lockvisor.core.plugin.BoundOptions;
import org.lockvisor.core.plugin.OptionBinder;
import org.lockvisor.core.plugin.PluginOption;
import org.lockvisor.workloads.spi.Workload;
import org.lockvisor.workloads.spi.WorkloadContext;
import org.lockvisor.workloads.spi.WorkloadFactory;

/** Plugin entry for {@link IperfWorkload}. */
@AutoService(WorkloadFactory.class)
public final class IperfFactory implements WorkloadFactory {
  static final String NAME = "iperf";

  private static final List<PluginOption> OPTIONS = List.of(
      PluginOption.ofInt("streams", 1, 1, 65536, "parallel TCP streams (-P), one guest task each"),
      PluginOption.ofInt("write-size", 128 * 1024, 1, 1 << 30, "bytes per write (-l; iperf 2: 128 KiB)"),
      PluginOption.ofInt("sndbuf", 4 << 20, 1, 1L << 34, "send buffer limit, bytes (tcp_wmem max)"),
      PluginOption.ofInt("rwnd", 4 << 20, 1, 1L << 34, "peer receive window, bytes (tcp_rmem max)"),
      PluginOption.ofInt("init-cwnd", 10, 1, 1000, "initial congestion window, segments"),
      PluginOption.ofInt("tso-win-divisor", 3, 0, 1000, "tcp_tso_win_divisor (0: never defer)"),
      PluginOption.ofDuration("interval", 0, 0, 3_600_000_000_000L,
          "iperf3 -i: period of the interval reports; 0: one interval over the window (-i 0)"),
      new PluginOption("netdev", PluginOption.Type.STRING, "",
          "network device instance name; empty: the VM's only network device", List.of(), 0, 0),
      PluginOption.ofEnum("direction", "guest-send", "guest-send: the guest runs the iperf 2 client; guest-receive: an"
          + " external iperf 2 client sends to the guest (the network device models the sender, issue 32)",
          "guest-send", "guest-receive"),
      PluginOption.ofEnum("recovery", "simple", "the guest sender's loss recovery: 3.0 (3.0.27 with SACK, FACK,"
          + " D-SACK and CUBIC: losses found from the peer's SACK blocks or the RTO, Recovery once per window,"
          + " tcp_cwnd_down, one-MSS retransmissions, TSO deferral only in TCP_CA_Open; opt-in: see"
          + " docs/plugins/iperf.md) or simple (a loss reported at the drop, cwnd halved at once, lost bytes resent as"
          + " new data)",
          "3.0", "simple"));

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String summary() {
    return "iperf 2 client: N TCP streams from guest tasks, TSO, window- and ACK-clocked, reporting Gbps and a host "
        + "top view";
  }

  @Override
  public Set<String> capabilities() {
    return Set.of("net", "native-report");
  }

  @Override
  public List<PluginOption> options() {
    return OPTIONS;
  }

  @Override
  public Workload create(WorkloadContext context) {
    return new IperfWorkload(context.name(), config(context.options()));
  }

  /** The validated configuration for {@code options}, bound by the framework's binder (tests, tools). */
  public static IperfConfig config(Map<String, String> options) {
    return config(OptionBinder.bind(new IperfFactory(), options == null ? Map.of() : options));
  }

  /** The configuration of options bound against {@link #options()}. */
  public static IperfConfig config(BoundOptions o) {
    return new IperfConfig(
        (int) o.integer("streams"),
        (int) o.integer("write-size"),
        o.integer("sndbuf"),
        o.integer("rwnd"),
        (int) o.integer("init-cwnd"),
        (int) o.integer("tso-win-divisor"),
        o.string("netdev"),
        o.integer("interval"),
        IperfConfig.Direction.of(o.choice("direction")),
        IperfConfig.Recovery.of(o.choice("recovery")));
  }
}
