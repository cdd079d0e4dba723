package org.lockvisor.machine;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

/**
 * A typed key for the per-task state a workload or device keeps on the tasks it spawned (a
 * stream, a job, a kthread's counters). A task carries one attachment: the code that spawned it
 * owns it, so a second owner, or a read under another key, fails instead of casting the wrong
 * object. Reads allocate nothing and cost a reference comparison (hot paths call them per op).
 *
 * <pre>{@code
 * private static final TaskAttachment<Stream> STREAM = TaskAttachment.of("iperf stream", Stream.class);
 * STREAM.set(task, stream);      // at spawn
 * Stream s = STREAM.get(task);   // in the programs
 * }</pre>
 */
public final class TaskAttachment<T> {
  private final String name;
  private final Class<T> type;

  private TaskAttachment(String name, Class<T> type) {
    this.name = name;
    this.type = type;
  }

  /** A key for values of {@code type}; {@code name} says what they are in error messages. */
  public static <T> TaskAttachment<T> of(String name, Class<T> type) {
    checkArgument(name != null && !name.isBlank(), "attachment needs a name");
    checkArgument(type != null, "attachment [%s] needs a type", name);
    return new TaskAttachment<>(name, type);
  }

  /**
   * Attaches {@code value} to {@code task}.
   *
   * @throws IllegalStateException if the task carries another key's attachment
   */
  public void set(Task task, T value) {
    checkArgument(value != null, "attachment [%s] of %s must not be null", name, task);
    checkState(task.attachmentKey == null || task.attachmentKey == this,
        "%s already carries attachment [%s]; cannot attach [%s]", task, nameOf(task.attachmentKey), name);
    task.attachmentKey = this;
    task.attachment = type.cast(value);
  }

  /**
   * The value attached to {@code task} under this key.
   *
   * @throws IllegalStateException if the task carries no attachment or another key's
   */
  public T get(Task task) {
    if (task.attachmentKey != this) {
      throw new IllegalStateException(task + " carries " + (task.attachmentKey == null ? "no attachment"
          : "attachment [" + nameOf(task.attachmentKey) + "]") + ", not [" + name + "]");
    }
    @SuppressWarnings("unchecked") // set() checked the type against this key
    T value = (T) task.attachment;
    return value;
  }

  private static String nameOf(TaskAttachment<?> key) {
    return key == null ? "none" : key.name;
  }

  @Override
  public String toString() {
    return "TaskAttachment[" + name + "]";
  }
}
