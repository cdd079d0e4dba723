package org.lockvisor.examples.nullblk;

import com.google.auto.service.AutoService;
import java.util.List;
import java.util.Set;
import org.lockvisor.core.plugin.BoundOptions;
import org.lockvisor.core.plugin.PluginOption;
import org.lockvisor.devices.spi.Device;
import org.lockvisor.devices.spi.DeviceContext;
import org.lockvisor.devices.spi.DeviceFactory;

/** A third-party device plugin: {@code null_blk} with timer or inline completions. */
@AutoService(DeviceFactory.class)
public final class NullBlkFactory implements DeviceFactory {

  public static final String NAME = "null-blk";

  static final List<PluginOption> OPTIONS = List.of(
      PluginOption.ofEnum("irqmode", "timer",
          "null_blk irqmode: timer (2: a per-CPU hrtimer completes the CPU's queued commands after completion-nsec)"
              + " or none (0: completed inline in queue_rq)", "timer", "none"),
      PluginOption.ofDuration("completion-nsec", 10_000, 1, 1_000_000_000L,
          "null_blk completion_nsec: hrtimer delay in timer mode (module default 10,000 ns)"));

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String summary() {
    return "example third-party device: Linux 3.13 null_blk (blk-mq), timer or inline completion, no backend";
  }

  @Override
  public Set<String> capabilities() {
    return Set.of("block");
  }

  @Override
  public List<PluginOption> options() {
    return OPTIONS;
  }

  @Override
  public Device create(DeviceContext context) {
    BoundOptions o = context.options();
    return new NullBlk(context.name(), o.string("irqmode").equals("timer"), o.integer("completion-nsec"));
  }
}
