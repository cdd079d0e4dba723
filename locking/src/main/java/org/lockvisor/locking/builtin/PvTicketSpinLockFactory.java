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

/** Plugin entry for {@code pv-ticket}; see docs/plugins/pv-ticket.md. */
@AutoService(LockFactory.class)
public final class PvTicketSpinLockFactory implements LockFactory {
  private static final List<PluginOption> OPTIONS = List.of();

  @Override
  public String name() {
    return "pv-ticket";
  }

  @Override
  public String summary() {
    return "x86 PV ticketlock (3.12-4.1): ticket spinlock whose waiters halt after SPIN_THRESHOLD and are kicked by kvm_kick_cpu";
  }

  @Override
  public LockKind lockKind() {
    return LockKind.SPINLOCK;
  }

  @Override
  public Set<LockCapability> lockCapabilities() {
    return Set.of(LockCapability.FIFO, LockCapability.PV);
  }

  @Override
  public List<PluginOption> options() {
    return OPTIONS;
  }

  @Override
  public KernelLock create(LockContext context) {
    BoundOptions o = context.options();
    return new TicketSpinLock(context, true);
  }
}
