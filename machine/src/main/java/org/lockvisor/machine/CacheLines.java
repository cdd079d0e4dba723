package org.lockvisor.machine;

import static com.google.common.base.Preconditions.checkArgument;

import org.lockvisor.arch.spi.ArchCosts;
import org.lockvisor.arch.spi.Topology;

/**
 * The price of touching a shared cache line, by where it last was: one helper for every plugin
 * (locks, devices, workloads) so that an atomic on a line costs the same wherever it is modelled.
 *
 * <p>An access is priced as the operation itself ({@link #atomicNs} for a locked read-modify-write,
 * {@link #accessNs} for a plain load or store) plus a cache-line transfer when the line is not in
 * the accessing CPU's cache: the transfer is priced by the host topology distance between the CPU
 * that holds the line and the one that wants it ({@link Topology#distance}: SMT sibling, another
 * core of the socket, another socket; KERNEL-MODEL 1.2). A line last written by the accessing CPU
 * costs no transfer. For a guest task the line moves between the <em>physical</em> CPUs its vCPU
 * threads run on ({@link #physicalCpu}), which is what the cache sees.
 *
 * <p>The machine gets its pricing from the arch profile ({@code Platforms.cacheLines}); there is
 * no default that silently prices nothing. Tests of exact timing may choose {@link #free}.
 */
public final class CacheLines {
  private final Topology topology;
  private final long atomicNs;
  private final long accessNs;
  private final long[] xferByDistance;
  /**
   * The distance class from CPU i to CPU j at {@code i * cpus + j}, for hosts of up to {@link
   * #TABLE_CPUS} CPUs (the divisions of {@link Topology#distance} saved on every priced access);
   * null on larger hosts.
   */
  private final byte[] distanceTable;
  private final int cpus;
  private static final int TABLE_CPUS = 128;

  private CacheLines(Topology topology, long atomicNs, long accessNs, long smtNs, long socketNs, long remoteNs) {
    checkArgument(topology != null, "cache-line pricing needs the host topology");
    checkArgument(atomicNs >= 0 && accessNs >= 0 && smtNs >= 0 && socketNs >= 0 && remoteNs >= 0,
        "cache-line costs must not be negative");
    this.topology = topology;
    this.atomicNs = atomicNs;
    this.accessNs = accessNs;
    this.xferByDistance = new long[] {0, smtNs, socketNs, remoteNs};
    this.cpus = topology.cpus();
    if (cpus <= TABLE_CPUS) {
      distanceTable = new byte[cpus * cpus];
      for (int i = 0; i < cpus; i++) {
        for (int j = 0; j < cpus; j++) {
          distanceTable[i * cpus + j] = (byte) topology.distance(i, j);
        }
      }
    } else {
      distanceTable = null;
    }
  }

  /**
   * Pricing on {@code topology}: an atomic RMW and a plain access on a local line, and the line
   * transfer between SMT siblings, cores of one socket and sockets.
   */
  public static CacheLines of(Topology topology, long atomicNs, long accessNs, long smtNs, long socketNs,
      long remoteNs) {
    return new CacheLines(topology, atomicNs, accessNs, smtNs, socketNs, remoteNs);
  }

  /**
   * Pricing with {@code costs} on a one-socket host of {@code hostCpus} CPUs (every transfer the
   * costs' {@link ArchCosts#lineTransferNs}): for hand-built machines and tests; experiments price
   * lines by the arch profile's topology ({@code Platforms.configureCacheLines}).
   */
  public static CacheLines flat(int hostCpus, ArchCosts costs) {
    return of(new Topology(1, hostCpus, 1), costs.atomicNs(), 0, costs.lineTransferNs(), costs.lineTransferNs(),
        costs.lineTransferNs());
  }

  /** Pricing where every access is free, on a flat host of {@code cpus} CPUs: an explicit choice for tests. */
  public static CacheLines free(int cpus) {
    return new CacheLines(new Topology(1, cpus, 1), 0, 0, 0, 0, 0);
  }

  public Topology topology() {
    return topology;
  }

  /** A locked read-modify-write on a line already in the CPU's L1. */
  public long atomicNs() {
    return atomicNs;
  }

  /** A plain load or store on a line already in the CPU's L1. */
  public long accessNs() {
    return accessNs;
  }

  /** Moving a line from physical CPU {@code from} to physical CPU {@code to}; zero for the same CPU. */
  public long xferNs(int from, int to) {
    byte[] table = distanceTable;
    if (table != null && from >= 0 && to >= 0 && from < cpus && to < cpus) {
      return xferByDistance[table[from * cpus + to]];
    }
    return xferByDistance[topology.distance(from, to)]; // a larger host, or an id it rejects
  }

  /** A new shared line (e.g. a lock word, a list head, a flags word) that no CPU holds yet. */
  public SharedLine line(String name) {
    return new SharedLine(this, name);
  }

  /**
   * The physical CPU {@code t} runs (or last ran) on: its CPU for a host task, the host CPU of its
   * vCPU thread for a guest task.
   */
  public static int physicalCpu(Task t) {
    Cpu c = t.cpu();
    checkArgument(c != null, "%s has never run: it has no CPU to price a cache line on", t);
    if (c.isGuest()) {
      Task vcpu = c.vcpuTask();
      checkArgument(vcpu.cpu() != null, "the vCPU thread of %s has never run", c);
      return vcpu.cpu().index();
    }
    return c.index();
  }

  @Override
  public String toString() {
    return "CacheLines[" + topology + ", atomic=" + atomicNs + ", access=" + accessNs + ", smt/socket/remote="
        + xferByDistance[1] + "/" + xferByDistance[2] + "/" + xferByDistance[3] + "]";
  }
}
