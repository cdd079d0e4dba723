package org.lockvisor.core.sim;

/** Called after every processed event, e.g. to check invariants. */
@FunctionalInterface
public interface EventObserver {
  void afterEvent(long time, int kind, long arg);
}
