package org.lockvisor.locking.spi;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import java.util.Map;
import org.lockvisor.core.plugin.BoundOptions;
import org.lockvisor.core.plugin.OptionBinder;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.SharedLine;
import org.lockvisor.machine.Task;

/**
 * Everything a lock instance gets from the framework, handed to {@link LockFactory#create}: its
 * name and kernel, the architecture's costs, whether this kernel's spin loops consult {@code
 * vcpu_is_preempted}, its options already bound and typed, symbols, the framework-owned
 * {@link LockAccounting}, and the lock word's cache line ({@link SharedLine}, priced by the
 * machine's {@link org.lockvisor.machine.CacheLines}). New services arrive as new methods
 * here, so no plugin breaks (after Trino's {@code ConnectorContext}).
 *
 * <p>Locks are made with {@link #builder}: it binds the options against what the factory
 * declares (one line listing every problem), checks the factory's capabilities, and returns the
 * lock the framework instruments unless the lock reports its own accounting.
 */
public final class LockContext {
  private final String name;
  private final Kernel kernel;
  private final LockCosts costs;
  private final boolean vcpuIsPreemptedCheck;
  private final BoundOptions options;
  private final SharedLine lockWord;
  private final LockAccounting accounting;

  private LockContext(String name, Kernel kernel, LockCosts costs, boolean vcpuIsPreemptedCheck,
      BoundOptions options) {
    checkArgument(name != null && !name.isBlank(), "lock needs a name");
    checkArgument(kernel != null, "lock [%s] needs a kernel", name);
    checkArgument(costs != null, "lock [%s] needs costs", name);
    this.name = name;
    this.kernel = kernel;
    this.costs = costs;
    this.vcpuIsPreemptedCheck = vcpuIsPreemptedCheck && kernel.isGuest();
    this.options = options;
    this.lockWord = kernel.machine().cacheLines().line(name);
    this.accounting = new LockAccounting(name, kernel.machine(), lockWord);
  }

  /** A builder of locks in {@code kernel} with the architecture's {@code costs}. */
  public static Builder builder(Kernel kernel, LockCosts costs) {
    return new Builder(kernel, costs);
  }

  /** Instance name, e.g. {@code vhost_dev.work_lock}. */
  public String name() {
    return name;
  }

  public Kernel kernel() {
    return kernel;
  }

  public Machine machine() {
    return kernel.machine();
  }

  public LockCosts costs() {
    return costs;
  }

  /** Whether this kernel's spin loops consult {@code vcpu_is_preempted} (guests only; the R3 series). */
  public boolean vcpuIsPreemptedCheck() {
    return vcpuIsPreemptedCheck;
  }

  /** The lock's options as declared by its factory: given values or defaults, typed. */
  public BoundOptions options() {
    return options;
  }

  /** The framework's bookkeeping of this lock (lock_stat, holder preemption, trace, events). */
  public LockAccounting accounting() {
    return accounting;
  }

  /**
   * The cache line of the lock word, priced by the machine's one cache-line model ({@link
   * org.lockvisor.machine.CacheLines}: the atomic, plus the transfer from the physical CPU that last
   * held the line, by topology distance): {@code lockWord().rmw(t)} is what an xchg or cmpxchg by
   * {@code t} costs. The framework's accounting reads lock_stat's bounces from it.
   */
  public SharedLine lockWord() {
    return lockWord;
  }

  /** A further cache line of this lock (a queue node, a second word), e.g. {@code newCacheLine("tail")}. */
  public SharedLine newCacheLine(String what) {
    return kernel.machine().cacheLines().line(name + "." + what);
  }

  /** The symbol id of a guest or host kernel function (what perf shows), e.g. {@code _raw_spin_lock}. */
  public int kernelSymbol(String function) {
    return kernel.machine().symbol(function, Machine.DOMAIN_KERNEL);
  }

  /** The symbol id of a hypervisor function (e.g. {@code H_CONFER}). */
  public int hypervisorSymbol(String function) {
    return kernel.machine().symbol(function, Machine.DOMAIN_HYPERVISOR);
  }

  /**
   * The kernel's {@code vcpu_is_preempted(task_cpu(t))} where a spin loop consults it: false when
   * this kernel has no such check ({@link #vcpuIsPreemptedCheck()}), else what the guest is told
   * (the arch's semantics, which may differ from the truth).
   */
  public boolean vcpuIsPreempted(Task t) {
    return vcpuIsPreemptedCheck && t != null && t.cpu() != null && kernel.vcpuIsPreempted(t.cpu());
  }

  /**
   * The spin time between two {@code vcpu_is_preempted} reads of a spin loop of this lock that
   * reads once every {@code loopsPerCheck} iterations of {@code cpu_relax()} ({@code
   * mutex_spin_on_owner}, {@code osq_lock}: every iteration, 1; {@code pv_wait_early}: every 256):
   * pass it to {@link Task#startSpin(int, org.lockvisor.machine.SpinCondition, long,
   * org.lockvisor.machine.SpinWatch, long)} and the framework charges each read the arch's {@code
   * VCPU_PREEMPTED_CHECK}. 0 when this kernel has no check ({@link #vcpuIsPreemptedCheck()}), so
   * a kernel without it is charged nothing.
   */
  public long spinCheckPeriodNs(int loopsPerCheck) {
    return kernel.vcpuPreemptedReads().spinCheckPeriodNs(vcpuIsPreemptedCheck, costs.pauseNs(), loopsPerCheck);
  }

  /**
   * Charges one {@code vcpu_is_preempted} read by {@code t} outside a spin loop — the check before
   * spinning ({@code mutex_can_spin_on_owner}, {@code rwsem_can_spin_on_owner}) or the one that
   * ends a loop at its first test: with the check on, starts the read's work (the arch's check
   * function, or {@code callerSymbol} where the arch inlines it) and returns true, and the op
   * returns {@link org.lockvisor.machine.Op#AGAIN}; false, and nothing charged, without the check.
   * Call it only where the kernel's expression actually reaches the read (after {@code
   * owner->on_cpu} and {@code need_resched()} let it).
   */
  public boolean startVcpuPreemptedCheck(Task t, int callerSymbol) {
    return kernel.vcpuPreemptedReads().startCheck(t, vcpuIsPreemptedCheck, callerSymbol);
  }

  /**
   * The context of a lock embedded in this one (a mutex's {@code wait_lock}, its OSQ): same
   * kernel, costs and check, no options, its own accounting.
   */
  public LockContext embedded(String embeddedName) {
    return new LockContext(embeddedName, kernel, costs, vcpuIsPreemptedCheck, BoundOptions.none("lock " + embeddedName));
  }

  /** Makes lock instances; one builder may make many (change the name in between). */
  public static final class Builder {
    private final Kernel kernel;
    private final LockCosts costs;
    private String name;
    private boolean vcpuIsPreemptedCheck;
    private Map<String, String> options = Map.of();

    private Builder(Kernel kernel, LockCosts costs) {
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
      LockContext context = new LockContext(name, kernel, costs, vcpuIsPreemptedCheck, bound);
      KernelLock lock = factory.create(context);
      checkState(lock != null, "lock plugin [%s] created no lock", factory.name());
      return context.accounting.isReportedByLock() ? lock : new InstrumentedLock(lock, context.accounting);
    }
  }
}
