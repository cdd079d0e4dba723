package org.lockvisor.devices.vhostnet;

import com.google.auto.service.AutoService;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.lockvisor.core.plugin.PluginOption;
import org.lockvisor.devices.spi.Device;
import org.lockvisor.devices.spi.DeviceFactory;
import org.lockvisor.devices.spi.OptionValues;

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
      PluginOption.ofDuration("ack-delay-ns", 20_000, 0, 1_000_000_000L,
          "from a packet's last frame leaving the host NIC to its ACK arriving back (wire, switch, peer)"),
      PluginOption.ofInt("peer-gro-segments", 17, 1, 1 << 16,
          "frames the peer's GRO merges and ACKs at once (MAX_SKB_FRAGS = 17)"),
      PluginOption.ofInt("weight", 0x80000, 1, 1L << 30, "bytes per handle_tx/handle_rx run (VHOST_NET_WEIGHT)"),
      PluginOption.ofInt("rx-irq-cpu", 0, 0, 4096, "guest CPU receiving the virtio-net interrupts"),
      PluginOption.ofInt("nic-queues", 0, 0, 4096,
          "host NIC RSS receive queues, one interrupt each; 0: one per host CPU"),
      PluginOption.ofInt("worker-cpu", -1, -1, 1 << 20, "host CPU the vhost worker is pinned to; -1: it floats"));

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
  public Device create(String instanceName, Map<String, String> options) {
    return new VhostNet(instanceName, config(options));
  }

  /** The validated configuration for {@code options}. */
  public static VhostNetConfig config(Map<String, String> options) {
    OptionValues o = OptionValues.parse(NAME, OPTIONS, options);
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
        (int) o.integer("worker-cpu"));
  }
}
