package org.lockvisor.core.sim;

/**
 * Receives events. One object usually handles several kinds of event, told apart by {@code
 * kind}; {@code arg} carries a primitive payload so that scheduling an event allocates nothing.
 */
@FunctionalInterface
public interface EventHandler {
  void onEvent(int kind, long arg);
}
