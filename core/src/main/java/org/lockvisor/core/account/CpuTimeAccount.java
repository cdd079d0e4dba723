package org.lockvisor.core.account;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * Exact CPU-time accounting per (cpu, thread, symbol stack), in nanoseconds.
 *
 * <p>Keys pack the three ids into one {@code long} (cpu: 20 bits, thread: 22 bits, stack: 22
 * bits), so charging allocates nothing. Totals per cpu and per thread are kept beside the
 * detailed map so the common queries are O(1).
 */
public final class CpuTimeAccount {
  static final int CPU_BITS = 20;
  static final int THREAD_BITS = 22;
  static final int STACK_BITS = 22;

  private final LongLongMap detail = new LongLongMap(1024);
  private long[] perCpu = new long[64];
  private long[] perThread = new long[256];
  private long total;
  /** The entries' keys in the order they were first charged (entry i is the i-th new key). */
  private long[] added = new long[1024];
  /**
   * Per thread, the indices into {@link #added} of its entries, in order: built from {@code added}
   * when {@link #forEachOfThread} is first asked after new entries (up to {@code threadIndexed}),
   * never on the charging path.
   */
  private int[][] threadEntries = new int[0][];
  private int[] threadEntryCount = new int[0];
  private int threadIndexed;

  public void charge(int cpu, int thread, int stack, long ns) {
    if (ns <= 0) {
      checkArgument(ns == 0, "negative charge %s ns", ns);
      return;
    }
    long key = key(cpu, thread, stack);
    int entriesBefore = detail.size();
    detail.add(key, ns);
    if (detail.size() != entriesBefore) {
      if (entriesBefore == added.length) {
        added = java.util.Arrays.copyOf(added, added.length * 2);
      }
      added[entriesBefore] = key;
    }
    if (cpu >= perCpu.length) {
      perCpu = java.util.Arrays.copyOf(perCpu, Math.max(cpu + 1, perCpu.length * 2));
    }
    if (thread >= perThread.length) {
      perThread = java.util.Arrays.copyOf(perThread, Math.max(thread + 1, perThread.length * 2));
    }
    perCpu[cpu] += ns;
    perThread[thread] += ns;
    total += ns;
  }

  private void indexByThread(int thread, int entry) {
    if (thread >= threadEntries.length) {
      int n = Math.max(thread + 1, Math.max(64, threadEntries.length * 2));
      threadEntries = java.util.Arrays.copyOf(threadEntries, n);
      threadEntryCount = java.util.Arrays.copyOf(threadEntryCount, n);
    }
    int[] list = threadEntries[thread];
    int count = threadEntryCount[thread];
    if (list == null) {
      list = new int[8];
    } else if (count == list.length) {
      list = java.util.Arrays.copyOf(list, 2 * count);
    }
    list[count] = entry;
    threadEntries[thread] = list;
    threadEntryCount[thread] = count + 1;
  }

  public long cpuTotal(int cpu) {
    return cpu < perCpu.length ? perCpu[cpu] : 0;
  }

  public long threadTotal(int thread) {
    return thread < perThread.length ? perThread[thread] : 0;
  }

  public long total() {
    return total;
  }

  public long get(int cpu, int thread, int stack) {
    return detail.get(key(cpu, thread, stack), 0);
  }

  /**
   * Number of (cpu, thread, stack) entries charged so far; it only grows, so a reader that
   * classified every entry can skip a new {@link #forEach} while it is unchanged.
   */
  public int entries() {
    return detail.size();
  }

  /** Visits every (cpu, thread, stack, ns) entry. */
  public void forEach(EntryVisitor visitor) {
    detail.forEach((k, v) -> visitor.visit(cpuOf(k), threadOf(k), stackOf(k), v));
  }

  /**
   * Visits the entries from the {@code from}-th charged (0-based, in the order they first got
   * time) to the last, each with its current time: a reader that has seen the first {@code n}
   * entries ({@link #entries} then) visits only the new ones with {@code from = n}.
   */
  public void forEachAddedSince(int from, EntryVisitor visitor) {
    checkArgument(from >= 0, "from must not be negative: %s", from);
    for (int i = from, n = detail.size(); i < n; i++) {
      long k = added[i];
      visitor.visit(cpuOf(k), threadOf(k), stackOf(k), detail.get(k, 0));
    }
  }

  /**
   * Visits the entries of {@code thread} only, in the order they first got time, each with its
   * current time: a per-thread query (e.g. a task's user and system time) without a walk over
   * every thread's entries.
   */
  public void forEachOfThread(int thread, EntryVisitor visitor) {
    checkArgument(thread >= 0, "thread id must not be negative: %s", thread);
    for (int n = detail.size(); threadIndexed < n; threadIndexed++) {
      indexByThread(threadOf(added[threadIndexed]), threadIndexed);
    }
    if (thread >= threadEntries.length || threadEntries[thread] == null) {
      return;
    }
    int[] list = threadEntries[thread];
    for (int i = 0, n = threadEntryCount[thread]; i < n; i++) {
      long k = added[list[i]];
      visitor.visit(cpuOf(k), thread, stackOf(k), detail.get(k, 0));
    }
  }

  /** Entry visitor. */
  @FunctionalInterface
  public interface EntryVisitor {
    void visit(int cpu, int thread, int stack, long ns);
  }

  static long key(int cpu, int thread, int stack) {
    // One test on the hot path (a negative id has its high bits set); the messages only on failure.
    if (((cpu >>> CPU_BITS) | (thread >>> THREAD_BITS) | (stack >>> STACK_BITS)) != 0) {
      checkArgument(cpu >= 0 && cpu < (1 << CPU_BITS), "cpu id out of range: %s", cpu);
      checkArgument(thread >= 0 && thread < (1 << THREAD_BITS), "thread id out of range: %s", thread);
      checkArgument(stack >= 0 && stack < (1 << STACK_BITS), "stack id out of range: %s", stack);
    }
    return ((long) cpu << (THREAD_BITS + STACK_BITS)) | ((long) thread << STACK_BITS) | stack;
  }

  static int cpuOf(long key) {
    return (int) (key >>> (THREAD_BITS + STACK_BITS));
  }

  static int threadOf(long key) {
    return (int) ((key >>> STACK_BITS) & ((1 << THREAD_BITS) - 1));
  }

  static int stackOf(long key) {
    return (int) (key & ((1 << STACK_BITS) - 1));
  }
}
