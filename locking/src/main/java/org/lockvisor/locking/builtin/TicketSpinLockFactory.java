package org.lockvisor.locking.builtin;

import com.google.auto.service.AutoService;
import java.util.List;
import java.util.Set;
import org.lockvisor.core.plugin.BoundOptions;
import org.lockvisor.core.plugin.PluginOption;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockCapability;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockFactory;

/** Plugin entry for {@code ticket}; see docs/plugins/ticket.md. */
@AutoService(LockFactory.class)
public final class TicketSpinLockFactory implements LockFactory {
  private static final List<PluginOption> OPTIONS = List.of();

  @Override
  public String name() {
    return "ticket";
  }

  @Override
  public String summary() {
    return "x86/arm64 ticket spinlock (<= 4.1): strict FIFO hand-off to the next ticket; waiter preemption stalls everyone";
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

  @Override
  public KernelLock create(LockContext context) {
    BoundOptions o = context.options();
    return new TicketSpinLock(context, false);
  }
}
