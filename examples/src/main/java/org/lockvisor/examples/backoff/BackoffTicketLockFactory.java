package org.lockvisor.examples.backoff;

import com.google.auto.service.AutoService;
import java.util.List;
import java.util.Set;
import org.lockvisor.core.plugin.PluginOption;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockCapability;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockFactory;

/**
 * A third-party plugin: the ticket spinlock with queue-position backoff ({@link
 * BackoffTicketLock}). Options: {@code unit-ns}, the backoff per queue position, and {@code
 * backoff}, how a waiter waits ({@code spin}: reading the lock word, ended by the unlocker's poke;
 * {@code delay}: a counting loop no poke shortens).
 */
@AutoService(LockFactory.class)
public final class BackoffTicketLockFactory implements LockFactory {
  /** What experiments write to choose this lock. */
  public static final String NAME = "backoff-ticket";

  static final List<PluginOption> OPTIONS = List.of(
      PluginOption.ofDuration("unit-ns", 500, 1, 100_000_000, "backoff per queue position"),
      PluginOption.ofEnum("backoff", "spin",
          "how a waiter backs off: spin (reads the lock word; the unlocker's poke ends it) or delay (counts)",
          "spin", "delay"));

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String summary() {
    return "example third-party plugin: ticket spinlock whose waiters back off by queue position";
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
    return new BackoffTicketLock(context, context.options().durationNs("unit-ns"),
        context.options().choice("backoff").equals("spin"));
  }
}
