package org.lockvisor.machine;

import java.util.ArrayDeque;

/**
 * A kernel wait queue ({@code wait_queue_head_t}): tasks that sleep until a condition holds.
 * FIFO; waking one takes the first waiter (exclusive wait).
 *
 * <p>A waiter queues itself, sets a sleeping {@link TaskState} and calls {@link Task#scheduleNow}
 * ({@link Ops#sleepUntil} does all three and re-checks its condition after each wakeup, as {@code
 * wait_event} does); a waker takes a waiter off the queue and wakes it with {@link Ops#wake}, a
 * real {@code try_to_wake_up} charged to the waker. Check the condition after queueing and before
 * sleeping: a wakeup sent before the waiter queued is otherwise lost, as in the kernel.
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
