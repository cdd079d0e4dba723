package ${package};

import com.google.auto.service.AutoService;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.lockvisor.core.plugin.PluginOption;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockCosts;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.machine.Kernel;

/** The plugin's entry class: its name, summary, capabilities and options, and the lock it creates. */
@AutoService(LockFactory.class)
public final class PluginLockFactory implements LockFactory {

  /** What experiments write to choose this lock. */
  public static final String NAME = "${pluginName}";

  static final List<PluginOption> OPTIONS = List.of(
      PluginOption.ofDuration("handoff-delay-ns", 0, 0, 1_000_000,
          "extra time between the unlocker's write and the successor seeing it"));

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String summary() {
    return "MCS-style queued spinlock (mcs_spinlock.h): FIFO, each waiter spins on its own node";
  }

  @Override
  public LockKind lockKind() {
    return LockKind.SPINLOCK;
  }

  @Override
  public Set<String> capabilities() {
    return Set.of("fifo");
  }

  @Override
  public List<PluginOption> options() {
    return OPTIONS;
  }

  @Override
  public KernelLock create(String name, Kernel kernel, LockCosts costs, boolean vcpuIsPreemptedCheck,
      Map<String, String> options) {
    Map<String, String> given = options == null ? Map.of() : options;
    Set<String> unknown = new TreeSet<>(given.keySet());
    unknown.remove("handoff-delay-ns");
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException(NAME + ": unknown option(s) " + unknown + "; known: [handoff-delay-ns]");
    }
    long handoffDelayNs = Long.parseLong(given.getOrDefault("handoff-delay-ns", "0").trim());
    if (handoffDelayNs < 0) {
      throw new IllegalArgumentException(NAME + ": handoff-delay-ns must not be negative: [" + handoffDelayNs + "]");
    }
    return new PluginLock(name, kernel, costs, handoffDelayNs);
  }
}
