package org.lockvisor.machine;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * A kernel code path: a named sequence of {@link Op}s. The name is the function whose frame the
 * ops run in, so CPU time of the ops is charged to the stack {@code caller;...;name;leaf}.
 *
 * <pre>
 * Program.named("vhost_work_queue")
 *     .lock(workLock)
 *     .work(40, "list_add_tail")
 *     .wake(() -> worker)
 *     .unlock(workLock)
 *     .build();
 * </pre>
 */
public final class Program {
  private final String name;
  private final Op[] ops;
  private final boolean interruptFrame;
  private int symbol = -1; // interned lazily per machine (one machine per program is the rule)
  private Object symbolOwner;

  private Program(String name, List<Op> ops, boolean interruptFrame) {
    this.name = name;
    this.ops = ops.toArray(new Op[0]);
    this.interruptFrame = interruptFrame;
  }

  public String name() {
    return name;
  }

  // The interpreter's walk over the ops: not the plugin API (a plugin builds programs, never steps one).
  int length() {
    return ops.length;
  }

  Op op(int pc) {
    return ops[pc];
  }

  List<Op> ops() {
    return ImmutableList.copyOf(ops);
  }

  boolean isInterruptFrame() {
    return interruptFrame;
  }

  int symbol(Machine m) {
    if (symbolOwner != m) {
      symbol = m.symbols().symbol(name, Machine.DOMAIN_KERNEL);
      symbolOwner = m;
    }
    return symbol;
  }

  public static Builder named(String name) {
    return new Builder(name, false);
  }

  /** A program run as an interrupt handler: it runs on the interrupted task, IRQs off. */
  public static Builder interruptHandler(String name) {
    return new Builder(name, true);
  }

  @Override
  public String toString() {
    return name;
  }

  /** Builds programs from ops. */
  public static final class Builder {
    private final String name;
    private final boolean interrupt;
    private final List<Op> ops = new ArrayList<>();

    Builder(String name, boolean interrupt) {
      checkArgument(name != null && !name.isEmpty(), "program needs a name");
      this.name = name;
      this.interrupt = interrupt;
    }

    public Builder op(Op op) {
      ops.add(op);
      return this;
    }

    /** Burns {@code ns} of CPU charged to {@code symbol}, in kernel mode. */
    public Builder work(long ns, String symbol) {
      return op(Ops.work(ns, symbol));
    }

    /** Burns CPU in user mode (preemptible at any time). */
    public Builder userWork(long ns, String symbol) {
      return op(Ops.userWork(ns, symbol));
    }

    public Builder call(Program p) {
      return op(Ops.call(p));
    }

    public Builder branch(Predicate<Task> condition, Program then, Program otherwise) {
      return op(Ops.branch(condition, then, otherwise));
    }

    public Builder loopWhile(Predicate<Task> condition, Program body) {
      return op(Ops.loopWhile(condition, body));
    }

    public Builder irqDisable() {
      return op(Ops.irqDisable());
    }

    public Builder irqEnable() {
      return op(Ops.irqEnable());
    }

    public Builder preemptDisable() {
      return op(Ops.preemptDisable());
    }

    public Builder preemptEnable() {
      return op(Ops.preemptEnable());
    }

    public Builder run(java.util.function.Consumer<Task> action) {
      return op(Ops.run(action));
    }

    public Program build() {
      return new Program(name, ops, interrupt);
    }
  }
}
