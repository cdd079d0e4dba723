package org.lockvisor.workloads.locktorture;

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

/** Plugin entry for {@link LockTortureWorkload}. */
@AutoService(WorkloadFactory.class)
public final class LockTortureFactory implements WorkloadFactory {
  static final String NAME = "locktorture";

  private static final List<PluginOption> OPTIONS = List.of(
      PluginOption.ofEnum("torture-type", "spin_lock", "the lock API the kthreads torture (locktorture torture_type)",
          LockTortureConfig.TYPES.toArray(String[]::new)),
      new PluginOption("lock", PluginOption.Type.STRING, "",
          "lock plugin of the matching kind (e.g. ticket, mutex-owner, rwsem-xadd); empty: the VM's kernel choice",
          List.of(), 0, 0),
      new PluginOption("lock-options", PluginOption.Type.STRING, "",
          "options of its lock as KEY=VALUE[,KEY=VALUE] (lockvisor plugins --options <lock>), over the kernel's"
              + " locks: options when the lock is the kernel's choice",
          List.of(), 0, 0),
      PluginOption.ofInt("nwriters", 0, 0, 4096, "writer kthreads (nwriters_stress); 0: twice the VM's vCPUs"),
      PluginOption.ofInt("nreaders", 0, 0, 4096,
          "reader kthreads (nreaders_stress), rw_lock, rw_lock_irq and rwsem_lock only"),
      PluginOption.ofDuration("hold-ns", 2_000, 0, 1_000_000_000L,
          "time in the critical section (write_delay; the module's short delay is 2 us)"),
      PluginOption.ofDuration("hold-jitter-ns", 0, 0, 1_000_000_000L, "hold time is uniform in [hold, hold + jitter]"),
      PluginOption.ofDuration("think-ns", 1_000, 0, 1_000_000_000L,
          "kernel work between a release and the next acquisition (then cond_resched)"),
      PluginOption.ofDuration("think-jitter-ns", 0, 0, 1_000_000_000L,
          "think time is uniform in [think, think + jitter]"));

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String summary() {
    return "locktorture: N kthreads per VM hammering one lock with hold and think times; acquisitions per thread"
        + " (Max/Min) and throughput";
  }

  @Override
  public Set<String> capabilities() {
    return Set.of("locks", "native-report");
  }

  @Override
  public List<PluginOption> options() {
    return OPTIONS;
  }

  @Override
  public Workload create(WorkloadContext context) {
    return new LockTortureWorkload(context.name(), config(context.options()));
  }

  /** The validated configuration for {@code options}, bound by the framework's binder (tests, tools). */
  public static LockTortureConfig config(Map<String, String> options) {
    return config(OptionBinder.bind(new LockTortureFactory(), options == null ? Map.of() : options));
  }

  /** The configuration of options bound against {@link #options()}. */
  public static LockTortureConfig config(BoundOptions o) {
    return new LockTortureConfig(
        o.string("torture-type"),
        o.string("lock"),
        (int) o.integer("nwriters"),
        (int) o.integer("nreaders"),
        o.integer("hold-ns"),
        o.integer("hold-jitter-ns"),
        o.integer("think-ns"),
        o.integer("think-jitter-ns"),
        LockTortureConfig.parseLockOptions(o.string("lock-options")));
  }
}
