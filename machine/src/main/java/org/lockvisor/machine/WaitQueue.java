package org.lockvisor.machine;

import java.util.ArrayDeque;

/**
 * A kernel wait queue ({@code wait_queue_head_t}): tasks that sleep until a condition holds.
 * FIFO; waking one takes the first waiter (exclusive wait).
 */
public final class WaitQueue {
  private final String name;
  private final ArrayDeque<Task> waiters = new ArrayDeque<>();

  public WaitQueue(String name) {
    this.name = name;
  }

  public String name() {
    return name;
  }

  public void add(Task t) {
    if (!waiters.contains(t)) {
      waiters.add(t);
    }
  }

  public void remove(Task t) {
    waiters.remove(t);
  }

  public Task first() {
    return waiters.peek();
  }

  public Task poll() {
    return waiters.poll();
  }

  public boolean isEmpty() {
    return waiters.isEmpty();
  }

  public int size() {
    return waiters.size();
  }

  public boolean contains(Task t) {
    return waiters.contains(t);
  }

  @Override
  public String toString() {
    return name;
  }
}
