package ${package};

import com.google.auto.service.AutoService;
import java.util.List;
import java.util.Set;
import org.lockvisor.core.plugin.PluginOption;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockCapability;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockFactory;

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
  public Set<LockCapability> lockCapabilities() {
    return Set.of(LockCapability.FIFO);
  }

  @Override
  public List<PluginOption> options() {
    return OPTIONS;
  }

  /** The framework has bound the options (unknown keys and bad values never get here). */
  @Override
  public KernelLock create(LockContext context) {
    return new PluginLock(context, context.options().durationNs("handoff-delay-ns"));
  }
}
