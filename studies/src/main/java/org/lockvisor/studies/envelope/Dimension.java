package org.lockvisor.studies.envelope;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import java.util.List;

/**
 * One sampled parameter of an envelope: its name (the {@code --set} key it is applied as), and how
 * a point {@code u} of the unit interval maps onto its plausible range, with the source of that
 * range.
 */
public sealed interface Dimension {

  String name();

  /** Where the range comes from (a file and function, a paper, a datasheet). */
  String source();

  /** The value at {@code u} in [0, 1), as the {@code --set} text. */
  String valueAt(double u);

  /** The numeric value at {@code u}, for correlations (a choice's index for a discrete one). */
  double numberAt(double u);

  /**
   * A real number in [low, high]; {@code log} samples uniformly in log space (for a range that
   * spans decades, such as a cost between 1 µs and 100 µs).
   */
  record Continuous(String name, double low, double high, boolean log, String source) implements Dimension {
    public Continuous {
      checkArgument(name != null && !name.isBlank(), "a dimension needs a name");
      checkArgument(Double.isFinite(low) && Double.isFinite(high) && low < high,
          "dimension [%s]: need low < high, both finite: [%s, %s]", name, low, high);
      checkArgument(!log || low > 0, "dimension [%s]: a log range needs low > 0: [%s]", name, low);
      checkArgument(source != null && !source.isBlank(), "dimension [%s] needs the source of its range", name);
    }

    @Override
    public double numberAt(double u) {
      return log ? Math.exp(Math.log(low) + u * (Math.log(high) - Math.log(low))) : low + u * (high - low);
    }

    @Override
    public String valueAt(double u) {
      return Double.toString(numberAt(u));
    }
  }

  /** A whole number in [low, high], each value equally likely (log-uniform if {@code log}). */
  record Whole(String name, long low, long high, boolean log, String source) implements Dimension {
    public Whole {
      checkArgument(name != null && !name.isBlank(), "a dimension needs a name");
      checkArgument(low <= high, "dimension [%s]: need low <= high: [%s, %s]", name, low, high);
      checkArgument(!log || low > 0, "dimension [%s]: a log range needs low > 0: [%s]", name, low);
      checkArgument(source != null && !source.isBlank(), "dimension [%s] needs the source of its range", name);
    }

    @Override
    public double numberAt(double u) {
      if (log) {
        double x = Math.exp(Math.log(low) + u * (Math.log(high + 1.0) - Math.log(low)));
        return Math.min(high, Math.max(low, Math.floor(x)));
      }
      return Math.min(high, low + (long) Math.floor(u * (high - low + 1)));
    }

    @Override
    public String valueAt(double u) {
      return Long.toString((long) numberAt(u));
    }
  }

  /** One of a list of values (an era, a device model, a transport), each equally likely. */
  record Choice(String name, List<String> values, String source) implements Dimension {
    public Choice {
      checkArgument(name != null && !name.isBlank(), "a dimension needs a name");
      checkArgument(values != null && !values.isEmpty(), "dimension [%s] needs at least one value", name);
      values = ImmutableList.copyOf(values);
      checkArgument(source != null && !source.isBlank(), "dimension [%s] needs the source of its range", name);
    }

    @Override
    public double numberAt(double u) {
      return Math.min(values.size() - 1, (int) Math.floor(u * values.size()));
    }

    @Override
    public String valueAt(double u) {
      return values.get((int) numberAt(u));
    }
  }
}
