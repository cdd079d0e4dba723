package ${package};

import com.google.auto.service.AutoService;
import java.util.List;
import org.lockvisor.core.plugin.BoundOptions;
import org.lockvisor.core.plugin.PluginOption;
import org.lockvisor.workloads.spi.Workload;
import org.lockvisor.workloads.spi.WorkloadContext;
import org.lockvisor.workloads.spi.WorkloadFactory;

/** The plugin's entry class: its name, summary and options, and the workload it creates. */
@AutoService(WorkloadFactory.class)
public final class ${className}Factory implements WorkloadFactory {

  /** What experiments write to choose this workload. */
  public static final String NAME = "${pluginName}";

  static final List<PluginOption> OPTIONS = List.of(
      PluginOption.ofInt("threads", 4, 1, 4096, "guest tasks taking the lock"),
      PluginOption.ofDuration("hold-ns", 1_000, 0, 1_000_000_000L, "time in the critical section"),
      PluginOption.ofDuration("think-ns", 2_000, 0, 1_000_000_000L, "user-space time between acquisitions"));

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String summary() {
    return "guest tasks taking one spinlock of the experiment's choice in a loop (hold, then think)";
  }

  @Override
  public List<PluginOption> options() {
    return OPTIONS;
  }

  @Override
  public Workload create(WorkloadContext context) {
    BoundOptions o = context.options();
    return new ${className}(context.name(), (int) o.integer("threads"), o.integer("hold-ns"), o.integer("think-ns"));
  }
}
