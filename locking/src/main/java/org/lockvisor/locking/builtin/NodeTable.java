package org.lockvisor.locking.builtin;

import java.util.function.Function;
import org.lockvisor.machine.Task;

/**
 * Per-task wait nodes of one lock instance (the kernel's per-CPU MCS nodes, on-stack waiters and
 * {@code struct mutex_waiter}s), keyed by task id and created on first use, so an acquisition
 * allocates nothing once a task has met the lock.
 *
 * <p>An open-addressing table sized by the number of tasks that ever used the lock, not by the
 * largest task id: a workload with thousands of locks (one mutex per pipe) and tens of thousands
 * of tasks, each lock used by a few of them, stays small.
 */
final class NodeTable<N> {
  private int[] keys = new int[16];
  private Object[] nodes = new Object[16];
  private int size;
  private final Function<Task, N> factory;

  NodeTable(Function<Task, N> factory) {
    this.factory = factory;
  }

  @SuppressWarnings("unchecked")
  N get(Task t) {
    int key = t.id() + 1; // 0 marks an empty slot
    int mask = keys.length - 1;
    int i = mix(key) & mask;
    while (keys[i] != 0) {
      if (keys[i] == key) {
        return (N) nodes[i];
      }
      i = (i + 1) & mask;
    }
    N n = factory.apply(t);
    keys[i] = key;
    nodes[i] = n;
    if (++size * 2 > keys.length) {
      grow();
    }
    return n;
  }

  private void grow() {
    int[] oldKeys = keys;
    Object[] oldNodes = nodes;
    keys = new int[oldKeys.length * 2];
    nodes = new Object[oldKeys.length * 2];
    int mask = keys.length - 1;
    for (int j = 0; j < oldKeys.length; j++) {
      if (oldKeys[j] != 0) {
        int i = mix(oldKeys[j]) & mask;
        while (keys[i] != 0) {
          i = (i + 1) & mask;
        }
        keys[i] = oldKeys[j];
        nodes[i] = oldNodes[j];
      }
    }
  }

  private static int mix(int key) {
    int h = key * 0x9E3779B9;
    return h ^ (h >>> 16);
  }
}
