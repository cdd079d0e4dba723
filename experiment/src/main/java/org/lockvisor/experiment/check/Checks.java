package org.lockvisor.experiment.check;

import java.util.ArrayList;
import java.util.List;
import org.lockvisor.devices.spi.LockProvider;
import org.lockvisor.machine.Machine;

/**
 * Invariant mode for machines assembled by hand (reproductions, examples): wraps their lock
 * provider so every lock is a {@link CheckedLock}, and installs a {@link RunGuard} — when
 * {@link RunChecks#defaults()} asks for invariants (every test of the build); otherwise it
 * returns the provider unchanged and installs nothing.
 */
public final class Checks {
  private Checks() {}

  /** {@code provider}, checked and guarded on {@code machine} if invariant mode is on. */
  public static LockProvider guardedIfEnabled(Machine machine, LockProvider provider) {
    RunChecks checks = RunChecks.defaults();
    if (!checks.invariants()) {
      return provider;
    }
    List<CheckedLock> locks = new ArrayList<>();
    new RunGuard(machine, checks, locks).install();
    return (kernel, name, kind) -> {
      CheckedLock lock = new CheckedLock(provider.create(kernel, name, kind));
      locks.add(lock);
      return lock;
    };
  }
}
