package org.lockvisor.benchmarks;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.SplittableRandom;

/**
 * Shared set-up of the classic hold model (Vaucher and Duval, 1975): N events pending; each
 * processed event schedules one new event at now + a random increment. The increments are drawn
 * once into a table so that random number generation does not dominate the measured cost; the
 * table is long enough (64 Ki entries) that its period does not shape the heap.
 */
final class HoldModel {

  /** Mean time increment in ns: 1 us, a typical gap between events of one simulated thread. */
  static final long MEAN_INCREMENT_NS = 1_000;

  static final int TABLE_SIZE = 1 << 16;
  static final int TABLE_MASK = TABLE_SIZE - 1;

  /** Events processed per benchmark invocation (the unit of @OperationsPerInvocation). */
  static final int EVENTS_PER_INVOCATION = 10_000;

  private HoldModel() {}

  /** Increments for {@code distribution} ({@code exponential} or {@code uniform} on [0, 2 * mean]). */
  static long[] increments(String distribution, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    long[] table = new long[TABLE_SIZE];
    for (int i = 0; i < TABLE_SIZE; i++) {
      table[i] = switch (distribution) {
        case "exponential" -> (long) (-Math.log1p(-random.nextDouble()) * MEAN_INCREMENT_NS);
        case "uniform" -> random.nextLong(2 * MEAN_INCREMENT_NS + 1);
        default -> throw new IllegalArgumentException(
            "unknown distribution [" + distribution + "]; known: [exponential, uniform]");
      };
    }
    return table;
  }

  static void checkPending(int pending) {
    checkArgument(pending > 0, "pending must be positive: %s", pending);
  }
}
