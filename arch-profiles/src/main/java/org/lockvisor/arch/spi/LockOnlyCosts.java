package org.lockvisor.arch.spi;

/** {@link ArchCosts#ofLocks}: the lock algorithms' keys given directly; every other key refused. */
record LockOnlyCosts(long atomicNs, long lineTransferNs, long pauseNs, long spinThresholdLoops, long pvKickNs,
    long pvWaitNs, long confer) implements ArchCosts {

  @Override
  public String arch() {
    return "lock-costs";
  }

  @Override
  public long ns(CostKey key) {
    return switch (key) {
      case ATOMIC_RMW -> atomicNs;
      case CACHELINE_XFER_SOCKET -> lineTransferNs;
      case PAUSE -> pauseNs;
      case PV_KICK -> pvKickNs;
      case EXIT_HLT -> pvWaitNs;
      case H_CONFER -> confer;
      default -> throw new IllegalStateException("these costs hold only what lock algorithms read; no [" + key + "]");
    };
  }

  @Override
  public double value(CostKey key) {
    return key == CostKey.SPIN_THRESHOLD_LOOPS ? spinThresholdLoops : ns(key);
  }

  @Override
  public CostTable table() {
    throw new IllegalStateException("these costs hold only what lock algorithms read; they have no cost table");
  }
}
