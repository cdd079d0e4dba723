package org.lockvisor.locking.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockCapability;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.VcpuPreemptedHook;

/**
 * The contract every lock plugin must keep, run on an overcommitted VM: mutual exclusion under
 * random schedules (checked on entry to the critical section and after every event), no lost
 * wakeup (every task finishes its acquisitions within a bound), progress while host threads
 * preempt the vCPUs, and the fairness and behaviours the plugin declares in its capabilities:
 * {@code fifo} (acquisition order equals arrival order), {@code pv} (waiters halt and are
 * kicked), {@code sleeping} (waiters sleep), {@code shared} (readers overlap: an rwsem's READ or an
 * rwlock's READ_LOCK beside the exclusive WRITE or WRITE_LOCK flavours). Capabilities are
 * the closed {@link LockCapability} vocabulary, checked before anything runs. Every run also
 * checks the machine's invariants after every event, and lock-holder preemption must be
 * attributed (by the framework's accounting: a plugin writes no accounting code). A plugin's test
 * extends this class and provides its factory; tests for undeclared capabilities are skipped.
 */
public abstract class LockContractTest {
  /** Simulated time within which a workload must finish: far beyond any legitimate run. */
  protected static final long BOUND_NS = 20_000_000_000L;

  /**
   * The liveness invariant's bound: under the locktorture run of {@link
   * #liveness_lockTorture_everyWorkerAcquiresWithinTheBound}, no worker goes this long without the
   * lock (from its start or its previous acquisition). 100 ms of simulated time: thousands of the
   * run's critical sections, and dozens of the host's time slices that preempt the vCPUs.
   */
  protected static final long LIVENESS_BOUND_NS = 100_000_000L;

  /** The plugin under test. */
  protected abstract LockFactory factory();

  /** Options passed to {@link LockFactory#create}. */
  protected Map<String, String> options() {
    return Map.of();
  }

  /** The capabilities the tests hold the plugin to (by default, what it declares). */
  protected Set<LockCapability> capabilities() {
    LockCapability.check(factory());
    Set<LockCapability> declared = EnumSet.noneOf(LockCapability.class);
    factory().capabilities().forEach(c -> declared.add(LockCapability.ofLabel(c)));
    return declared;
  }

  /** The testbed for a seed; override to change the machine. */
  protected LockTestbed.Builder testbed(long seed) {
    return LockTestbed.builder().seed(seed);
  }

  private KernelLock newLock(LockTestbed bed) {
    KernelLock lock = bed.createLock(factory(), "contract_lock", options());
    assertThat(lock.algorithm()).isEqualTo(factory().name());
    return lock;
  }

  private static List<LockMode> exclusiveModes(KernelLock lock) {
    List<LockMode> modes = new ArrayList<>();
    for (LockMode m : List.of(LockMode.PLAIN, LockMode.IRQSAVE, LockMode.IRQ, LockMode.BH, LockMode.SLEEPING,
        LockMode.WRITE, LockMode.WRITE_LOCK, LockMode.WRITE_LOCK_IRQSAVE, LockMode.WRITE_LOCK_IRQ,
        LockMode.WRITE_LOCK_BH)) {
      if (lock.supports(m)) {
        modes.add(m);
      }
    }
    assertThat(modes).as("%s supports no exclusive mode", lock).isNotEmpty();
    return modes;
  }

  /** The shared mode of a lock that has one (an rwsem's READ, an rwlock's read_lock), or null. */
  private static LockMode sharedMode(KernelLock lock) {
    for (LockMode m : List.of(LockMode.READ, LockMode.READ_LOCK)) {
      if (lock.supports(m)) {
        return m;
      }
    }
    return null;
  }

  private static void assertVcpusWerePreempted(LockTestbed bed) {
    long preemptions = bed.vm().vcpus().stream().mapToLong(v -> v.involuntarySwitches()).sum();
    assertThat(preemptions).as("the run must preempt vCPUs to mean anything").isPositive();
  }

  private static void assertClean(LockWorkload w) {
    assertThat(w.violations()).as("mutual exclusion violations").isEmpty();
    assertThat(w.allFinished()).as("every task finishes (no lost wakeup); stuck: %s", w.unfinished()).isTrue();
    assertThat(w.totalAcquisitions()).isEqualTo(w.expectedAcquisitions());
  }

  /**
   * Named invariant {@code liveness}: under a locktorture run (16 workers, the workload's critical
   * sections and think times, the testbed's overcommitted host) every worker acquires the lock
   * within {@link #LIVENESS_BOUND_NS}; a lock that starves a waiter fails naming the worker, how
   * long it went without the lock and since when.
   */
  @Test
  void liveness_lockTorture_everyWorkerAcquiresWithinTheBound() {
    LockWorkload w = lockTortureLiveness(testbed(17), factory(), options());

    assertThat(w.violations()).as("liveness and mutual exclusion violations").isEmpty();
    assertThat(w.allFinished()).as("every task finishes; stuck: %s", w.unfinished()).isTrue();
  }

  /**
   * The liveness invariant's run, for a plugin's own tests too (a planted starving variant must
   * fail it): locktorture with 16 workers of 40 acquisitions each in the first exclusive mode of the
   * lock that {@code factory} makes with {@code options}, checked against {@link
   * #LIVENESS_BOUND_NS} after every event. The returned workload's {@link LockWorkload#violations()}
   * name the invariant, the worker and the time.
   */
  public static LockWorkload lockTortureLiveness(LockTestbed.Builder testbed, LockFactory factory,
      Map<String, String> options) {
    LockTestbed bed = testbed.build();
    KernelLock lock = bed.createLock(factory, "contract_lock", options);
    return LockWorkload.on(bed, lock).mode(exclusiveModes(lock).get(0)).tasks(16).iterations(40)
        .livenessBoundNs(LIVENESS_BOUND_NS).start().run(BOUND_NS);
  }

  /**
   * The behaviour the plugin exists for, as a positive and a negative case (after Error Prone's
   * {@code CompilationTestHelper}, which pairs code a check must flag with code it must not): a
   * scenario, the plugin in which it must show, and a lock in which it must not (a baseline, or the
   * plugin with the behaviour switched off). The kit runs both on fresh testbeds of the same seed,
   * so a measurement that shows for everything (or for nothing) fails the pair.
   */
  public interface Behaviour {
    /** What the plugin does that the baseline does not, in one line. */
    String description();

    /** The negative case's lock: a baseline, or this plugin with the behaviour switched off. */
    LockFactory negativeFactory();

    /** The negative case's options. */
    Map<String, String> negativeOptions();

    /** The testbed both cases run on. */
    default LockTestbed.Builder testbed() {
      return LockTestbed.builder().seed(91);
    }

    /** Runs the scenario with {@code lock} on {@code bed} and says whether the behaviour showed. */
    Outcome run(LockTestbed bed, KernelLock lock);
  }

  /** Whether a {@link Behaviour} showed, and what was measured (for the failure message). */
  public record Outcome(boolean shows, String measured) {}

  /**
   * The plugin's negative test: the behaviour it exists for, or empty (then the pair is skipped). A
   * plugin that exists for a behaviour should state it here, beside the contract it keeps.
   */
  protected java.util.Optional<Behaviour> behaviour() {
    return java.util.Optional.empty();
  }

  @Test
  void behaviour_showsInThePlugin_andNotInTheNegativeCase() {
    java.util.Optional<Behaviour> declared = behaviour();
    assumeTrue(declared.isPresent(), "plugin states no behaviour");
    Behaviour b = declared.get();
    LockTestbed positiveBed = b.testbed().build();
    Outcome positive = b.run(positiveBed, positiveBed.createLock(factory(), "contract_lock", options()));
    LockTestbed negativeBed = b.testbed().build();
    Outcome negative = b.run(negativeBed, negativeBed.createLock(b.negativeFactory(), "contract_lock",
        b.negativeOptions()));
    assertThat(positive.shows()).as("positive case, %s: %s", b.description(), positive.measured()).isTrue();
    assertThat(negative.shows()).as("negative case (%s %s), %s: %s", b.negativeFactory().name(),
        b.negativeOptions(), b.description(), negative.measured()).isFalse();
  }

  @Test
  void metadata_namedAndDescribed() {
    LockFactory f = factory();
    assertThat(f.name()).matches("[a-z][a-z0-9]*(-[a-z0-9]+)*");
    assertThat(f.kind()).isEqualTo("lock");
    assertThat(f.summary()).isNotBlank().doesNotContain("\n");
    assertThat(f.lockKind()).isNotNull();
    LockCapability.check(f); // a capability outside the closed vocabulary fails here, not silently later
    assertThat(f.capabilities()).allMatch(c -> LockCapability.ofLabel(c) != null);
  }

  /**
   * Lock-holder preemption is attributed by the framework, whether or not the lock reports its
   * own accounting: host hogs preempt vCPUs while they hold the lock during critical sections
   * longer than the host's time slice, so holds are preempted and waiters wait on a preempted holder; that wait is a part
   * of the total wait (a waiter is charged only while it waits).
   */
  @Test
  void holderPreemption_vcpusPreemptedWhileHolding_attributedToHolderPreemptedWait() {
    LockTestbed bed = testbed(81).hostHogsPerCpu(1).build();
    KernelLock lock = newLock(bed);
    // holds longer than the host's 200 us slice: a holder whose pCPU has a runnable hog is preempted
    LockWorkload w = LockWorkload.on(bed, lock).mode(exclusiveModes(lock).get(0)).tasks(8).iterations(10)
        .criticalSectionNs(300_000, 600_000).thinkNs(20_000, 100_000).start().run(BOUND_NS);
    assertClean(w);
    assertVcpusWerePreempted(bed);
    assertThat(w.machineInvariantChecks()).as("machine invariants checked after every event").isPositive();
    assertThat(lock.stats().preemptedHolds()).as("holds during which the holder's vCPU was preempted").isPositive();
    assertThat(lock.stats().holdPreemptedNs()).isPositive().isLessThanOrEqualTo(lock.stats().holdTotalNs());
    assertThat(lock.stats().holderPreemptedWaitNs()).as("wait while the holder's vCPU was preempted").isPositive()
        .isLessThanOrEqualTo(lock.stats().waitTotalNs());
  }

  /** Without host contention no vCPU is preempted, so nothing may be attributed to it. */
  @Test
  void holderPreemption_noHostContention_nothingAttributed() {
    LockTestbed bed = testbed(82).vcpus(4).physicalCpus(4).build();
    KernelLock lock = newLock(bed);
    LockWorkload w = LockWorkload.on(bed, lock).mode(exclusiveModes(lock).get(0)).tasks(8).iterations(20)
        .criticalSectionNs(5_000, 20_000).start().run(BOUND_NS);
    assertClean(w);
    assertThat(lock.stats().contentions()).isPositive();
    assertThat(lock.stats().holderPreemptedWaitNs()).isZero();
    assertThat(lock.stats().preemptedHolds()).isZero();
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4})
  void mutualExclusion_randomSchedulesOnOvercommittedVm_atMostOneHolder(long seed) {
    // odd seeds add a host hog per physical CPU, so vCPUs are preempted even when they idle often
    boolean hogs = seed % 2 == 1;
    LockTestbed bed = testbed(seed).hostHogsPerCpu(hogs ? 1 : 0).build();
    KernelLock lock = newLock(bed);
    List<LockMode> modes = exclusiveModes(lock);
    LockMode mode = modes.get((int) (seed % modes.size()));
    LockWorkload.Builder b = LockWorkload.on(bed, lock).mode(mode).tasks(16).iterations(150);
    LockMode shared = sharedMode(lock);
    if (shared != null) {
      b.readers(shared, 0.6);
    }
    LockWorkload w = b.start().run(BOUND_NS);
    assertClean(w);
    if (hogs && shared == null) { // reader-heavy runs sleep and halt more than they run
      assertVcpusWerePreempted(bed);
    }
  }

  @Test
  void noLostWakeup_longCriticalSections_everyTaskFinishes() {
    LockTestbed bed = testbed(11).build();
    KernelLock lock = newLock(bed);
    LockWorkload w = LockWorkload.on(bed, lock).mode(exclusiveModes(lock).get(0)).tasks(24).iterations(20)
        .criticalSectionNs(5_000, 50_000).thinkNs(0, 5_000).start().run(BOUND_NS);
    assertClean(w);
    assertThat(lock.stats().contentions()).isPositive();
  }

  @Test
  void progress_hostThreadsPreemptVcpus_everyTaskFinishes() {
    LockTestbed bed = testbed(21).hostHogsPerCpu(1).vcpuIsPreempted(VcpuPreemptedHook.INVOLUNTARY, true).build();
    KernelLock lock = newLock(bed);
    LockWorkload w = LockWorkload.on(bed, lock).mode(exclusiveModes(lock).get(0)).tasks(16).iterations(100)
        .start().run(BOUND_NS);
    assertClean(w);
    assertVcpusWerePreempted(bed);
  }

  @Test
  void stats_countEveryAcquisitionAndHold() {
    LockTestbed bed = testbed(31).build();
    KernelLock lock = newLock(bed);
    LockWorkload w = LockWorkload.on(bed, lock).mode(exclusiveModes(lock).get(0)).tasks(8).iterations(25)
        .start().run(BOUND_NS);
    assertClean(w);
    assertThat(lock.stats().acquisitions()).isEqualTo(w.expectedAcquisitions());
    assertThat(lock.stats().contentions()).isBetween(1L, lock.stats().acquisitions());
    assertThat(lock.stats().holdTotalNs()).isPositive();
    assertThat(lock.stats().waitTotalNs()).isPositive();
    assertThat(lock.owner()).isNull();
  }

  @Test
  void fifo_noVcpuPreemption_acquisitionOrderEqualsArrivalOrder() {
    assumeTrue(capabilities().contains(LockCapability.FIFO), "plugin does not declare fifo");
    LockTestbed bed = testbed(41).build();
    KernelLock lock = newLock(bed);
    LockWorkload w = LockWorkload.on(bed, lock).mode(exclusiveModes(lock).get(0)).tasks(12).iterations(25)
        .thinkNs(0, 3_000).start().run(BOUND_NS);
    assertClean(w);
    assertThat(w.acquisitionOrder()).isEqualTo(w.arrivalOrder());
  }

  @Test
  void fifo_underVcpuPreemption_acquisitionOrderEqualsArrivalOrder() {
    assumeTrue(capabilities().contains(LockCapability.FIFO), "plugin does not declare fifo");
    LockTestbed bed = testbed(42).hostHogsPerCpu(1).build();
    KernelLock lock = newLock(bed);
    LockWorkload w = LockWorkload.on(bed, lock).mode(exclusiveModes(lock).get(0)).tasks(12).iterations(100)
        .start().run(BOUND_NS);
    assertClean(w);
    assertVcpusWerePreempted(bed);
    assertThat(w.acquisitionOrder()).isEqualTo(w.arrivalOrder());
  }

  @Test
  void pv_waitersOfPreemptedHolders_haltAndAreKicked() {
    assumeTrue(capabilities().contains(LockCapability.PV), "plugin does not declare pv");
    LockTestbed bed = testbed(51).hostHogsPerCpu(1).build();
    KernelLock lock = newLock(bed);
    LockWorkload w = LockWorkload.on(bed, lock).mode(exclusiveModes(lock).get(0)).tasks(16).iterations(20)
        .criticalSectionNs(2_000, 20_000).start().run(BOUND_NS);
    assertClean(w);
    assertThat(lock.stats().halts()).isPositive();
    assertThat(lock.stats().kicks()).isPositive().isLessThanOrEqualTo(lock.stats().acquisitions());
  }

  @Test
  void sleeping_longHolds_waitersSleep() {
    assumeTrue(capabilities().contains(LockCapability.SLEEPING), "plugin does not declare sleeping");
    LockTestbed bed = testbed(61).build();
    KernelLock lock = newLock(bed);
    LockWorkload w = LockWorkload.on(bed, lock).mode(exclusiveModes(lock).get(0)).tasks(16).iterations(10)
        .criticalSectionNs(200_000, 1_000_000).start().run(BOUND_NS);
    assertClean(w);
    assertThat(lock.stats().sleeps()).isPositive();
  }

  @Test
  void shared_readersOnly_readersOverlap() {
    assumeTrue(capabilities().contains(LockCapability.SHARED), "plugin does not declare shared");
    LockTestbed bed = testbed(71).build();
    KernelLock lock = newLock(bed);
    LockMode shared = sharedMode(lock);
    assertThat(shared).as("%s declares shared but has no READ or READ_LOCK mode", lock).isNotNull();
    LockWorkload w = LockWorkload.on(bed, lock).mode(exclusiveModes(lock).get(0)).readers(shared, 1.0)
        .tasks(8).iterations(20).criticalSectionNs(10_000, 50_000).start().run(BOUND_NS);
    assertClean(w);
    assertThat(w.maxReadersInside()).isGreaterThan(1);
  }
}
