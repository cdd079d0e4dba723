package org.lockvisor.reproductions.vcpupreempted;

import com.google.common.collect.ImmutableMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.CostKey;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.devices.spi.CostSource;
import org.lockvisor.devices.spi.LockProvider;
import org.lockvisor.experiment.ReproductionOptions;
import org.lockvisor.experiment.check.Checks;
import org.lockvisor.experiment.report.PerfReport;
import org.lockvisor.experiment.report.RunCapture;
import org.lockvisor.locking.builtin.CountMutexFactory;
import org.lockvisor.locking.builtin.PvQueuedSpinLockFactory;
import org.lockvisor.locking.builtin.QueuedRwlockFactory;
import org.lockvisor.locking.builtin.SplparRwlockFactory;
import org.lockvisor.locking.builtin.SplparSpinLockFactory;
import org.lockvisor.locking.builtin.XaddRwsemFactory;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockCosts;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.locking.spi.LockFactory.LockKind;
import org.lockvisor.locking.spi.LockStats;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Scheduler;
import org.lockvisor.machine.TtwuQueueMode;
import org.lockvisor.machine.Vm;
import org.lockvisor.platform.Platforms;
import org.lockvisor.scheduler.builtin.CfsScheduler;
import org.lockvisor.scheduler.builtin.PowervmDispatchScheduler;
import org.lockvisor.workloads.schedmessaging.SchedMessagingConfig;
import org.lockvisor.workloads.schedmessaging.SchedMessagingWorkload;
import org.lockvisor.workloads.spi.WorkloadContext;
import org.lockvisor.workloads.spi.WorkloadLocks;

/**
 * One run of {@code perf bench sched messaging} in an overcommitted guest, with the guest
 * kernel's vcpu_is_preempted check off (baseline) or on (patched), and its guest-sampled perf
 * report. Everything comes from the arch profile and the built-in plugins; nothing here is
 * specific to the published figures.
 *
 * <ul>
 *   <li>{@code ppc64-powervm}: a shared-processor LPAR with twice as many virtual processors as
 *       physical processors in the pool, entitled to the profile's 0.5 processing units per VP
 *       (so entitlement equals the pool), uncapped, alone in the pool; PHYP dispatches VPs in
 *       10 ms windows. Guest: 4.8-era count mutex, rwsem-xadd and the SPLPAR spinlock; HZ=100.
 *   <li>{@code x86_64-kvm}: the same guest kernel generation with pv-qspinlock, twice as many
 *       vCPUs as host CPUs, vCPU threads scheduled by the host's CFS.
 * </ul>
 */
final class SchedMessagingRun {
  /** The platform the benchmark runs on. */
  record Platform(String profile, int physicalCpus, int vcpus) {}

  /** What one run produced. */
  record Outcome(PerfReport report, Bench workload, long simulatedNs, long events,
      ImmutableMap<String, Long> lockStats) {}

  /** PAGE_SIZE of a ppc64 pseries kernel (CONFIG_PPC_64K_PAGES=y). */
  static final int PPC64_PAGE_SIZE = 65536;

  /**
   * What is read of the benchmark after its run: a snapshot, so that a finished run does not keep
   * its whole machine (tasks, locks, their wait nodes) alive until every run is judged — at 400
   * groups that is hundreds of MB per run.
   */
  record Bench(boolean finished, int exited, SchedMessagingConfig config, long startNs, long totalTimeNs,
      ImmutableMap<String, Number> figures) {
    static Bench of(SchedMessagingWorkload w) {
      return new Bench(w.finished(), w.exited(), w.config(), w.startNs(), w.totalTimeNs(), w.figures());
    }
  }

  private SchedMessagingRun() {}

  /**
   * The guest's CFS as 4.8 has it: sd_init domains over the topology the hypervisor presents,
   * wake_affine on (the kernel's default), wake_wide, periodic/nohz/newidle balancing with 4.8's
   * rd->overload gate. The what-if {@code --set wake-affine=false} switches wake_affine off (the
   * model's placement before issue 17; see docs/reproductions/vcpu-preempted.md).
   */
  private static CfsScheduler guestScheduler(ReproductionOptions options) {
    CfsScheduler s = CfsScheduler.withDefaults().era(CfsScheduler.Era.LINUX_4_8);
    return options.parameter(VcpuPreemptedReproduction.WAKE_AFFINE).orElse(true) ? s : s.disableWakeAffine();
  }

  static Outcome run(Platform platform, boolean check, SchedMessagingConfig config, long seed, long limitNs) {
    return run(platform, check, config, seed, limitNs, null, ReproductionOptions.defaults());
  }

  /**
   * One run; {@code capture}, when not {@code null}, captures its files over the whole run (the
   * benchmark has no warm-up: perf samples it from start to finish). The profile comes from
   * {@code options} (with a what-if's cost overrides), as do the what-if parameters {@code smt}
   * and {@code wake-affine}.
   *
   * <p>What-if only: {@code --set smt=2|4|8} gives each PowerVM VP that many hardware threads
   * (POWER8 SMT mode), dispatched together by {@code powervm-dispatch smt}: the pool keeps its
   * physical cores and the LPAR its VPs, so host and guest get smt× the CPUs. Default 1 (one
   * guest CPU per VP, the reproduction's model; see docs/reproductions/vcpu-preempted.md, "SMT
   * gang dispatch what-if").
   */
  static Outcome run(Platform platform, boolean check, SchedMessagingConfig config, long seed, long limitNs,
      RunCapture capture, ReproductionOptions options) {
    ArchProfile profile = options.profile(platform.profile());
    boolean powervm = profile.hypervisor().dispatchWindowNs() > 0 && profile.hypervisor().hostHz() == 0;
    Simulation sim = new Simulation(seed);
    Machine machine = new Machine(sim);
    // threads per VP: cores and VPs stay, CPUs multiply
    int smt = powervm ? options.parameter(VcpuPreemptedReproduction.SMT).orElse(1) : 1;
    Scheduler hostScheduler = powervm
        ? new PowervmDispatchScheduler(profile.hypervisor().dispatchWindowNs(),
            profile.hypervisor().entitlement() * platform.vcpus(), false, smt)
        : CfsScheduler.withDefaults();
    Kernel host = machine.createHost(powervm ? "phyp" : "host", platform.physicalCpus() * smt,
        Platforms.hostKernel(profile, TtwuQueueMode.CROSS_LLC, false), hostScheduler);
    var hypervisor = Platforms.hypervisor(profile);
    Platforms.configureHost(host, profile, hypervisor.hostActivity());
    Platforms.configureCacheLines(machine, profile);
    Vm vm = machine.createVm(powervm ? "lpar" : "vm0", platform.vcpus() * smt,
        Platforms.guestKernel(profile, platform.vcpus() * smt, TtwuQueueMode.CROSS_LLC, false),
        guestScheduler(options), hypervisor);
    // what the hypervisor presents: 4.8 pseries builds {SMT, DIE}, the LLC being a VP's threads
    vm.guest().setTopology(Platforms.guestTopology(profile, platform.vcpus() * smt, smt));
    Platforms.configureVcpuPreempted(vm.guest(), profile); // what the check answers and what a read costs
    Platforms.configureIpis(profile, vm);

    LockCosts lockCosts = LockCosts.fromProfile(profile);
    String spinlock = powervm ? "ppc-splpar" : "pv-qspinlock";
    Map<String, String> mutexOptions = Map.of("wait-lock", spinlock, "wake", "wake-q");
    Map<String, String> rwsemOptions = Map.of("wait-lock", spinlock);
    CountMutexFactory mutex = new CountMutexFactory();
    XaddRwsemFactory rwsem = new XaddRwsemFactory();
    var spin = powervm ? new SplparSpinLockFactory() : new PvQueuedSpinLockFactory();
    // the 4.x rwlock_t of each architecture (tasklist_lock): arch_read_lock/__rw_yield, qrwlock
    LockFactory rwlock = powervm ? new SplparRwlockFactory() : new QueuedRwlockFactory();
    List<KernelLock> created = new ArrayList<>();
    LockProvider created0 = (Kernel kernel, String name, LockKind kind) -> {
      var lock = switch (kind) {
        case MUTEX -> LockContext.builder(kernel, lockCosts).name(name).vcpuIsPreemptedCheck(check)
            .options(mutexOptions).create(mutex);
        case RWSEM -> LockContext.builder(kernel, lockCosts).name(name).vcpuIsPreemptedCheck(check)
            .options(rwsemOptions).create(rwsem);
        case RWLOCK -> LockContext.builder(kernel, lockCosts).name(name).vcpuIsPreemptedCheck(check).create(rwlock);
        default -> LockContext.builder(kernel, lockCosts).name(name).vcpuIsPreemptedCheck(check).create(spin);
      };
      created.add(lock);
      return lock;
    };
    LockProvider locks = capture == null ? created0
        : capture.scheduler(powervm ? "powervm-dispatch" : "cfs").scheduler("cfs").locks(created0);
    CostSource costs = CostSource.of(profile);
    SchedMessagingConfig cfg = powervm
        // a pseries guest kernel has 64 KiB pages (arch/powerpc/configs/pseries_defconfig and
        // ppc64_defconfig: CONFIG_PPC_64K_PAGES=y, as in the ppc64 distribution kernels): a pipe
        // buffer is one 64 KiB page and a copy-on-write fault copies 64 KiB
        ? config.withSymbols("__copy_tofrom_user_power7", "copypage_power7").withPageSize(PPC64_PAGE_SIZE)
        : config.withSymbols("copy_user_enhanced_fast_string", "copy_page");
    SchedMessagingWorkload bench = new SchedMessagingWorkload("sched-messaging", cfg, null);
    bench.start(new WorkloadContext(machine, vm, List.of(), costs, WorkloadLocks.of(Checks.guardedIfEnabled(machine, locks))));
    if (capture != null) {
      capture.workload(vm.name(), bench).measurementStarted(machine);
    }
    SpinnerSampler sampler = new SpinnerSampler(machine, vm);
    sampler.start();
    long step = 20_000_000L;
    long t = 0;
    while (!bench.finished() && t < limitNs) {
      t = Math.min(limitNs, t + step);
      sim.runUntil(t);
    }
    if (capture != null) {
      capture.finished(machine);
    }
    PerfReport report = PerfReport.guest(machine, vm, powervm, SchedMessagingWorkload.COMMAND);
    long sleeps = 0;
    long bailouts = 0;
    long spinAcq = 0;
    long contentions = 0;
    long confers = 0;
    long rwsemHold = 0;
    long ownerSpins = 0;
    long ownerSpinNs = 0;
    long wakeupsLeft = 0;
    for (var l : created) {
      if (l.algorithm().equals("rwsem-xadd")) {
        rwsemHold += l.stats().holdTotalNs();
      }
      LockStats s = l.stats();
      sleeps += s.sleeps();
      bailouts += s.spinBailouts();
      spinAcq += s.spinAcquisitions();
      contentions += s.contentions();
      confers += s.confers();
      ownerSpins += s.ownerSpins();
      ownerSpinNs += s.ownerSpinNs();
      wakeupsLeft += s.wakeupsLeftToSpinner();
    }
    ImmutableMap.Builder<String, Long> stats = ImmutableMap.<String, Long>builder()
        .put("contentions", contentions).put("sleeps", sleeps).put("spin_bailouts", bailouts)
        .put("spin_acquisitions", spinAcq).put("confers", confers).put("rwsem_hold_ns", rwsemHold)
        .put("owner_spins", ownerSpins).put("owner_spin_ns", ownerSpinNs).put("wakeups_left_to_spinner", wakeupsLeft)
        .put("spinner_samples", sampler.samples).put("spinner_runnable_sum", sampler.runnableSum)
        .put("spinner_runnable_max", sampler.runnableMax).put("spinner_osq_member_samples", sampler.osqSamples)
        .put("guest_runqueue_mean_milli", Math.round(vm.guest().schedStats().meanLength(sim.now()) * 1000))
        .put("preempted_vps_sum", sampler.preemptedVpSum).put("sampler_periods", sampler.periods);
    vm.hcalls().forEach((k, v) -> stats.put("hcall." + k, v));
    // the sampler's own events are the reproduction's instrument, not the machine's: left out, so
    // the count stays the one the experiment-file form of the same run processes
    return new Outcome(report, Bench.of(bench), sim.now(), sim.eventsProcessed() - sampler.periods, stats.buildOrThrow());
  }

  /**
   * Samples, every {@link #PERIOD_NS} of simulated time, the guest CPUs whose vCPU is dispatched
   * and whose current task spins in {@code osq_lock}, {@code rwsem_spin_on_owner} or {@code
   * mutex_spin_on_owner} (what perf would sample there), and the length of that CPU's guest
   * runqueue (tasks waiting behind the spinner): the runqueue lengths under spinners.
   */
  static final class SpinnerSampler implements org.lockvisor.core.sim.EventHandler {
    static final long PERIOD_NS = 100_000;
    private final Machine machine;
    private final Vm vm;
    private final List<org.lockvisor.machine.Cpu> cpus;
    private final List<org.lockvisor.machine.VcpuTask> vcpus;
    private final int symOsq;
    private final int symRwsem;
    private final int symMutex;
    long samples;
    long osqSamples;
    long runnableSum;
    long runnableMax;
    long periods;
    long preemptedVpSum;

    SpinnerSampler(Machine machine, Vm vm) {
      this.machine = machine;
      this.vm = vm;
      this.cpus = List.copyOf(vm.guest().cpus());
      this.vcpus = List.copyOf(vm.vcpus());
      this.symOsq = machine.symbols().symbol("osq_lock", Machine.DOMAIN_KERNEL);
      this.symRwsem = machine.symbols().symbol("rwsem_spin_on_owner", Machine.DOMAIN_KERNEL);
      this.symMutex = machine.symbols().symbol("mutex_spin_on_owner", Machine.DOMAIN_KERNEL);
    }

    void start() {
      machine.sim().schedule(PERIOD_NS, this, 0, 0);
    }

    @Override
    public void onEvent(int kind, long arg) {
      periods++;
      for (org.lockvisor.machine.VcpuTask v : vcpus) {
        if (v.hostState() == org.lockvisor.machine.VcpuTask.HostState.PREEMPTED) {
          preemptedVpSum++; // runnable, waiting for a processor of the pool
        }
      }
      for (int i = 0; i < cpus.size(); i++) {
        var c = cpus.get(i);
        var cur = c.current();
        if (cur == null || !vcpus.get(i).onCpu()) {
          continue;
        }
        int sym = cur.spinSymbol();
        if (sym < 0 || (sym != symOsq && sym != symRwsem && sym != symMutex)) {
          continue;
        }
        int runnable = vm.guest().scheduler().runnable(c);
        samples++;
        if (sym == symOsq) {
          osqSamples++;
        }
        runnableSum += runnable;
        runnableMax = Math.max(runnableMax, runnable);
      }
      machine.sim().schedule(PERIOD_NS, this, 0, 0);
    }
  }
}
