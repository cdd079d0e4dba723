package org.lockvisor.locking.builtin;

import com.google.common.collect.ImmutableList;
import java.util.List;
import org.lockvisor.locking.spi.LockContext;

/** Builds the internal spinlock of a sleeping lock (its {@code wait_lock}) by algorithm name. */
final class SpinLocks {
  static final List<String> NAMES = ImmutableList.of("qspinlock", "pv-qspinlock", "ticket", "pv-ticket", "tas", "ppc-splpar");

  private SpinLocks() {}

  static BaseLock create(String algorithm, LockContext context) {
    return switch (algorithm) {
      case "qspinlock" -> new QueuedSpinLock(context, false);
      case "pv-qspinlock" -> new QueuedSpinLock(context, true);
      case "ticket" -> new TicketSpinLock(context, false);
      case "pv-ticket" -> new TicketSpinLock(context, true);
      case "tas" -> new TasSpinLock(context);
      case "ppc-splpar" -> new SplparSpinLock(context, true);
      default -> throw new IllegalArgumentException(
          "unknown spinlock [" + algorithm + "] for " + context.name() + "; known: " + NAMES);
    };
  }
}
