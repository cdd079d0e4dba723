package org.lockvisor.locking.spi;

import static com.google.common.base.Preconditions.checkState;

import java.util.Map;
import org.lockvisor.arch.spi.ArchCosts;
import org.lockvisor.core.plugin.BoundOptions;
import org.lockvisor.core.plugin.OptionBinder;
import org.lockvisor.core.plugin.PluginContext;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.SharedLine;
import org.lockvisor.machine.Task;

/**
 * Everything a lock instance gets from the framework, handed to {@link LockFactory#create}: its
 * name and kernel, the arch profile's costs ({@link ArchCosts}), whether this kernel's spin loops
 * consult {@code vcpu_is_preempted}, its options already bound and typed, symbols, the
 * framework-owned {@link LockAccounting}, and the lock word's cache line ({@link SharedLine},
 * priced by the machine's {@link org.lockvisor.machine.CacheLines}). New services arrive as new
 * methods here, so no plugin breaks (after Trino's {@code ConnectorContext}). An interface: a
 * lock's unit test may hand its factory a mock and check what the factory makes of the options.
 *
 * <p>Locks are made with {@link #builder}: it binds the options against what the factory
 * declares (one line listing every problem), checks the factory's capabilities, and returns the
 * lock the framework instruments unless the lock reports its own accounting.
 */
public interface LockContext extends PluginContext {

  /** A builder of locks in {@code kernel} with the architecture's {@code costs}. */
  static Builder builder(Kernel kernel, ArchCosts costs) {
    return new Builder(kernel, costs);
  }

  /** Instance name, e.g. {@code vhost_dev.work_lock}. */
  @Override
  String name();

  /** The kernel the lock lives in (a guest's or the host's). */
  Kernel kernel();

  /** The kernel's machine. */
  Machine machine();

  /** The arch profile's costs. */
  ArchCosts costs();

  /** Whether this kernel's spin loops consult {@code vcpu_is_preempted} (guests only; the R3 series). */
  boolean vcpuIsPreemptedCheck();

  /** The lock's options as declared by its factory: given values or defaults, typed. */
  @Override
  BoundOptions options();

  /** The framework's bookkeeping of this lock (lock_stat, holder preemption, trace, events). */
  LockAccounting accounting();

  /**
   * The cache line of the lock word, priced by the machine's one cache-line model ({@link
   * org.lockvisor.machine.CacheLines}: the atomic, plus the transfer from the physical CPU that last
   * held the line, by topology distance): {@code lockWord().rmw(t)} is what an xchg or cmpxchg by
   * {@code t} costs. The framework's accounting reads lock_stat's bounces from it.
   */
  SharedLine lockWord();

  /** A further cache line of this lock (a queue node, a second word), e.g. {@code newCacheLine("tail")}. */
  SharedLine newCacheLine(String what);

  /** The symbol id of a guest or host kernel function (what perf shows), e.g. {@code _raw_spin_lock}. */
  int kernelSymbol(String function);

  /** The symbol id of a hypervisor function (e.g. {@code H_CONFER}). */
  int hypervisorSymbol(String function);

  /**
   * The kernel's {@code vcpu_is_preempted(task_cpu(t))} where a spin loop consults it: false when
   * this kernel has no such check ({@link #vcpuIsPreemptedCheck()}), else what the guest is told
   * (the arch's semantics, which may differ from the truth).
   */
  boolean vcpuIsPreempted(Task t);

  /**
   * The spin time between two {@code vcpu_is_preempted} reads of a spin loop of this lock that
   * reads once every {@code loopsPerCheck} iterations of {@code cpu_relax()} ({@code
   * mutex_spin_on_owner}, {@code osq_lock}: every iteration, 1; {@code pv_wait_early}: every 256):
   * pass it to {@link Task#startSpin(int, org.lockvisor.machine.SpinCondition, long,
   * org.lockvisor.machine.SpinWatch, long)} and the framework charges each read the arch's {@code
   * VCPU_PREEMPTED_CHECK}. 0 when this kernel has no check ({@link #vcpuIsPreemptedCheck()}), so
   * a kernel without it is charged nothing.
   */
  long spinCheckPeriodNs(int loopsPerCheck);

  /**
   * Charges one {@code vcpu_is_preempted} read by {@code t} outside a spin loop — the check before
   * spinning ({@code mutex_can_spin_on_owner}, {@code rwsem_can_spin_on_owner}) or the one that
   * ends a loop at its first test: with the check on, starts the read's work (the arch's check
   * function, or {@code callerSymbol} where the arch inlines it) and returns true, and the op
   * returns {@link org.lockvisor.machine.Op#AGAIN}; false, and nothing charged, without the check.
   * Call it only where the kernel's expression actually reaches the read (after {@code
   * owner->on_cpu} and {@code need_resched()} let it).
   */
  boolean startVcpuPreemptedCheck(Task t, int callerSymbol);

  /**
   * The context of a lock embedded in this one (a mutex's {@code wait_lock}, its OSQ): same
   * kernel, costs and check, no options, its own accounting.
   */
  LockContext embedded(String embeddedName);

  /** Makes lock instances; one builder may make many (change the name in between). */
  final class Builder {
    private final Kernel kernel;
    private final ArchCosts costs;
    private String name;
    private boolean vcpuIsPreemptedCheck;
    private Map<String, String> options = Map.of();

    private Builder(Kernel kernel, ArchCosts costs) {
      this.kernel = kernel;
      this.costs = costs;
    }

    public Builder name(String name) {
      this.name = name;
      return this;
    }

    /** Whether the kernel's spin loops consult vcpu_is_preempted (ignored in a host kernel). */
    public Builder vcpuIsPreemptedCheck(boolean check) {
      this.vcpuIsPreemptedCheck = check;
      return this;
    }

    /** Option values as the user gave them (bound against the factory's declarations at create). */
    public Builder options(Map<String, String> options) {
      this.options = options == null ? Map.of() : Map.copyOf(options);
      return this;
    }

    /**
     * A new lock of {@code factory}.
     *
     * @throws IllegalArgumentException a bad option or capability, one line naming the plugin
     */
    public KernelLock create(LockFactory factory) {
      LockCapability.check(factory);
      BoundOptions bound = OptionBinder.bind("lock " + factory.name(), factory.options(), options);
      LockContext context = new FrameworkLockContext(name, kernel, costs, vcpuIsPreemptedCheck, bound);
      KernelLock lock = factory.create(context);
      checkState(lock != null, "lock plugin [%s] created no lock", factory.name());
      return context.accounting().isReportedByLock() ? lock : new InstrumentedLock(lock, context.accounting());
    }
  }
}
