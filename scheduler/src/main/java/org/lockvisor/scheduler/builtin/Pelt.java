package org.lockvisor.scheduler.builtin;

/**
 * One {@code struct sched_avg}'s load part, after Linux 4.8 kernel/sched/fair.c {@code
 * __update_load_avg}, {@code decay_load} and {@code __compute_runnable_contrib}: time in units of
 * 1024 ns ("µs"), periods of 1024 of them, each earlier period's contribution decayed by y with
 * y^32 = 1/2 (the kernel's tables {@code runnable_avg_yN_inv} / {@code runnable_avg_yN_sum});
 * {@code load_sum += weight × runnable time}, {@code load_avg = load_sum / LOAD_AVG_MAX}
 * recomputed only when a period boundary was crossed. No frequency or capacity scaling (the
 * model's CPUs run at one speed), and no {@code util_avg}. Allocates nothing.
 */
final class Pelt {
  static final int LOAD_AVG_PERIOD = 32;
  static final long LOAD_AVG_MAX = 47742;
  static final int LOAD_AVG_MAX_N = 345;
  /** runnable_avg_yN_inv: y^n × 2^32, n < 32. */
  private static final long[] YN_INV = {
    0xffffffffL, 0xfa83b2daL, 0xf5257d14L, 0xefe4b99aL, 0xeac0c6e6L, 0xe5b906e6L,
    0xe0ccdeebL, 0xdbfbb796L, 0xd744fcc9L, 0xd2a81d91L, 0xce248c14L, 0xc9b9bd85L,
    0xc5672a10L, 0xc12c4cc9L, 0xbd08a39eL, 0xb8fbaf46L, 0xb504f333L, 0xb123f581L,
    0xad583ee9L, 0xa9a15ab4L, 0xa5fed6a9L, 0xa2704302L, 0x9ef5325fL, 0x9b8d39b9L,
    0x9837f050L, 0x94f4efa8L, 0x91c3d373L, 0x8ea4398aL, 0x8b95c1e3L, 0x88980e80L,
    0x85aac367L, 0x82cd8698L,
  };
  /** runnable_avg_yN_sum: floor(1024 × (y + y^2 + ... + y^n)), n ≤ 32. */
  private static final int[] YN_SUM = {
    0, 1002, 1982, 2941, 3880, 4798, 5697, 6576, 7437, 8279, 9103,
    9909, 10698, 11470, 12226, 12966, 13690, 14398, 15091, 15769, 16433, 17082,
    17718, 18340, 18949, 19545, 20128, 20698, 21256, 21802, 22336, 22859, 23371,
  };

  long sum;
  long avg;
  /** last_update_time in ns; MIN_VALUE: not attached yet. */
  long last = Long.MIN_VALUE;
  int periodContrib;

  /** decay_load: {@code val × y^n}. */
  static long decayLoad(long val, long n) {
    if (n == 0) {
      return val;
    }
    if (n > LOAD_AVG_PERIOD * 63) {
      return 0;
    }
    int local = (int) n;
    if (local >= LOAD_AVG_PERIOD) {
      val >>>= local / LOAD_AVG_PERIOD;
      local %= LOAD_AVG_PERIOD;
    }
    // mul_u64_u32_shr(val, inv, 32) without overflow
    long inv = YN_INV[local];
    return (val >>> 32) * inv + (((val & 0xffffffffL) * inv) >>> 32);
  }

  /** __compute_runnable_contrib: {@code 1024 × (y + ... + y^n)}. */
  static long runnableContrib(long n) {
    if (n <= LOAD_AVG_PERIOD) {
      return YN_SUM[(int) n];
    }
    if (n >= LOAD_AVG_MAX_N) {
      return LOAD_AVG_MAX;
    }
    long contrib = 0;
    do {
      contrib /= 2;
      contrib += YN_SUM[LOAD_AVG_PERIOD];
      n -= LOAD_AVG_PERIOD;
    } while (n > LOAD_AVG_PERIOD);
    contrib = decayLoad(contrib, n);
    return contrib + YN_SUM[(int) n];
  }

  /**
   * __update_load_avg(now, sa, weight) (4.8): {@code weight} runnable since the last update.
   * Returns whether a period boundary was crossed (the kernel's {@code decayed}).
   */
  boolean update(long now, long weight) {
    long delta = now - last;
    if (delta < 0) {
      last = now;
      return false;
    }
    delta >>= 10;
    if (delta == 0) {
      return false;
    }
    last = now; // 4.8 drops the sub-1024 ns remainder
    boolean decayed = false;
    long deltaW = periodContrib;
    if (delta + deltaW >= 1024) {
      decayed = true;
      deltaW = 1024 - deltaW;
      sum += weight * deltaW;
      delta -= deltaW;
      long periods = delta / 1024;
      delta %= 1024;
      sum = decayLoad(sum, periods + 1);
      sum += weight * runnableContrib(periods);
      periodContrib = 0;
    }
    sum += weight * delta;
    periodContrib += (int) delta;
    if (decayed) {
      avg = sum / LOAD_AVG_MAX;
    }
    return decayed;
  }
}
