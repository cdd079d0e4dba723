package org.lockvisor.locking.spi;

import static com.google.common.base.Preconditions.checkArgument;

import org.lockvisor.arch.spi.ArchCosts;
import org.lockvisor.core.plugin.BoundOptions;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.SharedLine;
import org.lockvisor.machine.Task;

/** The framework's {@link LockContext}: made only by {@link LockContext.Builder}. */
final class FrameworkLockContext implements LockContext {
  private final String name;
  private final Kernel kernel;
  private final ArchCosts costs;
  private final boolean vcpuIsPreemptedCheck;
  private final BoundOptions options;
  private final SharedLine lockWord;
  private final LockAccounting accounting;

  FrameworkLockContext(String name, Kernel kernel, ArchCosts costs, boolean vcpuIsPreemptedCheck,
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

  /** Instance name, e.g. {@code vhost_dev.work_lock}. */
  @Override
  public String name() {
    return name;
  }

  @Override
  public Kernel kernel() {
    return kernel;
  }

  @Override
  public Machine machine() {
    return kernel.machine();
  }

  @Override
  public ArchCosts costs() {
    return costs;
  }

  /** Whether this kernel's spin loops consult {@code vcpu_is_preempted} (guests only; the R3 series). */
  @Override
  public boolean vcpuIsPreemptedCheck() {
    return vcpuIsPreemptedCheck;
  }

  /** The lock's options as declared by its factory: given values or defaults, typed. */
  @Override
  public BoundOptions options() {
    return options;
  }

  /** The framework's bookkeeping of this lock (lock_stat, holder preemption, trace, events). */
  @Override
  public LockAccounting accounting() {
    return accounting;
  }

  /**
   * The cache line of the lock word, priced by the machine's one cache-line model ({@link
   * org.lockvisor.machine.CacheLines}: the atomic, plus the transfer from the physical CPU that last
   * held the line, by topology distance): {@code lockWord().rmw(t)} is what an xchg or cmpxchg by
   * {@code t} costs. The framework's accounting reads lock_stat's bounces from it.
   */
  @Override
  public SharedLine lockWord() {
    return lockWord;
  }

  /** A further cache line of this lock (a queue node, a second word), e.g. {@code newCacheLine("tail")}. */
  @Override
  public SharedLine newCacheLine(String what) {
    return kernel.machine().cacheLines().line(name + "." + what);
  }

  /** The symbol id of a guest or host kernel function (what perf shows), e.g. {@code _raw_spin_lock}. */
  @Override
  public int kernelSymbol(String function) {
    return kernel.machine().symbol(function, Machine.DOMAIN_KERNEL);
  }

  /** The symbol id of a hypervisor function (e.g. {@code H_CONFER}). */
  @Override
  public int hypervisorSymbol(String function) {
    return kernel.machine().symbol(function, Machine.DOMAIN_HYPERVISOR);
  }

  /**
   * The kernel's {@code vcpu_is_preempted(task_cpu(t))} where a spin loop consults it: false when
   * this kernel has no such check ({@link #vcpuIsPreemptedCheck()}), else what the guest is told
   * (the arch's semantics, which may differ from the truth).
   */
  @Override
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
  @Override
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
  @Override
  public boolean startVcpuPreemptedCheck(Task t, int callerSymbol) {
    return kernel.vcpuPreemptedReads().startCheck(t, vcpuIsPreemptedCheck, callerSymbol);
  }

  /**
   * The context of a lock embedded in this one (a mutex's {@code wait_lock}, its OSQ): same
   * kernel, costs and check, no options, its own accounting.
   */
  @Override
  public LockContext embedded(String embeddedName) {
    return new FrameworkLockContext(embeddedName, kernel, costs, vcpuIsPreemptedCheck, BoundOptions.none("lock " + embeddedName));
  }
}
