package org.lockvisor.experiment.calibrate;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.experiment.envelope.Dimension;

/**
 * One parameter to move and the range to move it in, as written on the command line: {@code
 * NAME=LOW..HIGH} (e.g. {@code cost.x86_64-kvm.EXIT_USERSPACE=5000..15000} or {@code
 * vms[0].vcpus=1..8}), or a bare {@code NAME} whose range is the one declared for it (a
 * reproduction's parameter). A list is comma-separated. The name is a {@code --set} key: an
 * experiment path, {@code cost.<profile>.<KEY>}, or a reproduction's parameter.
 *
 * <p>Both ends written as whole numbers make a whole-number parameter (its values are rounded); a
 * positive range whose ends are a decade or more apart is moved in log space.
 *
 * @param name the {@code --set} key
 * @param range the range given, absent for a bare name
 */
public record ParameterRange(String name, Optional<Range> range) {

  /** A closed interval; {@code whole} when both ends were written as whole numbers. */
  public record Range(double low, double high, boolean whole) {
    public Range {
      checkArgument(Double.isFinite(low) && Double.isFinite(high) && low < high,
          "need low < high, both finite: [%s..%s]", low, high);
    }

    /** Moved in log space: positive, and a decade or more from end to end (as an envelope samples). */
    public boolean log() {
      return low > 0 && high / low >= 10;
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

  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_.\\[\\]-]*");
  private static final Pattern NUMBER = Pattern.compile("-?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+)?");
  private static final Pattern WHOLE = Pattern.compile("-?[0-9]+");
  private static final Pattern ENTRY = Pattern.compile("(.+?)=([^=]*?)\\.\\.([^=]*)");

  public ParameterRange {
    checkArgument(name != null && !name.isBlank(), "a parameter needs a name");
    checkArgument(range != null, "range must not be null; use Optional.empty()");
  }

  /**
   * The parameters of {@code text} (option {@code option}, for messages): comma-separated {@code
   * NAME=LOW..HIGH}, or bare names where {@code bareAllowed}.
   *
   * @throws UserInputException naming the bad entry and the expected form
   */
  public static ImmutableList<ParameterRange> parseList(String option, String text, boolean bareAllowed) {
    if (text == null || text.isBlank()) {
      throw new UserInputException(option + ": no parameter given; expected NAME=LOW..HIGH[,...], e.g. ["
          + EXAMPLE + "]");
    }
    List<ParameterRange> out = new ArrayList<>();
    Set<String> names = new LinkedHashSet<>();
    for (String entry : text.split(",", -1)) {
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
    String form = bareAllowed ? "NAME or NAME=LOW..HIGH" : "NAME=LOW..HIGH";
    if (entry.isEmpty()) {
      throw new UserInputException(option + ": empty entry; expected " + form + ", e.g. [" + EXAMPLE + "]");
    }
    if (entry.indexOf('=') < 0) {
      if (!NAME.matcher(entry).matches()) {
        throw new UserInputException(option + ": [" + entry + "] is not " + form + ", e.g. [" + EXAMPLE + "]");
      }
      if (!bareAllowed) {
        throw new UserInputException(option + ": [" + entry + "] has no range; expected " + form + ", e.g. ["
            + EXAMPLE + "]");
      }
      return new ParameterRange(entry, Optional.empty());
    }
    Matcher m = ENTRY.matcher(entry);
    if (!m.matches() || !NAME.matcher(m.group(1).strip()).matches()) {
      throw new UserInputException(option + ": [" + entry + "] is not " + form + ", e.g. [" + EXAMPLE + "]");
    }
    String name = m.group(1).strip();
    String lo = m.group(2).strip();
    String hi = m.group(3).strip();
    if (!NUMBER.matcher(lo).matches() || !NUMBER.matcher(hi).matches()) {
      throw new UserInputException(option + ": range of [" + name + "] must be two plain numbers LOW..HIGH: ["
          + lo + ".." + hi + "]");
    }
    double low = Double.parseDouble(lo);
    double high = Double.parseDouble(hi);
    if (!Double.isFinite(low) || !Double.isFinite(high) || !(low < high)) {
      throw new UserInputException(option + ": range of [" + name + "] needs LOW < HIGH: [" + lo + ".." + hi + "]");
    }
    boolean whole = WHOLE.matcher(lo).matches() && WHOLE.matcher(hi).matches();
    return new ParameterRange(name, Optional.of(new Range(low, high, whole)));
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
