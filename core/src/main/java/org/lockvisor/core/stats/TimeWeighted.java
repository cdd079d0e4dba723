package org.lockvisor.core.stats;

/** Time-weighted average of a piecewise-constant value (queue length, runnable tasks, ...). */
public final class TimeWeighted {
  private long lastTime;
  private double value;
  private double area;
  private long startTime;
  private double max;

  public TimeWeighted(long startTime, double initial) {
    this.startTime = startTime;
    this.lastTime = startTime;
    this.value = initial;
    this.max = initial;
  }

  public void set(long now, double newValue) {
    area += value * (now - lastTime);
    lastTime = now;
    value = newValue;
    max = Math.max(max, newValue);
  }

  public void add(long now, double delta) {
    set(now, value + delta);
  }

  public double value() {
    return value;
  }

  public double max() {
    return max;
  }

  /** Average over [start, now]. */
  public double average(long now) {
    long span = now - startTime;
    if (span <= 0) {
      return value;
    }
    return (area + value * (now - lastTime)) / span;
  }

  /** Forgets the past (end of warm-up). */
  public void reset(long now) {
    startTime = now;
    lastTime = now;
    area = 0;
    max = value;
  }
}
