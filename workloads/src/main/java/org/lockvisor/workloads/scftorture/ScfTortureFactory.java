package org.lockvisor.workloads.scftorture;

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

/** Plugin entry for {@link ScfTortureWorkload}. */
@AutoService(WorkloadFactory.class)
public final class ScfTortureFactory implements WorkloadFactory {
  static final String NAME = "scftorture";

  private static final List<PluginOption> OPTIONS = List.of(
      PluginOption.ofEnum("primitive", "all", "single: smp_call_function_single to a random CPU; all:"
          + " smp_call_function to every other CPU (scftorture SCF_PRIM_SINGLE, SCF_PRIM_ALL)",
          ScfTortureConfig.PRIMITIVES.toArray(String[]::new)),
      PluginOption.ofBoolean("wait", true,
          "the caller waits in csd_lock_wait until the function ran (the module's *_wait weights)"),
      PluginOption.ofInt("nthreads", 0, 0, 4096, "invoker kthreads, bound to CPU i % ncpus; 0: one per vCPU"),
      PluginOption.ofDuration("handler-ns", 0, 0, 1_000_000_000L,
          "scf_handler's time on the target CPU after the interrupt entry (the module's is a counter"
              + " increment, rarely a udelay)"),
      PluginOption.ofDuration("think-ns", 1_000, 0, 1_000_000_000L,
          "kernel work after preempt_enable() between two calls"));

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String summary() {
    return "scftorture: one kthread per vCPU calling smp_call_function* on other CPUs and spinning in"
        + " csd_lock_wait; calls and handler runs per second, wait time per call";
  }

  @Override
  public Set<String> capabilities() {
    return Set.of("native-report");
  }

  @Override
  public List<PluginOption> options() {
    return OPTIONS;
  }

  @Override
  public Workload create(WorkloadContext context) {
    return new ScfTortureWorkload(context.name(), config(context.options()));
  }

  /** The validated configuration for {@code options}, bound by the framework's binder (tests, tools). */
  public static ScfTortureConfig config(Map<String, String> options) {
    return config(OptionBinder.bind(new ScfTortureFactory(), options == null ? Map.of() : options));
  }

  /** The configuration of options bound against {@link #options()}. */
  public static ScfTortureConfig config(BoundOptions o) {
    return new ScfTortureConfig(o.string("primitive"), o.bool("wait"), (int) o.integer("nthreads"),
        o.integer("handler-ns"), o.integer("think-ns"));
  }
}
