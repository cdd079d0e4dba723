package ${package};

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import com.google.common.collect.ImmutableMap;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockFactory.LockKind;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.workloads.spi.Workload;
import org.lockvisor.workloads.spi.WorkloadContext;

/**
 * {@code threads} guest tasks, each looping: take one spinlock ({@code spin_lock}), hold it for
 * {@code hold-ns}, release it, spend {@code think-ns} in user space, and reschedule if asked
 * ({@code cond_resched}). The lock is of the algorithm the experiment chose for the guest's
 * spinlocks, created through the context so it appears in the run's lock_stat. Figures: {@code
 * ops} and {@code ops_per_s} over the measurement window. Replace this with what your workload
 * models (the benchmark and version it follows).
 */
final class ${className} implements Workload {

  private final String name;
  private final int threads;
  private final long holdNs;
  private final long thinkNs;
  private Machine machine;
  private long ops;
  private long since;

  ${className}(String name, int threads, long holdNs, long thinkNs) {
    checkArgument(name != null && !name.isBlank(), "workload needs a name");
    this.name = name;
    this.threads = threads;
    this.holdNs = holdNs;
    this.thinkNs = thinkNs;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String model() {
    return ${className}Factory.NAME;
  }

  @Override
  public void start(WorkloadContext context) {
    checkState(machine == null, "%s is started already", name);
    this.machine = context.machine();
    Kernel guest = context.vm().guest();
    KernelLock lock = context.locks().create(guest, name + "_lock",
        context.locks().algorithm(guest, LockKind.SPINLOCK), LockKind.SPINLOCK, ImmutableMap.of(), name + "_iteration");
    Program iteration = Program.named(name + "_iteration")
        .op(lock.lock(LockMode.PLAIN))
        .work(holdNs, name + "_critical_section")
        .op(lock.unlock(LockMode.PLAIN))
        .run(t -> ops++)
        .userWork(thinkNs, name + "_think")
        .op(Ops.condResched())
        .build();
    Program loop = Program.named(name).loopWhile(t -> true, iteration).build();
    for (int i = 0; i < threads; i++) {
      guest.spawn(name + "/" + i, loop);
    }
    this.since = machine.sim().now();
  }

  @Override
  public void resetStats() {
    ops = 0;
    since = machine.sim().now();
  }

  @Override
  public ImmutableMap<String, Number> figures() {
    long window = machine.sim().now() - since;
    return ImmutableMap.of("ops", ops, "ops_per_s", window == 0 ? 0.0 : ops * 1e9 / window);
  }
}
