package org.lockvisor.experiment.check;

import java.util.SplittableRandom;
import org.lockvisor.core.random.RandomStreams;
import org.lockvisor.machine.Machine;

/**
 * The perturbations of schedule exploration, both a pure function of one perturbation seed: a
 * tie-break salt that permutes the order of simultaneous events, and a bounded random jitter on
 * the duration of every piece of work (each duration is scaled by a factor drawn uniformly from
 * [1 - j, 1 + j]). Costs stay the arch profile's on average; only their interleaving moves.
 */
public final class Perturbation implements Machine.WorkJitter {
  private final SplittableRandom random;
  private final double bound;

  private Perturbation(long seed, int jitterPercent) {
    this.random = new RandomStreams(seed).get("explore.jitter");
    this.bound = jitterPercent / 100.0;
  }

  /** Installs the tie-break salt and (if {@code jitterPercent > 0}) the work jitter on {@code machine}. */
  public static void install(Machine machine, long seed, int jitterPercent) {
    long salt = new RandomStreams(seed).seedFor("explore.tie-break");
    machine.sim().setTieBreakSalt(salt == 0 ? 1 : salt);
    if (jitterPercent > 0) {
      machine.setWorkJitter(new Perturbation(seed, jitterPercent));
    }
  }

  /** The perturbation seed of run {@code i} of an exploration with seed {@code seed} (never 0). */
  public static long seedOfRun(long seed, int i) {
    long p = new RandomStreams(seed).seedFor("explore.run." + i) & Long.MAX_VALUE;
    return p == 0 ? 1 : p;
  }

  @Override
  public long adjust(long ns) {
    if (ns <= 0) {
      return ns;
    }
    double factor = 1 + bound * (2 * random.nextDouble() - 1);
    return Math.max(1, Math.round(ns * factor));
  }
}
