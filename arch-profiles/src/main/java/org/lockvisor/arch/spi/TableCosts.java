package org.lockvisor.arch.spi;

/**
 * {@link ArchCosts} over one {@link CostTable}. The keys lock algorithms read on their hot paths
 * are read once here, so a lock's {@code costs().atomicNs()} is a field load.
 */
final class TableCosts implements ArchCosts {
  private final String arch;
  private final CostTable table;
  private final long atomicNs;
  private final long lineTransferNs;
  private final long pauseNs;
  private final long spinThresholdLoops;
  private final long pvKickNs;
  private final long pvWaitNs;
  private final long confer;

  TableCosts(String arch, CostTable table) {
    this.arch = arch;
    this.table = table;
    this.atomicNs = table.ns(CostKey.ATOMIC_RMW);
    this.lineTransferNs = table.ns(CostKey.CACHELINE_XFER_SOCKET);
    this.pauseNs = table.ns(CostKey.PAUSE);
    this.spinThresholdLoops = Math.max(1, (long) table.value(CostKey.SPIN_THRESHOLD_LOOPS));
    this.pvKickNs = table.ns(CostKey.PV_KICK);
    this.pvWaitNs = table.ns(CostKey.EXIT_HLT);
    this.confer = table.ns(CostKey.H_CONFER);
  }

  @Override
  public String arch() {
    return arch;
  }

  @Override
  public CostTable table() {
    return table;
  }

  @Override
  public long ns(CostKey key) {
    return table.ns(key);
  }

  @Override
  public double value(CostKey key) {
    return table.value(key);
  }

  @Override
  public long atomicNs() {
    return atomicNs;
  }

  @Override
  public long lineTransferNs() {
    return lineTransferNs;
  }

  @Override
  public long pauseNs() {
    return pauseNs;
  }

  @Override
  public long spinThresholdLoops() {
    return spinThresholdLoops;
  }

  @Override
  public long pvKickNs() {
    return pvKickNs;
  }

  @Override
  public long pvWaitNs() {
    return pvWaitNs;
  }

  @Override
  public long confer() {
    return confer;
  }

  @Override
  public String toString() {
    return "ArchCosts[" + arch + "]";
  }
}
