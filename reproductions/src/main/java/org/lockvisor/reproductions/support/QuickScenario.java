package org.lockvisor.reproductions.support;

/**
 * One reproduction's quick scenario, prepared (profile, costs and configuration chosen) so that
 * {@link #run()} is one whole machine run from scratch: what the benchmarks time. Obtain one from
 * {@code org.lockvisor.reproductions.QuickScenarios}.
 */
public interface QuickScenario {

  /** What one run processed: the figures a benchmark scores and a checksum it keeps alive. */
  record Outcome(long events, long simulatedNs, long fingerprint) {}

  /** Builds the machine and runs it once, as the reproduction's quick plan does. */
  Outcome run();
}
