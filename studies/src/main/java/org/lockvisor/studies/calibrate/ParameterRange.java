package org.lockvisor.studies.calibrate;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.studies.envelope.Dimension;
import org.lockvisor.studies.envelope.RangeSpec;

/**
 * One parameter to fit and the range to fit it in, as written on the command line and parsed by
 * the envelope's parser ({@link RangeSpec}, one syntax for {@code --param} and {@code --params}):
 * {@code NAME=LOW..HIGH[:log]} (e.g. {@code cost.x86_64-kvm.EXIT_USERSPACE=5000..15000} or {@code
 * vms[0].vcpus=1..8}), or a bare {@code NAME} whose range is the one declared for it (a
 * reproduction's parameter, a cost estimate's range). A list is comma-separated or repeated. The
 * name is a {@code --set} key: an experiment path, {@code cost.<profile>.<KEY>}, or a
 * reproduction's parameter. A set of values ({@code NAME=A|B|C}) is an envelope's, not a fit's.
 *
 * <p>Both ends written as whole numbers make a whole-number parameter (its values are rounded); a
 * range marked {@code :log}, or positive with its ends a decade or more apart, is moved in log
 * space.
 *
 * @param name the {@code --set} key
 * @param range the range given, absent for a bare name
 */
public record ParameterRange(String name, Optional<Range> range) {

  /** A closed interval; {@code whole} when both ends were written as whole numbers. */
  public record Range(double low, double high, boolean whole, boolean log) {
    public Range {
      checkArgument(Double.isFinite(low) && Double.isFinite(high) && low < high,
          "need low < high, both finite: [%s..%s]", low, high);
      checkArgument(!log || low > 0, "a log range needs low > 0: [%s]", low);
    }

    /** A range moved in log space when positive and a decade or more wide (as an envelope samples). */
    public Range(double low, double high, boolean whole) {
      this(low, high, whole, low > 0 && high / low >= 10);
    }

    /** Whether {@code other} lies inside this range (ends included). */
    public boolean contains(Range other) {
      return other.low >= low && other.high <= high;
    }

    @Override
    public String toString() {
      return format(low) + ".." + format(high);
    }
  }

  public static final String EXAMPLE = "cost.x86_64-kvm.EXIT_USERSPACE=5000..15000,vms[0].vcpus=1..8";

  public ParameterRange {
    checkArgument(name != null && !name.isBlank(), "a parameter needs a name");
    checkArgument(range != null, "range must not be null; use Optional.empty()");
  }

  /**
   * The parameters of {@code text} (option {@code option}, for messages): comma-separated {@code
   * NAME=LOW..HIGH[:log]}, or bare names where {@code bareAllowed}.
   *
   * @throws UserInputException naming the bad entry and the expected form
   */
  public static ImmutableList<ParameterRange> parseList(String option, String text, boolean bareAllowed) {
    if (text == null || text.isBlank()) {
      throw new UserInputException(option + ": no parameter given; expected NAME=LOW..HIGH[,...], e.g. ["
          + EXAMPLE + "]");
    }
    return parseAll(option, List.of(text.split(",", -1)), bareAllowed);
  }

  /** {@link #parseList} of entries already split (a repeated or comma-split option); none gives none. */
  public static ImmutableList<ParameterRange> parseAll(String option, List<String> entries, boolean bareAllowed) {
    List<ParameterRange> out = new ArrayList<>();
    Set<String> names = new LinkedHashSet<>();
    for (String entry : entries) {
      ParameterRange p = parse(option, entry.strip(), bareAllowed);
      if (!names.add(p.name())) {
        throw new UserInputException(option + ": parameter [" + p.name() + "] given twice");
      }
      out.add(p);
    }
    return ImmutableList.copyOf(out);
  }

  /** One entry of {@link #parseList}. */
  public static ParameterRange parse(String option, String entry, boolean bareAllowed) {
    String form = bareAllowed ? "NAME or NAME=LOW..HIGH[:log]" : "NAME=LOW..HIGH[:log]";
    if (entry.isEmpty()) {
      throw new UserInputException(option + ": empty entry; expected " + form + ", e.g. [" + EXAMPLE + "]");
    }
    RangeSpec spec;
    try {
      spec = RangeSpec.parse(entry);
    } catch (UserInputException e) {
      throw new UserInputException(option + ": " + e.getMessage().replaceFirst("^--param ", ""));
    }
    if (!spec.hasRange()) {
      if (!bareAllowed) {
        throw new UserInputException(option + ": [" + entry + "] has no range; expected " + form + ", e.g. ["
            + EXAMPLE + "]");
      }
      return new ParameterRange(spec.name(), Optional.empty());
    }
    if (!spec.numeric()) {
      throw new UserInputException(option + ": [" + entry + "] is a set of values; a calibration fits numbers in a"
          + " range, " + form);
    }
    Range auto = new Range(spec.low(), spec.high(), spec.wholeEnds());
    return new ParameterRange(spec.name(), Optional.of(new Range(spec.low(), spec.high(), spec.wholeEnds(),
        spec.log() || auto.log())));
  }

  /** The optimiser's dimension over {@code r}, with the range's {@code source}. */
  public static Dimension.Continuous dimension(String name, Range r, String source) {
    return new Dimension.Continuous(name, r.low(), r.high(), r.log(), source);
  }

  /** {@code value} as a {@code --set} text: rounded for a whole parameter. */
  public static String text(double value, boolean whole) {
    return whole ? Long.toString(Math.round(value)) : format(value);
  }

  /** A number without a needless {@code .0} or exponent. */
  public static String format(double v) {
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return Long.toString((long) v);
    }
    return java.math.BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
  }
}
