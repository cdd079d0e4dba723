package org.lockvisor.workloads.scftorture;

import static com.google.common.base.Preconditions.checkState;

import com.google.common.collect.ImmutableMap;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import org.lockvisor.arch.spi.CostKey;
import org.lockvisor.machine.Cpu;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.TaskAttachment;
import org.lockvisor.workloads.spi.Workload;
import org.lockvisor.workloads.spi.WorkloadContext;

/**
 * The kernel's {@code smp_call_function()} torture module ({@code kernel/scftorture.c}, Paul E.
 * McKenney, 2020; its first version read for issue 34) in one VM: {@code nthreads} invoker
 * kthreads, kthread {@code i} bound to CPU {@code i % ncpus} ({@code set_cpus_allowed_ptr}), each
 * looping {@code scftorture_invoke_one}: {@code preempt_disable()}, one call, {@code
 * preempt_enable()}, then the think time and {@code cond_resched()} (later versions of the loop;
 * then {@code stutter_wait}, which calls it).
 *
 * <p>A call follows kernel/smp.c (5.x): {@code csd_lock} waits until the caller's previous
 * call-single-data for that CPU is unlocked; the csd goes on the target CPU's {@code
 * call_single_queue} ({@code llist_add}) and an IPI is sent only when that queue was empty ({@code
 * send_call_function_single_ipi} / {@code arch_send_call_function_ipi_mask}: one IPI per target,
 * priced as the guest's IPI send, a VM exit without posted or PV IPIs). The target runs {@code
 * flush_smp_call_function_queue} from {@code call_function_interrupt} when its vCPU runs with
 * interrupts on: {@code scf_handler} for each queued csd, then {@code csd_unlock}. With {@code
 * wait} the caller spins in {@code csd_lock_wait} ({@code smp_cond_load_acquire} over {@code
 * cpu_relax()}, inlined into {@code smp_call_function_many} / {@code smp_call_function_single},
 * the symbols charged) until every target ran it — a PAUSE loop that traps to {@code
 * kvm_vcpu_on_spin} while a target vCPU waits for a host CPU. {@code single} picks a random CPU
 * ({@code torture_random % nr_cpu_ids}); its own CPU runs the function inline with no IPI.
 *
 * <p>Reported: calls and their rate, handler runs ({@code scf_invoked_count}), IPIs sent, and the
 * mean time a waiting call spent in {@code csd_lock_wait}. The module's rare long {@code udelay}s
 * in the handler and its {@code stutter} pauses are not modelled.
 */
public final class ScfTortureWorkload implements Workload {
  private static final TaskAttachment<Invoker> INVOKER = TaskAttachment.of("scftorture invoker", Invoker.class);

  private final String name;
  private final ScfTortureConfig config;
  private Machine machine;
  private final List<Invoker> invokers = new ArrayList<>();
  /** Per guest CPU: its call_single_queue (csds of callers waiting for it). */
  private ArrayDeque<Invoker>[] queues;
  /** Per guest CPU: the csd whose scf_handler is running in its interrupt. */
  private Invoker[] inHandler;
  private long handlerRuns;
  private long ipis;
  private long since;

  public ScfTortureWorkload(String name, ScfTortureConfig config) {
    this.name = name;
    this.config = config;
  }

  /** One invoker kthread: its random stream, its bound CPU, its csds in flight and its counts. */
  static final class Invoker {
    final SplittableRandom random;
    final int cpu;
    Task task;
    /** Its csds not yet unlocked by their target. */
    int pending;
    /** Targets of the current call, in send order; {@code nextSend} indexes them. */
    final int[] targets;
    int ntargets;
    int nextSend;
    long calls;
    long waits;
    long waitNs;
    long waitStart;

    Invoker(SplittableRandom random, int cpu, int ncpus) {
      this.random = random;
      this.cpu = cpu;
      this.targets = new int[ncpus];
    }
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String model() {
    return ScfTortureFactory.NAME;
  }

  @Override
  @SuppressWarnings("unchecked")
  public void start(WorkloadContext ctx) {
    checkState(machine == null, "%s is started already", name);
    this.machine = ctx.machine();
    Kernel guest = ctx.vm().guest();
    int ncpus = guest.cpuCount();
    queues = new ArrayDeque[ncpus];
    for (int i = 0; i < ncpus; i++) {
      queues[i] = new ArrayDeque<>();
    }
    inHandler = new Invoker[ncpus];
    Program handler = Program.interruptHandler("call_function_interrupt")
        .work(ctx.costs().ns(CostKey.IRQ_ENTRY), "call_function_interrupt")
        .op(new FlushQueue())
        .build();
    Program send = guest.ipiSendProgram();
    boolean all = config.primitive().equals("all");
    String waitSymbol = all ? "smp_call_function_many" : "smp_call_function_single";
    Program.Builder iteration = Program.named("scftorture_invoke_one")
        .preemptDisable()
        .op(Ops.spinUntil(waitSymbol, t -> invoker(t).pending == 0, 0)) // csd_lock
        .op(new Call(all, send, handler));
    if (config.waits()) {
      iteration.run(this::startWait)
          .op(Ops.spinUntil(waitSymbol, t -> invoker(t).pending == 0, 0)) // csd_lock_wait
          .run(this::endWait);
    }
    iteration.preemptEnable().op(Ops.work(config.thinkNs(), "scftorture_invoker")).op(Ops.condResched());
    Program loop = Program.named("scftorture_invoker").loopWhile(t -> true, iteration.build()).build();
    int n = config.threads(ncpus);
    for (int i = 0; i < n; i++) {
      Invoker k = new Invoker(machine.sim().streams().get(ctx.vm().name() + "/" + name + "/invoker" + i), i % ncpus,
          ncpus);
      invokers.add(k);
      k.task = guest.spawn("scftorture_invoker/" + i, loop, k.cpu);
      INVOKER.set(k.task, k);
    }
    this.since = machine.sim().now();
  }

  private static Invoker invoker(Task t) {
    return INVOKER.get(t);
  }

  private void startWait(Task t) {
    Invoker k = invoker(t);
    k.waitStart = machine.sim().now();
  }

  private void endWait(Task t) {
    Invoker k = invoker(t);
    k.waits++;
    k.waitNs += machine.sim().now() - k.waitStart;
  }

  /**
   * One smp_call_function* call: queue the csds ({@code llist_add}), then send an IPI to each
   * target whose queue was empty, raising it when the send completes; a call to the caller's own
   * CPU runs the handler inline.
   */
  private final class Call extends Op {
    private final boolean all;
    private final Program send;
    private final Program handler;
    private int symHandler = -1;

    Call(boolean all, Program send, Program handler) {
      this.all = all;
      this.send = send;
      this.handler = handler;
    }

    @Override
    public int execute(Task t, int phase) {
      Invoker k = invoker(t);
      if (phase == 0) {
        k.calls++;
        k.ntargets = 0;
        k.nextSend = 0;
        int ncpus = queues.length;
        if (all) {
          for (int c = 0; c < ncpus; c++) {
            if (c != k.cpu) {
              enqueue(k, c);
            }
          }
        } else {
          int c = k.random.nextInt(ncpus);
          if (c == k.cpu) {
            handlerRuns++; // smp_call_function_single to self: func() with interrupts off, no csd
            if (config.handlerNs() > 0) {
              if (symHandler < 0) {
                symHandler = machine.symbols().symbol("scf_handler", Machine.DOMAIN_KERNEL);
              }
              t.startWork(config.handlerNs(), symHandler, false);
              return AGAIN;
            }
            return NEXT;
          }
          enqueue(k, c);
        }
      } else if (k.nextSend > 0 && k.nextSend <= k.ntargets) {
        cpu(t, k.targets[k.nextSend - 1]).raiseInterrupt(handler); // the ICR write took effect
      }
      if (k.nextSend < k.ntargets) {
        k.nextSend++;
        ipis++;
        t.call(send);
        return AGAIN;
      }
      return NEXT;
    }

    /** llist_add of the caller's csd on {@code c}'s queue; an IPI only if the queue was empty. */
    private void enqueue(Invoker k, int c) {
      boolean wasEmpty = queues[c].isEmpty() && inHandler[c] == null;
      queues[c].add(k);
      k.pending++;
      if (wasEmpty) {
        k.targets[k.ntargets++] = c;
      }
    }

    private Cpu cpu(Task t, int index) {
      return t.kernel().cpu(index);
    }
  }

  /** flush_smp_call_function_queue: scf_handler then csd_unlock for each queued csd. */
  private final class FlushQueue extends Op {
    private int symHandler = -1;

    @Override
    public int execute(Task t, int phase) {
      int c = t.cpu().index();
      if (inHandler[c] != null) {
        unlock(inHandler[c]);
        inHandler[c] = null;
      }
      Invoker next;
      while ((next = queues[c].poll()) != null) {
        handlerRuns++;
        if (config.handlerNs() > 0) {
          if (symHandler < 0) {
            symHandler = machine.symbols().symbol("scf_handler", Machine.DOMAIN_KERNEL);
          }
          inHandler[c] = next;
          t.startWork(config.handlerNs(), symHandler, false);
          return AGAIN;
        }
        unlock(next);
      }
      return NEXT;
    }

    /** csd_unlock: the caller spinning on the csd's flags sees it. */
    private void unlock(Invoker k) {
      k.pending--;
      if (k.pending == 0) {
        k.task.poke(0);
      }
    }
  }

  // -------------------------------------------------------------------------------------------
  // Figures.

  @Override
  public void resetStats() {
    for (Invoker k : invokers) {
      k.calls = 0;
      k.waits = 0;
      k.waitNs = 0;
    }
    handlerRuns = 0;
    ipis = 0;
    since = machine == null ? 0 : machine.sim().now();
  }

  @Override
  public ImmutableMap<String, Number> figures() {
    double secs = Math.max(1, machine.sim().now() - since) / 1e9;
    long calls = 0;
    long waits = 0;
    long waitNs = 0;
    long max = 0;
    long min = Long.MAX_VALUE;
    int idle = 0;
    for (Invoker k : invokers) {
      calls += k.calls;
      waits += k.waits;
      waitNs += k.waitNs;
      max = Math.max(max, k.calls);
      min = Math.min(min, k.calls);
      idle += k.calls == 0 ? 1 : 0;
    }
    ImmutableMap.Builder<String, Number> m = ImmutableMap.builder();
    m.put("calls", calls);
    m.put("calls_per_s", calls / secs);
    m.put("calls_max", max);
    m.put("calls_min", invokers.isEmpty() ? 0 : min);
    m.put("scf_invoked_count", handlerRuns);
    m.put("ipis", ipis);
    m.put("csd_wait_mean_ns", waits == 0 ? 0 : waitNs / waits);
    m.put(IDLE_TASKS, idle);
    m.put("runtime_ns", machine.sim().now() - since);
    return m.build();
  }

  /** The module's end-of-test line and its parameters. */
  @Override
  public Optional<Map<String, Object>> nativeReport() {
    if (machine == null) {
      return Optional.empty();
    }
    Map<String, Object> report = new LinkedHashMap<>();
    report.put("primitive", config.primitive());
    report.put("wait", config.waits());
    report.put("nthreads", invokers.size());
    report.put("stats", "scftorture:  scf_invoked_count ver: " + handlerRuns);
    List<Long> calls = new ArrayList<>();
    for (Invoker k : invokers) {
      calls.add(k.calls);
    }
    report.put("invoker_calls", calls);
    return Optional.of(report);
  }
}
