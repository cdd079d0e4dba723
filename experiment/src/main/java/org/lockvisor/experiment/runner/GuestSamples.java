package org.lockvisor.experiment.runner;

import com.google.common.collect.ImmutableSortedMap;
import java.util.Collection;
import java.util.Map;

/**
 * What the runner's periodic sampler ({@code sample-interval}, {@link GuestSampler}) saw of one
 * guest over the measurement window: at every period, the vCPUs that were runnable but had no
 * physical CPU (preempted: on PowerVM a VP waiting for a processor of the pool), and each guest
 * CPU whose vCPU was running and whose current task was spinning, by the spin symbol (what perf
 * would sample there: {@code osq_lock}, {@code mutex_spin_on_owner}, a spinlock's slow path),
 * with the length of that CPU's guest runqueue — the tasks waiting behind the spinner.
 *
 * @param vm the guest's name
 * @param intervalNs the sampling period
 * @param periods samples taken
 * @param preemptedVcpuSum preempted vCPUs summed over the samples (divide by {@code periods} for the mean)
 * @param spinners by spin symbol, in symbol order
 */
public record GuestSamples(String vm, long intervalNs, long periods, long preemptedVcpuSum,
    Map<String, Spinners> spinners) {

  public GuestSamples {
    spinners = ImmutableSortedMap.copyOf(spinners);
  }

  /**
   * The samples of guest CPUs spinning in one symbol.
   *
   * @param samples CPUs sampled spinning there
   * @param runnableSum their runqueue lengths summed
   * @param runnableMax the longest of those runqueues
   */
  public record Spinners(long samples, long runnableSum, long runnableMax) {
    static final Spinners NONE = new Spinners(0, 0, 0);
  }

  /** The samples of {@code symbol} (none when nothing spun there). */
  public Spinners spinners(String symbol) {
    return spinners.getOrDefault(symbol, Spinners.NONE);
  }

  /** The samples of the given symbols together (sums; the largest runqueue). */
  public Spinners spinners(Collection<String> symbols) {
    long samples = 0;
    long sum = 0;
    long max = 0;
    for (String s : symbols) {
      Spinners p = spinners(s);
      samples += p.samples();
      sum += p.runnableSum();
      max = Math.max(max, p.runnableMax());
    }
    return new Spinners(samples, sum, max);
  }
}
