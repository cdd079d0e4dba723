package org.lockvisor.locking.testkit;

/**
 * The invariants the lock kit checks after every simulation event of a {@link LockWorkload}, each
 * with the name its violations carry (as Kafka's {@code RaftEventSimulationTest} names its
 * invariants): a failing kit says which one broke, for which task, and when.
 */
public enum LockInvariant {
  /** At most one writer inside, and no writer beside readers. */
  MUTUAL_EXCLUSION("mutual-exclusion"),
  /** {@link org.lockvisor.locking.spi.KernelLock#owner()} names the writer inside. */
  OWNER("owner"),
  /** {@link org.lockvisor.locking.spi.KernelLock#readers()} counts at least the readers inside. */
  READERS("readers"),
  /**
   * Every worker with acquisitions left acquires within the workload's liveness bound, from its
   * start or its previous acquisition; a violation names the worker, how long it waited and since
   * when.
   */
  LIVENESS("liveness");

  private final String label;

  LockInvariant(String label) {
    this.label = label;
  }

  /** The name violations carry. */
  public String label() {
    return label;
  }
}
