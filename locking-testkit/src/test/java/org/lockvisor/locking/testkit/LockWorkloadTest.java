package org.lockvisor.locking.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.locking.spi.LockStats;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Task;

/** The kit must catch a broken lock: a lock that excludes nobody yields violations. */
class LockWorkloadTest {

  /** Claims ownership but never makes anyone wait. */
  private static final class NoExclusionLock implements KernelLock {
    private final LockStats stats = new LockStats();
    private Task owner;

    @Override
    public String name() {
      return "broken";
    }

    @Override
    public String algorithm() {
      return "none";
    }

    @Override
    public Op lock(LockMode mode) {
      return Ops.run(t -> owner = t);
    }

    @Override
    public Op unlock(LockMode mode) {
      return Ops.run(t -> owner = null);
    }

    @Override
    public boolean supports(LockMode mode) {
      return mode == LockMode.PLAIN;
    }

    @Override
    public Task owner() {
      return owner;
    }

    @Override
    public LockStats stats() {
      return stats;
    }
  }

  /**
   * Excludes correctly (a test-and-set spin, every spinner poked at the unlock), but its victim,
   * the first task to arrive, waits half a second before it even tries: a starving lock.
   */
  private static final class StarvingLock implements KernelLock {
    private final LockStats stats = new LockStats();
    private final java.util.List<Task> spinning = new java.util.ArrayList<>();
    private final int symSpin;
    private Task owner;
    private Task victim;
    private boolean victimDelayed;

    StarvingLock(int symSpin) {
      this.symSpin = symSpin;
    }

    @Override
    public String name() {
      return "starving";
    }

    @Override
    public String algorithm() {
      return "starving";
    }

    @Override
    public Op lock(LockMode mode) {
      return new Op() {
        @Override
        public int execute(Task t, int phase) {
          if (victim == null) {
            victim = t;
          }
          if (t == victim && !victimDelayed) {
            victimDelayed = true;
            t.startWork(500_000_000L, symSpin, false);
            return AGAIN;
          }
          spinning.remove(t);
          if (owner == null) {
            owner = t;
            return NEXT;
          }
          spinning.add(t);
          t.startSpin(symSpin, s -> owner == null, 0, null);
          return AGAIN;
        }
      };
    }

    @Override
    public Op unlock(LockMode mode) {
      return Ops.run(t -> {
        owner = null;
        spinning.forEach(s -> s.poke(0));
      });
    }

    @Override
    public boolean supports(LockMode mode) {
      return mode == LockMode.PLAIN;
    }

    @Override
    public Task owner() {
      return owner;
    }

    @Override
    public LockStats stats() {
      return stats;
    }
  }

  @Test
  void liveness_starvingLock_failsNamingTheWorkerAndTheTime() {
    LockTestbed bed = LockTestbed.builder().seed(5).build();
    StarvingLock lock = new StarvingLock(bed.machine().symbol("starving_spin", org.lockvisor.machine.Machine.DOMAIN_KERNEL));
    LockWorkload w = LockWorkload.on(bed, lock).mode(LockMode.PLAIN).tasks(8).iterations(20)
        .livenessBoundNs(LockContractTest.LIVENESS_BOUND_NS).start().run(2_000_000_000L);

    assertThat(w.allFinished()).as("the victim acquires in the end").isTrue();
    assertThat(w.violations()).hasSize(1);
    assertThat(w.violated()).containsExactly(LockInvariant.LIVENESS);
    assertThat(w.violations().get(0)).contains("liveness: ").contains(lock.victim.toString())
        .contains("over the bound of 100000000 ns");
  }

  @Test
  void workload_lockWithoutExclusion_reportsViolations() {
    LockTestbed bed = LockTestbed.builder().seed(5).build();
    LockWorkload w = LockWorkload.on(bed, new NoExclusionLock()).mode(LockMode.PLAIN).tasks(8).iterations(20)
        .start().run(1_000_000_000L);
    assertThat(w.allFinished()).isTrue();
    assertThat(w.violations()).isNotEmpty().allMatch(v -> v.contains(": mutual-exclusion: ") || v.contains(": owner: "));
    assertThat(w.violated()).contains(LockInvariant.MUTUAL_EXCLUSION);
  }
}
