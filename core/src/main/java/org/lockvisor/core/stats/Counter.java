package org.lockvisor.core.stats;

/** A named monotonically increasing count. */
public final class Counter {
  private final String name;
  private long value;

  public Counter(String name) {
    this.name = name;
  }

  public String name() {
    return name;
  }

  public void increment() {
    value++;
  }

  public void add(long delta) {
    value += delta;
  }

  public long value() {
    return value;
  }

  public void reset() {
    value = 0;
  }
}
