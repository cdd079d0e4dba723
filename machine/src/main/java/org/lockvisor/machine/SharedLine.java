package org.lockvisor.machine;

import java.util.BitSet;

/**
 * One shared cache line and where it is: the physical CPU that last wrote it (holding it
 * exclusively) and the CPUs that have read it since (holding shared copies). Prices each access
 * through {@link CacheLines}: a write (RMW or store) pulls the line from the farthest other holder
 * and invalidates the copies; a read pulls it from the writer unless this CPU already has a copy.
 * A MESI simplification: no eviction, no snoop-filter or directory effects.
 *
 * <p>Counts accesses and transfers so that reports can show where atomics paid for line movement.
 * Allocation-free after the first reads from each CPU.
 */
public final class SharedLine {
  private final CacheLines pricing;
  private final String name;
  private int owner = -1;
  private final BitSet sharers = new BitSet();
  private boolean lastMoved;
  private long accesses;
  private long transfers;
  private long transferNs;

  /** A line priced by {@code pricing}; lines are made by the machine's {@link CacheLines}, not by plugins. */
  public SharedLine(CacheLines pricing, String name) {
    this.pricing = pricing;
    this.name = name;
  }

  public String name() {
    return name;
  }

  /** A locked read-modify-write by {@code t} (xchg, cmpxchg, lock bts/btr, xadd): ns to charge. */
  public long rmw(Task t) {
    return rmw(CacheLines.physicalCpu(t));
  }

  /** A locked read-modify-write by physical CPU {@code cpu}. */
  public long rmw(int cpu) {
    return pricing.atomicNs() + write(cpu);
  }

  /** A plain store by {@code t}: the line is taken exclusive (RFO). */
  public long store(Task t) {
    return store(CacheLines.physicalCpu(t));
  }

  /** A plain store by physical CPU {@code cpu}. */
  public long store(int cpu) {
    return pricing.accessNs() + write(cpu);
  }

  /** A plain load by {@code t}: a shared copy is fetched unless this CPU has one. */
  public long load(Task t) {
    return load(CacheLines.physicalCpu(t));
  }

  /** A plain load by physical CPU {@code cpu}. */
  public long load(int cpu) {
    accesses++;
    long x = 0;
    if (owner >= 0 && owner != cpu && !sharers.get(cpu)) {
      x = pricing.xferNs(owner, cpu);
      sharers.set(cpu);
    }
    return pricing.accessNs() + moved(x);
  }

  private long write(int cpu) {
    accesses++;
    long x = 0;
    if (owner >= 0 && owner != cpu) {
      x = pricing.xferNs(owner, cpu);
    }
    for (int s = sharers.nextSetBit(0); s >= 0; s = sharers.nextSetBit(s + 1)) {
      if (s != cpu) {
        x = Math.max(x, pricing.xferNs(s, cpu));
      }
    }
    sharers.clear();
    owner = cpu;
    return moved(x);
  }

  private long moved(long x) {
    lastMoved = x > 0;
    if (x > 0) {
      transfers++;
      transferNs += x;
    }
    return x;
  }

  /** The physical CPU that last wrote the line, or -1 if none has. */
  public int owner() {
    return owner;
  }

  /** Whether the last access had to move the line from another CPU. */
  public boolean lastMoved() {
    return lastMoved;
  }

  public long accesses() {
    return accesses;
  }

  /** Accesses that moved the line from another CPU. */
  public long transfers() {
    return transfers;
  }

  /** Total transfer time charged (ns), excluding the operations themselves. */
  public long transferNs() {
    return transferNs;
  }

  /** Clears the counters (not where the line is). */
  public void resetStats() {
    accesses = 0;
    transfers = 0;
    transferNs = 0;
  }

  @Override
  public String toString() {
    return "line:" + name + "@" + owner;
  }
}
