package org.lockvisor.examples.broken;

import com.google.auto.service.AutoService;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.lockvisor.core.plugin.BoundOptions;
import org.lockvisor.core.plugin.PluginOption;
import org.lockvisor.workloads.spi.Workload;
import org.lockvisor.workloads.spi.WorkloadContext;
import org.lockvisor.workloads.spi.WorkloadFactory;

/** Plugin entry for {@link BrokenWorkerWorkload}: an example of a race that {@code lockvisor explore} finds. */
@AutoService(WorkloadFactory.class)
public final class BrokenWorkerFactory implements WorkloadFactory {
  static final String NAME = "broken-worker";

  private static final List<PluginOption> OPTIONS = List.of(
      PluginOption.ofEnum("order", "check-then-sleep",
          "check-then-sleep: test the list, then prepare_to_wait (the bug); prepare-then-check: the kernel's order",
          "check-then-sleep", "prepare-then-check"),
      PluginOption.ofInt("burst", 4, 1, 1024, "work items the producer queues per burst"),
      PluginOption.ofDuration("gap-ns", 6_000, 0, 1_000_000_000L, "producer work between two items of a burst"),
      PluginOption.ofDuration("period-ns", 5_000_000, 1_000, 10_000_000_000L,
          "producer work between bursts (longer than the lost-wakeup grace period, so a lost wakeup shows)"),
      PluginOption.ofDuration("process-ns", 2_000, 0, 1_000_000_000L, "worker time per item"),
      PluginOption.ofDuration("window-ns", 1_000, 0, 1_000_000_000L,
          "worker time between testing the list and going to sleep (the race window of check-then-sleep)"));

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String summary() {
    return "example of a broken plugin: a vhost-like worker that checks its list before setting its task state"
        + " (lost wakeup); for lockvisor explore";
  }

  @Override
  public Set<String> capabilities() {
    return Set.of("locks", "example-bug");
  }

  @Override
  public List<PluginOption> options() {
    return OPTIONS;
  }

  @Override
  public Workload create(WorkloadContext context) {
    BoundOptions o = context.options();
    return new BrokenWorkerWorkload(context.name(), o.string("order").equals("check-then-sleep"),
        (int) o.integer("burst"), o.integer("gap-ns"), o.integer("period-ns"), o.integer("process-ns"),
        o.integer("window-ns"));
  }
}
