package org.lockvisor.locking.testkit;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.Map;
import org.lockvisor.arch.spi.ArchCosts;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.machine.CacheLines;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.VcpuPreemptedHook;
import org.lockvisor.machine.Vm;
import org.lockvisor.machine.config.HypervisorConfig;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.machine.config.TtwuQueueMode;
import org.lockvisor.scheduler.builtin.RoundRobinScheduler;

/**
 * A machine to run locks on: a host with a few physical CPUs, one VM whose vCPU threads are
 * pinned round-robin over them (2× overcommitted by default), and optionally host "hog" threads
 * pinned to every physical CPU so that vCPUs are preempted often. Round-robin scheduling at both
 * levels; small, realistic costs (KERNEL-MODEL §10 defaults).
 */
public final class LockTestbed {
  private final Simulation sim;
  private final Machine machine;
  private final Kernel host;
  private final Vm vm;
  private final ArchCosts costs;
  private final boolean vcpuIsPreemptedCheck;

  private LockTestbed(Builder b) {
    this.sim = new Simulation(b.seed);
    this.machine = new Machine(sim);
    this.host = machine.createHost("host", b.physicalCpus, b.hostConfig, new RoundRobinScheduler(b.hostQuantumNs));
    machine.setCacheLines(CacheLines.flat(b.physicalCpus, b.costs));
    int[] pinning = new int[b.vcpus];
    for (int i = 0; i < b.vcpus; i++) {
      pinning[i] = i % b.physicalCpus;
    }
    this.vm = machine.createVm("vm0", b.vcpus, b.guestConfig, new RoundRobinScheduler(b.guestQuantumNs),
        new HypervisorConfig(b.exitRoundtripNs, b.exitHltNs, b.haltPollNs), pinning);
    vm.guest().setVcpuPreemptedHook(b.hook);
    this.costs = b.costs;
    this.vcpuIsPreemptedCheck = b.vcpuIsPreemptedCheck;
    Program hogLoop = Program.named("hog_loop").userWork(1_000_000, "hog").build();
    Program hog = Program.named("hog").loopWhile(t -> true, hogLoop).build();
    for (int c = 0; c < b.physicalCpus; c++) {
      for (int h = 0; h < b.hostHogsPerCpu; h++) {
        host.spawn("hog/" + c + "/" + h, hog, c);
      }
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Costs close to KERNEL-MODEL §10 (x86, same socket), with a short SPIN_THRESHOLD. */
  public static ArchCosts defaultCosts() {
    return ArchCosts.ofLocks(6, 60, 4, 1 << 13, 1_500, 300, 1_000);
  }

  /** A guest kernel: HZ=250, not preemptible, realistic scheduling path costs. */
  public static KernelConfig defaultGuestConfig() {
    return new KernelConfig(4_000_000, false, TtwuQueueMode.NEVER, 1 << 16, 1_500, 2_000, 100, 500, 1_000, 300,
        false, 300);
  }

  /** A host kernel with the same costs. */
  public static KernelConfig defaultHostConfig() {
    return defaultGuestConfig();
  }

  public Simulation sim() {
    return sim;
  }

  public Machine machine() {
    return machine;
  }

  public Kernel host() {
    return host;
  }

  public Vm vm() {
    return vm;
  }

  public Kernel guest() {
    return vm.guest();
  }

  public ArchCosts costs() {
    return costs;
  }

  public boolean vcpuIsPreemptedCheck() {
    return vcpuIsPreemptedCheck;
  }

  /** A lock of {@code factory} in the guest kernel. */
  public KernelLock createLock(LockFactory factory, String name, Map<String, String> options) {
    return LockContext.builder(guest(), costs).name(name).vcpuIsPreemptedCheck(vcpuIsPreemptedCheck).options(options)
        .create(factory);
  }

  /** CPU time (ns) charged anywhere with {@code symbol} as the leaf. */
  public long symbolTime(String symbol) {
    machine.syncAccounting();
    long[] sum = {0};
    machine.account().forEach((cpu, thread, stack, ns) -> {
      if (machine.symbols().name(machine.symbols().leaf(stack)).equals(symbol)) {
        sum[0] += ns;
      }
    });
    return sum[0];
  }

  /** CPU time (ns) charged to {@code task}. */
  public long taskTime(Task task) {
    machine.syncAccounting();
    return machine.account().threadTotal(task.id());
  }

  /** Builds a {@link LockTestbed}. */
  public static final class Builder {
    private long seed = 1;
    private int physicalCpus = 4;
    private int vcpus = 8;
    private int hostHogsPerCpu;
    // short slices: many vCPU preemptions and guest switches per run (more interleavings)
    private long hostQuantumNs = 200_000;
    private long guestQuantumNs = 500_000;
    private KernelConfig guestConfig = defaultGuestConfig();
    private KernelConfig hostConfig = defaultHostConfig();
    private long exitRoundtripNs = 700;
    private long exitHltNs = 500;
    private long haltPollNs;
    private ArchCosts costs = defaultCosts();
    private VcpuPreemptedHook hook = VcpuPreemptedHook.NEVER;
    private boolean vcpuIsPreemptedCheck;

    private Builder() {}

    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    public Builder physicalCpus(int n) {
      checkArgument(n > 0, "physical cpus must be positive: %s", n);
      this.physicalCpus = n;
      return this;
    }

    public Builder vcpus(int n) {
      checkArgument(n > 0, "vcpus must be positive: %s", n);
      this.vcpus = n;
      return this;
    }

    /** Host threads pinned to every physical CPU that compete with the vCPU threads. */
    public Builder hostHogsPerCpu(int n) {
      checkArgument(n >= 0, "hogs must not be negative: %s", n);
      this.hostHogsPerCpu = n;
      return this;
    }

    public Builder hostQuantumNs(long ns) {
      this.hostQuantumNs = ns;
      return this;
    }

    public Builder guestQuantumNs(long ns) {
      this.guestQuantumNs = ns;
      return this;
    }

    public Builder guestConfig(KernelConfig c) {
      this.guestConfig = c;
      return this;
    }

    public Builder hostConfig(KernelConfig c) {
      this.hostConfig = c;
      return this;
    }

    public Builder hypervisor(long exitRoundtripNs, long exitHltNs, long haltPollNs) {
      this.exitRoundtripNs = exitRoundtripNs;
      this.exitHltNs = exitHltNs;
      this.haltPollNs = haltPollNs;
      return this;
    }

    public Builder costs(ArchCosts c) {
      this.costs = c;
      return this;
    }

    /** What the guest's vcpu_is_preempted() answers, and whether its spin loops consult it. */
    public Builder vcpuIsPreempted(VcpuPreemptedHook hook, boolean check) {
      this.hook = hook;
      this.vcpuIsPreemptedCheck = check;
      return this;
    }

    public LockTestbed build() {
      return new LockTestbed(this);
    }
  }
}
