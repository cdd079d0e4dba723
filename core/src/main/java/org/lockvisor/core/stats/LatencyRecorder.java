package org.lockvisor.core.stats;

import org.HdrHistogram.Histogram;

/**
 * Records latencies in nanoseconds into an HdrHistogram (3 significant digits, auto-resizing),
 * for percentiles without keeping samples.
 */
public final class LatencyRecorder {
  private final Histogram histogram = new Histogram(3);
  private long count;
  private long sum;

  public void record(long ns) {
    histogram.recordValue(Math.max(0, ns));
    count++;
    sum += ns;
  }

  public long count() {
    return count;
  }

  public double mean() {
    return count == 0 ? 0 : (double) sum / count;
  }

  public long percentile(double p) {
    return count == 0 ? 0 : histogram.getValueAtPercentile(p);
  }

  public long max() {
    return count == 0 ? 0 : histogram.getMaxValue();
  }

  public long min() {
    return count == 0 ? 0 : histogram.getMinValue();
  }

  public void reset() {
    histogram.reset();
    count = 0;
    sum = 0;
  }

  /** A copy of the underlying histogram, for exporters. */
  public Histogram snapshot() {
    return histogram.copy();
  }
}
