package org.lockvisor.arch.spi;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The priced constants of one arch profile: exactly one {@link Cost} per {@link CostKey}.
 *
 * <p>The simulator reads costs on every event, so {@link #ns(CostKey)} and
 * {@link #value(CostKey)} are array loads indexed by the key's ordinal: no map lookup, no boxing.
 * Cycle-priced keys are converted to nanoseconds once, at construction, with
 * {@link CostKey#CPU_CYCLE}.
 */
public final class CostTable {

  private static final CostKey[] KEYS = CostKey.values();

  private final ImmutableList<Cost> costs; // indexed by ordinal
  private final double[] values;
  private final long[] nanos;

  private CostTable(Cost[] byOrdinal) {
    this.costs = ImmutableList.copyOf(byOrdinal);
    this.values = new double[KEYS.length];
    this.nanos = new long[KEYS.length];
    double cycleNs = byOrdinal[CostKey.CPU_CYCLE.ordinal()].value();
    checkArgument(cycleNs > 0, "CPU_CYCLE must be positive: [%s]", cycleNs);
    for (CostKey key : KEYS) {
      double v = byOrdinal[key.ordinal()].value();
      values[key.ordinal()] = v;
      nanos[key.ordinal()] = switch (key.unit()) {
        case NANOSECONDS -> Math.round(v);
        case CYCLES -> Math.round(v * cycleNs);
        // Not durations: ns() refuses them; keep a sentinel that would be conspicuous if leaked.
        case NS_PER_BYTE, COUNT -> -1;
      };
    }
  }

  /**
   * Builds a table from one cost per key.
   *
   * @throws IllegalArgumentException naming every missing key and every duplicate
   */
  public static CostTable of(Iterable<Cost> costs) {
    Cost[] byOrdinal = new Cost[KEYS.length];
    List<String> duplicates = new ArrayList<>();
    for (Cost c : costs) {
      checkNotNull(c, "null cost");
      if (byOrdinal[c.key().ordinal()] != null) {
        duplicates.add(c.key().name());
      }
      byOrdinal[c.key().ordinal()] = c;
    }
    List<String> missing = new ArrayList<>();
    for (CostKey key : KEYS) {
      if (byOrdinal[key.ordinal()] == null) {
        missing.add(key.name());
      }
    }
    checkArgument(missing.isEmpty() && duplicates.isEmpty(),
        "cost table must hold exactly one cost per key; missing: %s; duplicated: %s", missing, duplicates);
    return new CostTable(byOrdinal);
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * The key as nanoseconds, rounded to the nearest nanosecond; cycle-priced keys are converted with
   * {@link CostKey#CPU_CYCLE}. Sub-nanosecond constants should be read with {@link #value}.
   *
   * @throws IllegalArgumentException if the key is a count or a per-byte rate
   */
  public long ns(CostKey key) {
    long ns = nanos[key.ordinal()];
    if (ns < 0) {
      throw new IllegalArgumentException(key + " is in " + key.unit().symbol() + ", not a duration; use value()");
    }
    return ns;
  }

  /** The key's value in its own unit ({@link CostKey#unit()}). */
  public double value(CostKey key) {
    return values[key.ordinal()];
  }

  /** The key's value, unit and source. */
  public Cost cost(CostKey key) {
    return costs.get(key.ordinal());
  }

  /** All costs in {@link CostKey} declaration order. */
  public ImmutableList<Cost> costs() {
    return costs;
  }

  /** A copy of this table with some costs replaced. */
  public CostTable with(Iterable<Cost> overrides) {
    Builder b = toBuilder();
    for (Cost c : overrides) {
      b.put(c);
    }
    return b.build();
  }

  /** A builder pre-filled with this table's costs, for deriving a profile in code. */
  public Builder toBuilder() {
    Builder b = new Builder();
    for (Cost c : costs) {
      b.put(c);
    }
    return b;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CostTable other && costs.equals(other.costs);
  }

  @Override
  public int hashCode() {
    return costs.hashCode();
  }

  @Override
  public String toString() {
    return "CostTable" + Arrays.toString(values);
  }

  /** Collects costs; a later put for the same key replaces the earlier one. */
  public static final class Builder {
    private final Map<CostKey, Cost> costs = new EnumMap<>(CostKey.class);

    private Builder() {}

    public Builder put(Cost cost) {
      costs.put(checkNotNull(cost.key()), cost);
      return this;
    }

    public Builder put(CostKey key, double value, Cost.Confidence confidence, String reference) {
      return put(Cost.of(key, value, confidence, reference));
    }

    public Builder notApplicable(CostKey key, String reason) {
      return put(Cost.notApplicable(key, reason));
    }

    /** @throws IllegalArgumentException listing every key that has no cost */
    public CostTable build() {
      return CostTable.of(costs.values()); // EnumMap iterates in key order
    }
  }
}
