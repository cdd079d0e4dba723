package org.lockvisor.devices.virtioblk;

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

/** Plugin entry for {@link VirtioBlk}. */
@AutoService(DeviceFactory.class)
public final class VirtioBlkFactory implements DeviceFactory {
  static final String NAME = "virtio-blk";

  private static final List<PluginOption> OPTIONS = List.of(
      PluginOption.ofEnum("notify", "outside-lock",
          "where virtio_queue_rq notifies the device: inside-lock (3.13-3.15) or outside-lock (e8edca6f7f92)",
          "inside-lock", "outside-lock"),
      PluginOption.ofEnum("notify-path", "ioeventfd",
          "how the notify reaches the VMM: ioeventfd (x86, in-kernel, VMM thread woken) or userspace "
              + "(arm64 2014: exit to the VMM, processed in the vCPU thread under the VMM lock)",
          "ioeventfd", "userspace"),
      PluginOption.ofBoolean("vmm-global-lock", true, "the VMM serialises emulation under one global lock (QEMU BQL)"),
      PluginOption.ofInt("queue-size", 128, 2, 32768, "virtqueue descriptors (power of two; QEMU virtio-blk: 128)"),
      PluginOption.ofBoolean("event-idx", true, "VIRTIO_RING_F_EVENT_IDX negotiated"),
      PluginOption.ofBoolean("indirect-desc", true, "VIRTIO_RING_F_INDIRECT_DESC: one descriptor per request (else 3)"),
      PluginOption.ofInt("irq-cpu", 0, -1, 4096, "guest CPU receiving the completion interrupt; -1: round robin"),
      PluginOption.ofInt("vmm-cpu", -1, -1, 1 << 20,
          "host CPU the VMM main-loop thread is pinned to; -1: it floats (placed by the host scheduler)"),
      PluginOption.ofInt("backend-depth", 32, 1, 65536, "requests the storage backend serves in parallel"),
      PluginOption.ofDuration("backend-service-ns", 20_000, 0, 1_000_000_000L,
          "backend service time per request (mean when exponential)"),
      PluginOption.ofEnum("backend-distribution", "exponential", "backend service time distribution",
          "constant", "exponential"),
      PluginOption.ofBoolean("posted-interrupts", false,
          "interrupts reach a running vCPU without an exit (APICv/GICv4); false: an external-interrupt exit "
              + "first (2014 hosts); left out of an experiment, the runner sets it from the arch profile"),
      PluginOption.ofEnum("vmm", "qemu-2.0-main-loop",
          "QEMU device model: qemu-2.0-main-loop (virtio-blk in the main loop under the BQL, completions through "
              + "bottom halves) or qemu-2.0-dataplane (x-data-plane: own thread, no BQL, burst pop, one io_submit, "
              + "one irqfd notify per completion batch; needs ioeventfd and msi)",
          "qemu-2.0-main-loop", "qemu-2.0-dataplane"),
      PluginOption.ofEnum("queue-policy", "auto",
          "device side of the ring: auto (the vmm's own), qemu-2.0 (pop publishes avail->idx), qemu-2.0-dataplane "
              + "(disable/pop all/enable), last-avail-idx (later QEMU pop), suppress-while-processing (QEMU 2.8)",
          "auto", "qemu-2.0", "qemu-2.0-dataplane", "last-avail-idx", "suppress-while-processing"),
      PluginOption.ofEnum("interrupt-transport", "msi",
          "completion interrupt: msi (edge, vring_interrupt) or mmio-level (virtio-mmio on 2014 arm64: level SPI, "
              + "vm_interrupt reads status and writes ACK through QEMU, EOI maintenance exit); the composition "
              + "root sets it from the arch profile",
          "msi", "mmio-level"));

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String summary() {
    return "virtio-blk (Linux 3.13-3.16 blk-mq, vq_lock, notify inside/outside the lock) over a 2014 QEMU model";
  }

  @Override
  public Set<String> capabilities() {
    return Set.of("block", "virtqueue", "event-idx", "vmm-global-lock");
  }

  @Override
  public List<PluginOption> options() {
    return OPTIONS;
  }

  @Override
  public Device create(DeviceContext context) {
    return new VirtioBlk(context.name(), config(context.options()));
  }

  /** The validated configuration for {@code options}, bound by the framework's binder (tests, tools). */
  public static VirtioBlkConfig config(Map<String, String> options) {
    return config(OptionBinder.bind(new VirtioBlkFactory(), options == null ? Map.of() : options));
  }

  /** The configuration of options bound against {@link #options()}. */
  public static VirtioBlkConfig config(BoundOptions o) {
    return new VirtioBlkConfig(
        VirtioBlkConfig.NotifyMode.of(o.string("notify")),
        o.string("notify-path"),
        o.bool("vmm-global-lock"),
        (int) o.integer("queue-size"),
        o.bool("event-idx"),
        o.bool("indirect-desc"),
        (int) o.integer("irq-cpu"),
        (int) o.integer("vmm-cpu"),
        (int) o.integer("backend-depth"),
        o.integer("backend-service-ns"),
        o.string("backend-distribution").equals("exponential"),
        o.bool("posted-interrupts"),
        VirtioBlkConfig.Vmm.of(o.string("vmm")),
        o.string("queue-policy"),
        VirtioBlkConfig.InterruptTransport.of(o.string("interrupt-transport")));
  }
}
