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

  @Test
  void workload_lockWithoutExclusion_reportsViolations() {
    LockTestbed bed = LockTestbed.builder().seed(5).build();
    LockWorkload w = LockWorkload.on(bed, new NoExclusionLock()).mode(LockMode.PLAIN).tasks(8).iterations(20)
        .start().run(1_000_000_000L);
    assertThat(w.allFinished()).isTrue();
    assertThat(w.violations()).isNotEmpty();
  }
}
