package org.lockvisor.core.random;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * Named random streams derived from one root seed.
 *
 * <p>Each component asks for its own stream by a stable name ({@code "vm0/vcpu3/tick"}); the
 * stream's seed is a hash of the name mixed with the root seed, so adding a component does not
 * perturb the streams of the others, and variants of one experiment that use the same names see
 * the same random numbers (common random numbers, so A/B differences are paired).
 * {@link SplittableRandom}'s algorithm is specified, so streams are identical on every JVM.
 */
public final class RandomStreams {
  private final long rootSeed;

  public RandomStreams(long rootSeed) {
    this.rootSeed = rootSeed;
  }

  public long rootSeed() {
    return rootSeed;
  }

  /** A new stream for {@code name}; the same name always yields the same sequence. */
  public SplittableRandom get(String name) {
    return new SplittableRandom(seedFor(name));
  }

  /** The derived seed of a named stream. */
  public long seedFor(String name) {
    long h = 0xCBF29CE484222325L; // FNV-1a 64
    for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
      h ^= (b & 0xff);
      h *= 0x100000001B3L;
    }
    return mix(h ^ mix(rootSeed));
  }

  /** Exponentially distributed value with the given mean (rounded to a long, at least 0). */
  public static long exponential(SplittableRandom random, double mean) {
    return (long) (-mean * Math.log(1.0 - random.nextDouble()));
  }

  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
