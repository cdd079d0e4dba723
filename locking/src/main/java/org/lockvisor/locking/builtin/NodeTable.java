package org.lockvisor.locking.builtin;

import java.util.Arrays;
import java.util.function.Function;
import org.lockvisor.machine.Task;

/**
 * Per-task wait nodes of one lock instance (the kernel's per-CPU MCS nodes, on-stack waiters and
 * {@code struct mutex_waiter}s), indexed by task id and created on first use, so an acquisition
 * allocates nothing.
 */
final class NodeTable<N> {
  private Object[] nodes = new Object[64];
  private final Function<Task, N> factory;

  NodeTable(Function<Task, N> factory) {
    this.factory = factory;
  }

  @SuppressWarnings("unchecked")
  N get(Task t) {
    int id = t.id();
    if (id >= nodes.length) {
      nodes = Arrays.copyOf(nodes, Math.max(id + 1, nodes.length * 2));
    }
    Object n = nodes[id];
    if (n == null) {
      n = factory.apply(t);
      nodes[id] = n;
    }
    return (N) n;
  }
}
