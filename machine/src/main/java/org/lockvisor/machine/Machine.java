package org.lockvisor.machine;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.List;
import org.lockvisor.core.account.CpuTimeAccount;
import org.lockvisor.core.account.SymbolTable;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.config.HypervisorConfig;
import org.lockvisor.machine.config.KernelConfig;

/**
 * The simulated machine: one host kernel on physical CPUs, and VMs whose vCPU threads are host
 * tasks. Build it, spawn tasks with programs, then run the simulation.
 *
 * <pre>
 * Machine m = new Machine(new Simulation(seed));
 * Kernel host = m.createHost("host", 4, hostConfig, hostScheduler);
 * Vm vm = m.createVm("vm0", 4, guestConfig, guestScheduler, hypervisorConfig);
 * vm.guest().spawn("fio", program);
 * m.sim().runUntil(1_000_000_000L);
 * </pre>
 */
public final class Machine {
  /** Symbol tags: the domain a symbol's time belongs to. */
  public static final int DOMAIN_KERNEL = 0;
  public static final int DOMAIN_USER = 1;
  public static final int DOMAIN_HYPERVISOR = 2;
  public static final int DOMAIN_IDLE = 3;
  public static final int DOMAIN_GUEST = 4;
  public static final int DOMAIN_TASK = 5;

  private final Simulation sim;
  private final SymbolTable symbols = new SymbolTable();
  private final CpuTimeAccount account = new CpuTimeAccount();
  private final List<Cpu> cpus = new ArrayList<>();
  private final List<Task> tasks = new ArrayList<>();
  private final List<Vm> vms = new ArrayList<>();
  private Kernel host;
  private MachineTrace trace = MachineTrace.NONE;
  private CacheLines cacheLines;
  private InterpreterInvariants interpreterInvariants;
  private final int symSchedule;
  /** Schedule exploration: perturbs the duration of every piece of work; null when off. */
  WorkJitter workJitter;

  /** Perturbs work durations (schedule exploration); must be deterministic per seed. */
  @FunctionalInterface
  public interface WorkJitter {
    /** The duration to use for work of nominal duration {@code ns} (non-negative). */
    long adjust(long ns);
  }

  /** Installs a work-duration perturbation for schedule exploration; null removes it. */
  public void setWorkJitter(WorkJitter jitter) {
    this.workJitter = jitter;
  }

  private org.lockvisor.arch.spi.KernelSymbols kernelSymbols = org.lockvisor.arch.spi.KernelSymbols.X86_64;

  public Machine(Simulation sim) {
    this.sim = sim;
    this.symSchedule = symbols.symbol("__schedule", DOMAIN_KERNEL);
  }

  public Simulation sim() {
    return sim;
  }

  public SymbolTable symbols() {
    return symbols;
  }

  /** Simulated time now, in ns (for plugin SPIs that see the machine but not the simulation core). */
  public long now() {
    return sim.now();
  }

  /** The symbol id of {@code function} in {@code domain} ({@link #DOMAIN_KERNEL}, {@link #DOMAIN_HYPERVISOR}...). */
  public int symbol(String function, int domain) {
    return symbols.symbol(function, domain);
  }

  public CpuTimeAccount account() {
    return account;
  }

  public MachineTrace trace() {
    return trace;
  }

  public void setTrace(MachineTrace trace) {
    this.trace = trace == null ? MachineTrace.NONE : trace;
  }

  public Kernel host() {
    return host;
  }

  /**
   * Sets how shared cache lines are priced on this machine's host (from the arch profile:
   * {@code Platforms.cacheLines}); the host must exist and fit the pricing's topology.
   */
  /**
   * The architecture's symbol and exit names ({@link org.lockvisor.arch.spi.KernelSymbols}), set from
   * the arch profile before the host and VMs are created (their handlers are named then); x86-64's
   * by default.
   */
  public void setKernelSymbols(org.lockvisor.arch.spi.KernelSymbols names) {
    checkArgument(names != null, "kernel symbols must not be null");
    checkState(host == null, "set the kernel symbols before creating the host");
    this.kernelSymbols = names;
  }

  /** The architecture's symbol and exit names. */
  public org.lockvisor.arch.spi.KernelSymbols kernelSymbols() {
    return kernelSymbols;
  }

  public void setCacheLines(CacheLines pricing) {
    checkArgument(pricing != null, "cache-line pricing must not be null");
    checkState(host != null, "create the host before setting its cache-line pricing");
    checkArgument(host.cpuCount() <= pricing.topology().cpus(),
        "the host has %s CPUs, the cache-line topology %s only %s", host.cpuCount(), pricing.topology(),
        pricing.topology().cpus());
    this.cacheLines = pricing;
  }

  /**
   * How shared cache lines are priced on this machine: what every plugin uses for an atomic or an
   * access on a shared line. Fails if the machine's builder did not set it: nothing prices a line
   * silently as free.
   */
  public CacheLines cacheLines() {
    checkState(cacheLines != null, "this machine has no cache-line pricing: its builder must call "
        + "setCacheLines(Platforms.cacheLines(profile)) (or CacheLines.free(cpus) in a test)");
    return cacheLines;
  }

  public List<Vm> vms() {
    return ImmutableList.copyOf(vms);
  }

  /** All CPUs, physical and virtual, by global id. */
  public List<Cpu> cpus() {
    return ImmutableList.copyOf(cpus);
  }

  /** Number of CPUs, physical and virtual (ids 0 to count - 1); no copy, unlike {@link #cpus}. */
  public int cpuCount() {
    return cpus.size();
  }

  /** Number of tasks ever created (ids 0 to count - 1); no copy, unlike {@link #tasks}. */
  public int taskCount() {
    return tasks.size();
  }

  public Cpu cpuById(int id) {
    return cpus.get(id);
  }

  public List<Task> tasks() {
    return ImmutableList.copyOf(tasks);
  }

  public Task taskById(int id) {
    return tasks.get(id);
  }

  int symSchedule() {
    return symSchedule;
  }

  /** Creates the host kernel with {@code physicalCpus} CPUs. */
  public Kernel createHost(String name, int physicalCpus, KernelConfig config, Scheduler scheduler) {
    checkState(host == null, "the host kernel exists already");
    checkArgument(physicalCpus > 0, "physical cpus must be positive: %s", physicalCpus);
    host = new Kernel(this, name, config, scheduler, null);
    for (int i = 0; i < physicalCpus; i++) {
      Cpu c = new Cpu(this, host, cpus.size(), i, name + "/cpu" + i, true);
      cpus.add(c);
      host.cpus.add(c);
      installIdle(c, new HostIdle());
    }
    scheduler.init(host);
    return host;
  }

  /**
   * Creates a VM with {@code vcpus} vCPUs; vCPU thread i is pinned to physical CPU
   * {@code pinning[i]} when {@code pinning} is given (else it floats).
   */
  public Vm createVm(String name, int vcpus, KernelConfig guestConfig, Scheduler guestScheduler,
      HypervisorConfig hv, int... pinning) {
    checkState(host != null, "create the host first");
    checkArgument(vcpus > 0, "vcpus must be positive: %s", vcpus);
    checkArgument(pinning.length == 0 || pinning.length == vcpus,
        "pinning lists %s cpus for %s vcpus", pinning.length, vcpus);
    Vm vm = new Vm(this, name, guestConfig, guestScheduler, hv);
    vms.add(vm);
    for (int i = 0; i < vcpus; i++) {
      Cpu g = new Cpu(this, vm.guest, cpus.size(), i, name + "/vcpu" + i, false);
      cpus.add(g);
      vm.guest.cpus.add(g);
      installIdle(g, new GuestIdle());
    }
    guestScheduler.init(vm.guest);
    for (int i = 0; i < vcpus; i++) {
      Cpu g = vm.guest.cpus.get(i);
      VcpuTask v = new VcpuTask(this, host, tasks.size(), name + "/vcpu" + i, vm, g);
      tasks.add(v);
      g.vcpuTask = v;
      vm.vcpus.add(v);
      host.adopt(v);
      if (pinning.length > 0) {
        checkArgument(pinning[i] >= 0 && pinning[i] < host.cpuCount(),
            "vcpu %s pinned to cpu %s, host has %s cpus", i, pinning[i], host.cpuCount());
        v.pinnedCpu = pinning[i];
      }
      host.wakeUpNew(v);
    }
    return vm;
  }

  /** Most tasks (idle, vCPU and spawned tasks) one machine holds: a runaway guard, not a model limit. */
  public static final int MAX_TASKS = 200_000;

  private void checkCapacity() {
    checkState(tasks.size() < MAX_TASKS, "the machine would hold more than %s tasks (CPUs, vCPUs and threads)",
        MAX_TASKS);
  }

  Task newTask(Kernel kernel, String name, Program program) {
    checkCapacity();
    Task t = new Task(this, kernel, tasks.size(), name, program);
    tasks.add(t);
    return t;
  }

  private void installIdle(Cpu c, Op idleOp) {
    checkCapacity();
    Program p = Program.named("cpu_idle").op(idleOp).build();
    Task idle = new Task(this, c.kernel, tasks.size(), "swapper/" + c.index, p);
    tasks.add(idle);
    idle.cpu = c;
    idle.onRq = false;
    c.idle = idle;
    c.current = idle;
    if (c.powered) {
      c.resumeSoon();
    }
  }

  void onTaskExit(Task t) {
    // hook for statistics; nothing yet
  }

  /**
   * For invariant checkers (invariant mode): null when the interpreter's own state is consistent
   * now, else the first violation ({@link InterpreterInvariants} lists what is checked). It reads
   * the run state, which is not public, and changes nothing but its own scratch arrays.
   */
  public String interpreterViolation() {
    if (interpreterInvariants == null) {
      interpreterInvariants = new InterpreterInvariants(this);
    }
    return interpreterInvariants.violation();
  }

  /** Flushes accounting on every CPU (call before reading CPU time). */
  public void syncAccounting() {
    for (int i = 0, n = cpus.size(); i < n; i++) { // indexed: no iterator per call (hot)
      cpus.get(i).flushAccounting();
    }
  }

  /** Host idle loop: do nothing until need_resched. */
  private static final class HostIdle extends Op {
    @Override
    public int execute(Task t, int phase) {
      Cpu c = t.cpu;
      if (c.needResched || c.kernel.scheduler.runnable(c) > 0) {
        c.kernel.schedule(c, false);
        return AGAIN;
      }
      t.activity = Activity.IDLE;
      t.activityStack = t.machine.symbols().push(t.currentStack(), c.kernel.symIdle());
      c.armCurrent();
      return AGAIN;
    }
  }

  /** Guest idle loop: schedule if there is work, else halt (a HLT/WFI exit). */
  private static final class GuestIdle extends Op {
    @Override
    public int execute(Task t, int phase) {
      Cpu c = t.cpu;
      if (c.needResched || c.kernel.scheduler.runnable(c) > 0) {
        c.kernel.schedule(c, false);
        return AGAIN;
      }
      t.activity = Activity.EXIT;
      c.vcpuTask.requestExit(c.kernel.vm.haltExitReason(), c.kernel.vm.haltHandler());
      return AGAIN;
    }
  }
}
