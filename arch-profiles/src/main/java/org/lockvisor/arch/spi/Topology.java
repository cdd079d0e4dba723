package org.lockvisor.arch.spi;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * Physical CPU layout of a host: sockets of cores of SMT threads, and the cache distance between
 * two CPUs that prices a cache-line transfer (KERNEL-MODEL 1.2).
 *
 * <p>CPU numbering is dense and hierarchical: {@code cpu = (socket * coresPerSocket + core) *
 * threadsPerCore + thread}, so SMT siblings are adjacent. (Linux on x86 usually numbers siblings
 * {@code cores} apart; the numbering only names CPUs, the distances are the same.)
 */
public record Topology(int sockets, int coresPerSocket, int threadsPerCore) {

  /** Distance class: the same CPU (the line is already in its L1). */
  public static final int SAME_CPU = 0;
  /** Distance class: SMT siblings of one core (shared L1/L2). */
  public static final int SMT = 1;
  /** Distance class: different cores of one socket (shared LLC). */
  public static final int SOCKET = 2;
  /** Distance class: different sockets (interconnect hop). */
  public static final int REMOTE = 3;

  /** Upper bound that keeps {@link #cpus()} far from overflow and catches typos (e.g. 10000 cores). */
  public static final int MAX_CPUS = 1 << 16;

  public Topology {
    checkArgument(sockets > 0, "sockets must be positive: [%s]", sockets);
    checkArgument(coresPerSocket > 0, "coresPerSocket must be positive: [%s]", coresPerSocket);
    checkArgument(threadsPerCore > 0, "threadsPerCore must be positive: [%s]", threadsPerCore);
    long cpus = (long) sockets * coresPerSocket * threadsPerCore;
    checkArgument(cpus <= MAX_CPUS, "topology has %s CPUs (%s x %s x %s); at most %s are supported",
        cpus, sockets, coresPerSocket, threadsPerCore, MAX_CPUS);
  }

  /** Number of logical CPUs. */
  public int cpus() {
    return sockets * coresPerSocket * threadsPerCore;
  }

  /** Socket of a CPU, {@code 0..sockets-1}. */
  public int socketOf(int cpu) {
    checkCpu(cpu);
    return cpu / (coresPerSocket * threadsPerCore);
  }

  /** Core of a CPU within its socket, {@code 0..coresPerSocket-1}. */
  public int coreOf(int cpu) {
    checkCpu(cpu);
    return (cpu / threadsPerCore) % coresPerSocket;
  }

  /** Machine-wide core index of a CPU, {@code 0..sockets*coresPerSocket-1}. */
  public int physicalCoreOf(int cpu) {
    checkCpu(cpu);
    return cpu / threadsPerCore;
  }

  /** SMT thread of a CPU within its core, {@code 0..threadsPerCore-1}. */
  public int threadOf(int cpu) {
    checkCpu(cpu);
    return cpu % threadsPerCore;
  }

  /** The CPU at (socket, core, thread). */
  public int cpu(int socket, int core, int thread) {
    checkArgument(socket >= 0 && socket < sockets, "socket out of range [0, %s): [%s]", sockets, socket);
    checkArgument(core >= 0 && core < coresPerSocket, "core out of range [0, %s): [%s]", coresPerSocket, core);
    checkArgument(thread >= 0 && thread < threadsPerCore, "thread out of range [0, %s): [%s]", threadsPerCore, thread);
    return (socket * coresPerSocket + core) * threadsPerCore + thread;
  }

  /**
   * Distance class between two CPUs: {@link #SAME_CPU}, {@link #SMT}, {@link #SOCKET} or
   * {@link #REMOTE}; a larger class is farther.
   */
  public int distance(int cpuA, int cpuB) {
    checkCpu(cpuA);
    checkCpu(cpuB);
    if (cpuA == cpuB) {
      return SAME_CPU;
    }
    if (cpuA / threadsPerCore == cpuB / threadsPerCore) {
      return SMT;
    }
    int perSocket = coresPerSocket * threadsPerCore;
    return cpuA / perSocket == cpuB / perSocket ? SOCKET : REMOTE;
  }

  /**
   * Cost of moving a cache line owned by {@code fromCpu} to {@code toCpu}; zero when they are the
   * same CPU (the access itself is priced separately, e.g. {@link CostKey#ATOMIC_RMW}).
   */
  public long xferNs(CostTable costs, int fromCpu, int toCpu) {
    return switch (distance(fromCpu, toCpu)) {
      case SAME_CPU -> 0;
      case SMT -> costs.ns(CostKey.CACHELINE_XFER_SMT);
      case SOCKET -> costs.ns(CostKey.CACHELINE_XFER_SOCKET);
      default -> costs.ns(CostKey.CACHELINE_XFER_REMOTE);
    };
  }

  /** Name of a distance class, for messages and reports. */
  public static String distanceName(int distance) {
    return switch (distance) {
      case SAME_CPU -> "SAME_CPU";
      case SMT -> "SMT";
      case SOCKET -> "SOCKET";
      case REMOTE -> "REMOTE";
      default -> throw new IllegalArgumentException("unknown distance class: [" + distance + "]");
    };
  }

  private void checkCpu(int cpu) {
    if (cpu < 0 || cpu >= cpus()) {
      throw new IndexOutOfBoundsException("cpu out of range [0, " + cpus() + "): [" + cpu + "]");
    }
  }

  @Override
  public String toString() {
    return sockets + "x" + coresPerSocket + "x" + threadsPerCore;
  }
}
