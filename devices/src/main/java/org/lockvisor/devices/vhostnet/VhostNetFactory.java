package org.lockvisor.devices.vhostnet;

import com.google.auto.service.AutoService;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.lockvisor.core.plugin.BoundOptions;
import org.lockvisor.core.plugin.OptionBinder;
import org.lockvisor.core.plugin.PluginOption;
import org.lockvisor.devices.spi.Device;
import org.lockvisor.devices.spi.DeviceContext;
import org.lockvisor.devices.spi.DeviceFactory;

/** Plugin entry for {@link VhostNet}. */
@AutoService(DeviceFactory.class)
public final class VhostNetFactory implements DeviceFactory {
  static final String NAME = "vhost-net";

  private static final List<PluginOption> OPTIONS = List.of(
      PluginOption.ofEnum("work-queue", "wake-outside-lock",
          "vhost_work_queue: wake-inside-lock (3.0-3.10), wake-outside-lock (ac9fde2474d0, 3.11), llist (4.6+)",
          "wake-inside-lock", "wake-outside-lock", "llist"),
      PluginOption.ofInt("ring-size", 256, 2, 32768, "descriptors per virtqueue (QEMU virtio-net: 256)"),
      PluginOption.ofBoolean("event-idx", true, "VIRTIO_RING_F_EVENT_IDX negotiated"),
      PluginOption.ofInt("line-rate-mbps", 10_000, 1, 1_000_000, "host NIC link rate, Mbit/s (10 GbE: 10000)"),
      PluginOption.ofInt("mtu", 1500, 576, 65535, "link MTU"),
      PluginOption.ofBoolean("tcp-timestamps", true, "TCP timestamp option on every frame (Linux default)"),
      PluginOption.ofInt("txqueuelen", 1000, 1, 1_000_000, "host NIC qdisc limit in packets; a full queue drops"),
      PluginOption.ofDuration("ack-delay-ns", VhostNetConfig.ACK_DELAY_NS, 0, 1_000_000_000L,
          "from the peer's NAPI poll to its ACK arriving at the host NIC (peer stack, switch, wire)"),
      PluginOption.ofInt("peer-gro-segments", 17, 1, 1 << 16,
          "frames the peer's GRO merges and ACKs at once (MAX_SKB_FRAGS = 17)"),
      PluginOption.ofInt("weight", 0x80000, 1, 1L << 30, "bytes per handle_tx/handle_rx run (VHOST_NET_WEIGHT)"),
      PluginOption.ofInt("rx-irq-cpu", 0, 0, 4096, "guest CPU receiving the virtio-net interrupts"),
      PluginOption.ofInt("nic-queues", 0, 0, 4096,
          "host NIC RSS receive queues, one interrupt each; 0: one per host CPU"),
      PluginOption.ofInt("worker-cpu", -1, -1, 1 << 20, "host CPU the vhost worker is pinned to; -1: it floats"),
      PluginOption.ofInt("peer-queues", 16, 1, 4096, "the peer NIC's RSS receive queues (ixgbe: up to 16)"),
      PluginOption.ofDuration("peer-irq-interval-ns", 125_000, 0, 1_000_000_000L,
          "the peer NIC's interrupt moderation: least time between two interrupts of a queue (ixgbe bulk: 125 us)"),
      PluginOption.ofInt("peer-napi-budget", 64, 1, 1 << 16, "frames per NAPI poll of the peer's driver (ixgbe: 64)"),
      PluginOption.ofEnum("tun-read", "3.0",
          "host tun_do_read on vhost's non-blocking reads: 3.0 (wait queue + INTERRUPTIBLE every read), "
              + "noblock-guard (3.3-4.7: INTERRUPTIBLE only), ring (4.8+: neither)",
          "3.0", "noblock-guard", "ring"),
      PluginOption.ofEnum("irqfd-inject", "kworker",
          "host irqfd_wakeup: kworker (3.0: schedule_work, the signalling CPU's kworker injects) or direct",
          "kworker", "direct"),
      PluginOption.ofBoolean("host-atr", true, "host ixgbe Flow Director ATR (3.0.27 ixgbe_select_queue, ixgbe_atr): "
          + "a transmit queue per CPU served in turn frame by frame, receive filters following the transmitting CPU;"
          + " false: one transmit queue and RSS"),
      PluginOption.ofInt("rx-descriptors", VhostNetConfig.RX_DESCRIPTORS_DEFAULT, VhostNetConfig.RX_DESCRIPTORS_MIN,
          VhostNetConfig.RX_DESCRIPTORS_MAX, "descriptors per host NIC receive ring, a multiple of 8 (ethtool -G rx;"
              + " 3.0.27 ixgbe.h IXGBE_DEFAULT_RXD 512, IXGBE_MIN_RXD 64..IXGBE_MAX_RXD 4096); a frame finding the"
              + " ring full is dropped (rx_missed_errors; guest-receive)"));

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String summary() {
    return "virtio-net over vhost-net (3.0 guest and host): ioeventfd kicks, vhost_work_queue variants, the vhost "
        + "worker loop, a 10 GbE link with a drop-tail qdisc and an ACKing peer";
  }

  @Override
  public Set<String> capabilities() {
    return Set.of("net", "virtqueue", "event-idx", "host-worker-thread");
  }

  @Override
  public List<PluginOption> options() {
    return OPTIONS;
  }

  @Override
  public Device create(DeviceContext context) {
    return new VhostNet(context.name(), config(context.options()));
  }

  /** The validated configuration for {@code options}, bound by the framework's binder (tests, tools). */
  public static VhostNetConfig config(Map<String, String> options) {
    return config(OptionBinder.bind(new VhostNetFactory(), options == null ? Map.of() : options));
  }

  /** The configuration of options bound against {@link #options()}. */
  public static VhostNetConfig config(BoundOptions o) {
    return new VhostNetConfig(
        VhostNetConfig.WorkQueue.of(o.string("work-queue")),
        (int) o.integer("ring-size"),
        o.bool("event-idx"),
        o.integer("line-rate-mbps"),
        (int) o.integer("mtu"),
        o.bool("tcp-timestamps"),
        (int) o.integer("txqueuelen"),
        o.integer("ack-delay-ns"),
        (int) o.integer("peer-gro-segments"),
        o.integer("weight"),
        (int) o.integer("rx-irq-cpu"),
        (int) o.integer("nic-queues"),
        (int) o.integer("worker-cpu"),
        (int) o.integer("peer-queues"),
        o.integer("peer-irq-interval-ns"),
        (int) o.integer("peer-napi-budget"),
        VhostNetConfig.TunRead.of(o.string("tun-read")),
        VhostNetConfig.IrqfdInject.of(o.string("irqfd-inject")),
        o.bool("host-atr"),
        (int) o.integer("rx-descriptors"));
  }
}
