package org.lockvisor.machine;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/** The built-in instruction set. Custom ops extend {@link Op}. */
public final class Ops {
  private Ops() {}

  /** {@code ns} of kernel-mode CPU work charged to {@code symbol}. */
  public static Op work(long ns, String symbol) {
    return new Work(ns, symbol, false);
  }

  /** {@code ns} of user-mode CPU work (preemptible at any time). */
  public static Op userWork(long ns, String symbol) {
    return new Work(ns, symbol, true);
  }

  /** Work whose duration is computed per visit (e.g. per-byte costs). */
  public static Op work(java.util.function.ToLongFunction<Task> ns, String symbol) {
    return new DynamicWork(ns, symbol);
  }

  public static Op call(Program p) {
    return new Call(t -> p);
  }

  /** Calls the program chosen per visit (null: nothing). */
  public static Op call(Function<Task, Program> chooser) {
    return new Call(chooser);
  }

  /**
   * Calls the program {@code chooser} picks, again and again, until it picks null: a kernel
   * {@code while} loop whose body is one of several named functions, without an extra frame.
   */
  public static Op loopCall(Function<Task, Program> chooser) {
    return new LoopCall(chooser);
  }

  public static Op branch(Predicate<Task> condition, Program then, Program otherwise) {
    return new Call(t -> condition.test(t) ? then : otherwise);
  }

  public static Op loopWhile(Predicate<Task> condition, Program body) {
    return new Loop(condition, body);
  }

  public static Op run(Consumer<Task> action) {
    return new Op() {
      @Override
      public int execute(Task t, int phase) {
        action.accept(t);
        return NEXT;
      }
    };
  }

  public static Op irqDisable() {
    return new Op() {
      @Override
      public int execute(Task t, int phase) {
        t.irqsDisabled = true;
        return NEXT;
      }
    };
  }

  /** local_irq_enable: interrupts that arrived meanwhile run right now. */
  public static Op irqEnable() {
    return new Op() {
      @Override
      public int execute(Task t, int phase) {
        t.irqsDisabled = false;
        t.cpu.takeInterruptInline(t);
        return NEXT;
      }
    };
  }

  public static Op preemptDisable() {
    return new Op() {
      @Override
      public int execute(Task t, int phase) {
        t.preemptCount++;
        return NEXT;
      }
    };
  }

  /** preempt_enable: a preemption point on CONFIG_PREEMPT kernels. */
  public static Op preemptEnable() {
    return new Op() {
      @Override
      public int execute(Task t, int phase) {
        checkState(t.preemptCount > 0, "%s: preempt_enable without preempt_disable", t);
        if (phase == 0) {
          t.preemptCount--;
          if (t.preemptCount == 0 && t.cpu.preemptIfNeeded()) {
            return AGAIN;
          }
        }
        return NEXT;
      }
    };
  }

  /** cond_resched(): switch if need_resched is set and preemption is allowed. */
  public static Op condResched() {
    return new Op() {
      @Override
      public int execute(Task t, int phase) {
        if (phase == 0 && t.cpu.needResched && t.preemptCount == 0 && !t.irqsDisabled && t.irqDepth == 0) {
          t.kernel.schedule(t.cpu, true);
          return AGAIN;
        }
        return NEXT;
      }
    };
  }

  /** set_current_state(state). */
  public static Op setState(TaskState state) {
    return new Op() {
      @Override
      public int execute(Task t, int phase) {
        t.state = state;
        return NEXT;
      }
    };
  }

  /** schedule(): a task that set a sleeping state sleeps until woken; a running one may yield. */
  public static Op schedule() {
    return new Op() {
      @Override
      public int execute(Task t, int phase) {
        if (phase == 0) {
          t.scheduleNow();
          return AGAIN;
        }
        return NEXT;
      }
    };
  }

  /**
   * The lost-wakeup-free sleep: {@code for (;;) { prepare_to_wait(wq); set_current_state(
   * INTERRUPTIBLE); if (condition) break; schedule(); } finish_wait(wq)}.
   */
  public static Op sleepUntil(WaitQueue wq, Predicate<Task> condition) {
    return new Op() {
      @Override
      public int execute(Task t, int phase) {
        if (wq != null) {
          wq.add(t);
        }
        t.state = TaskState.INTERRUPTIBLE;
        if (condition.test(t)) {
          t.state = TaskState.RUNNING;
          if (wq != null) {
            wq.remove(t);
          }
          t.clearBlockedOn();
          return NEXT;
        }
        t.setBlockedOn(wq != null ? wq : (Object) "sleepUntil", condition);
        t.scheduleNow();
        return AGAIN;
      }
    };
  }

  /** Spins charged to {@code symbol} until {@code condition} holds or the budget runs out. */
  public static Op spinUntil(String symbol, SpinCondition condition, long budgetNs) {
    return new Op() {
      private int sym = -1;
      private Machine owner;

      @Override
      public int execute(Task t, int phase) {
        if (phase == 0) {
          if (owner != t.machine) {
            sym = t.machine.symbols().symbol(symbol, Machine.DOMAIN_KERNEL);
            owner = t.machine;
          }
          t.startSpin(sym, condition, budgetNs, null);
          return AGAIN;
        }
        return NEXT;
      }
    };
  }

  /** try_to_wake_up(target) with its phases and cost classes. */
  public static Op wake(Function<Task, Task> target) {
    return new Ttwu.WakeOp(target);
  }

  /** Wakes the first waiter of {@code wq} (if any). */
  public static Op wakeOne(WaitQueue wq) {
    return new Ttwu.WakeOp(t -> {
      Task w = wq.first();
      return w;
    });
  }

  /**
   * A VM exit from a guest task: its vCPU leaves guest mode, the host runs {@code hostHandler} on
   * the vCPU thread, then re-enters; the guest task continues after re-entry.
   */
  public static Op vmExit(String reason, Program hostHandler) {
    return new Op() {
      @Override
      public int execute(Task t, int phase) {
        if (phase == 0) {
          checkState(t.cpu.isGuest(), "%s: VM exit from a host task", t);
          t.activity = Activity.EXIT;
          t.cpu.vcpuTask.requestExit(reason, hostHandler);
          return AGAIN;
        }
        return NEXT;
      }

      @Override
      public String toString() {
        return "vmExit(" + reason + ")";
      }
    };
  }

  /** In a host exit handler: the vCPU thread returns to / comes back from the userspace VMM. */
  public static Op vmmUserspace(boolean enter) {
    return new Op() {
      @Override
      public int execute(Task t, int phase) {
        checkState(t instanceof VcpuTask, "%s: userspace VMM marker outside a vCPU thread", t);
        ((VcpuTask) t).setInUserspace(enter);
        return NEXT;
      }
    };
  }

  /** Raises an interrupt on a CPU chosen per visit (device completion, IPI payload). */
  public static Op raiseInterrupt(Function<Task, Cpu> cpu, Program handler) {
    return new Op() {
      @Override
      public int execute(Task t, int phase) {
        Cpu c = cpu.apply(t);
        if (c != null) {
          c.raiseInterrupt(handler);
        }
        return NEXT;
      }
    };
  }

  // -----------------------------------------------------------------------------------------

  static final class Work extends Op {
    private final long ns;
    private final String symbolName;
    private final boolean user;
    private int symbol = -1;
    private Machine owner;

    Work(long ns, String symbol, boolean user) {
      checkArgument(ns >= 0, "work of negative duration: %s", ns);
      this.ns = ns;
      this.symbolName = symbol;
      this.user = user;
    }

    @Override
    public int execute(Task t, int phase) {
      if (phase == 0) {
        if (ns == 0) {
          return NEXT;
        }
        if (owner != t.machine) {
          symbol = t.machine.symbols().symbol(symbolName, user ? Machine.DOMAIN_USER : Machine.DOMAIN_KERNEL);
          owner = t.machine;
        }
        t.startWork(ns, symbol, user);
        if (user) {
          t.cpu.preemptIfNeeded();
        }
        return AGAIN;
      }
      return NEXT;
    }

    @Override
    public String toString() {
      return "work(" + ns + ", " + symbolName + ")";
    }
  }

  static final class DynamicWork extends Op {
    private final java.util.function.ToLongFunction<Task> ns;
    private final String symbolName;
    private int symbol = -1;
    private Machine owner;

    DynamicWork(java.util.function.ToLongFunction<Task> ns, String symbol) {
      this.ns = ns;
      this.symbolName = symbol;
    }

    @Override
    public int execute(Task t, int phase) {
      if (phase == 0) {
        long d = ns.applyAsLong(t);
        if (d <= 0) {
          return NEXT;
        }
        if (owner != t.machine) {
          symbol = t.machine.symbols().symbol(symbolName, Machine.DOMAIN_KERNEL);
          owner = t.machine;
        }
        t.startWork(d, symbol, false);
        return AGAIN;
      }
      return NEXT;
    }
  }

  static final class Call extends Op {
    private final Function<Task, Program> chooser;

    Call(Function<Task, Program> chooser) {
      this.chooser = chooser;
    }

    @Override
    public int execute(Task t, int phase) {
      if (phase == 0) {
        Program p = chooser.apply(t);
        if (p == null) {
          return NEXT;
        }
        t.call(p);
        return AGAIN;
      }
      return NEXT;
    }
  }

  static final class Loop extends Op {
    private final Predicate<Task> condition;
    private final Program body;

    Loop(Predicate<Task> condition, Program body) {
      this.condition = condition;
      this.body = body;
    }

    @Override
    public int execute(Task t, int phase) {
      if (condition.test(t)) {
        t.call(body);
        return AGAIN;
      }
      return NEXT;
    }
  }

  private static final class LoopCall extends Op {
    private final Function<Task, Program> chooser;

    LoopCall(Function<Task, Program> chooser) {
      this.chooser = chooser;
    }

    @Override
    public int execute(Task t, int phase) {
      Program p = chooser.apply(t);
      if (p == null) {
        return NEXT;
      }
      t.call(p);
      return AGAIN;
    }
  }
}
