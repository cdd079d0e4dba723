package org.lockvisor.studies.envelope;

import com.google.common.collect.ImmutableList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.lockvisor.experiment.UserInputException;

/**
 * One {@code --param} of an envelope: a parameter name and, optionally, the range to sample it over.
 * Syntax (docs/envelopes.md):
 *
 * <ul>
 *   <li>{@code NAME}: the parameter's declared range (a reproduction's parameter, or a cost
 *       estimate's range);
 *   <li>{@code NAME=LOW..HIGH}: uniform in [LOW, HIGH] (whole numbers when both ends are whole and
 *       the parameter is whole); {@code NAME=LOW..HIGH:log}: log-uniform (LOW > 0);
 *   <li>{@code NAME=A|B|C}: one of the listed values, each equally likely.
 * </ul>
 *
 * @param name the parameter, e.g. {@code vcpus}, {@code cost.x86_64-kvm.EXIT_USERSPACE} or an
 *     experiment path such as {@code vms[0].vcpus}
 * @param low the lower end of a numeric range, or NaN
 * @param high the upper end of a numeric range, or NaN
 * @param log whether a numeric range is sampled log-uniformly
 * @param choices the values of a set, empty otherwise
 */
public record RangeSpec(String spec, String name, double low, double high, boolean log, ImmutableList<String> choices) {

  private static final String NUM = "[-+]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][-+]?[0-9]+)?";
  private static final Pattern NUMERIC = Pattern.compile("(" + NUM + ")\\.\\.(" + NUM + ")(:log)?");
  private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_.\\-\\[\\]]*");
  private static final Pattern WHOLE = Pattern.compile("[-+]?[0-9]+");

  /**
   * Parses {@code spec}.
   *
   * @throws UserInputException naming the spec and the syntax
   */
  public static RangeSpec parse(String spec) {
    int eq = spec.indexOf('=');
    String name = eq < 0 ? spec : spec.substring(0, eq);
    if (!NAME.matcher(name).matches()) {
      throw bad(spec, "[" + name + "] is not a parameter name");
    }
    if (eq < 0) {
      return new RangeSpec(spec, name, Double.NaN, Double.NaN, false, ImmutableList.of());
    }
    String range = spec.substring(eq + 1);
    Matcher m = NUMERIC.matcher(range);
    if (m.matches()) {
      double low = Double.parseDouble(m.group(1));
      double high = Double.parseDouble(m.group(2));
      boolean log = m.group(3) != null;
      if (!(low < high)) {
        throw bad(spec, "need LOW < HIGH");
      }
      if (log && low <= 0) {
        throw bad(spec, "a log-uniform range needs LOW > 0");
      }
      return new RangeSpec(spec, name, low, high, log, ImmutableList.of());
    }
    if (range.contains("..") || range.isEmpty()) {
      throw bad(spec, "expected LOW..HIGH, LOW..HIGH:log or A|B|C");
    }
    List<String> values = Arrays.asList(range.split("\\|", -1));
    if (values.stream().anyMatch(String::isBlank) || values.stream().distinct().count() != values.size()) {
      throw bad(spec, "a set needs distinct non-empty values, A|B|C");
    }
    return new RangeSpec(spec, name, Double.NaN, Double.NaN, false, ImmutableList.copyOf(values));
  }

  /** Whether a range was given (otherwise the declared one applies). */
  public boolean hasRange() {
    return numeric() || !choices.isEmpty();
  }

  public boolean numeric() {
    return !Double.isNaN(low);
  }

  /** Whether both ends are whole numbers as written. */
  public boolean wholeEnds() {
    String range = spec.substring(spec.indexOf('=') + 1).replace(":log", "");
    String[] ends = range.split("\\.\\.", -1);
    return ends.length == 2 && WHOLE.matcher(ends[0]).matches() && WHOLE.matcher(ends[1]).matches();
  }

  /**
   * The dimension of this spec alone (no declared range to check against), with {@code source}; a
   * spec without a range is refused.
   */
  public Dimension dimension(String source) {
    if (!hasRange()) {
      throw bad(spec, "[" + name + "] has no declared range here; give one, e.g. " + name + "=2..16");
    }
    if (!choices.isEmpty()) {
      return new Dimension.Choice(name, choices, source);
    }
    return wholeEnds() ? new Dimension.Whole(name, (long) low, (long) high, log, source)
        : new Dimension.Continuous(name, low, high, log, source);
  }

  /**
   * This spec's dimension inside {@code declared} (the declared range itself without a range given).
   *
   * @throws UserInputException when the range lies outside the declared one, or does not fit its kind
   */
  public Dimension within(Dimension declared, String what) {
    if (!hasRange()) {
      return declared;
    }
    String src = "--param " + spec + ", within " + declared.source();
    if (declared instanceof Dimension.Choice c) {
      if (choices.isEmpty()) {
        throw bad(spec, what + " takes one of " + c.values() + ", e.g. " + name + "=" + String.join("|", c.values()));
      }
      Optional<String> outside = choices.stream().filter(v -> !c.values().contains(v)).findFirst();
      if (outside.isPresent()) {
        throw bad(spec, "[" + outside.get() + "] lies outside the declared values " + c.values() + " of " + what);
      }
      return new Dimension.Choice(name, choices, src);
    }
    if (!numeric()) {
      throw bad(spec, what + " is numeric; give LOW..HIGH");
    }
    if (declared instanceof Dimension.Whole w) {
      if (!wholeEnds()) {
        throw bad(spec, what + " takes whole numbers");
      }
      if (low < w.low() || high > w.high()) {
        throw bad(spec, "the range lies outside the declared range [" + w.low() + ", " + w.high() + "] of " + what
            + " (" + w.source() + ")");
      }
      return new Dimension.Whole(name, (long) low, (long) high, log, src);
    }
    Dimension.Continuous c = (Dimension.Continuous) declared;
    if (low < c.low() || high > c.high()) {
      throw bad(spec, "the range lies outside the declared range [" + fmt(c.low()) + ", " + fmt(c.high()) + "] of "
          + what + " (" + c.source() + ")");
    }
    return new Dimension.Continuous(name, low, high, log, src);
  }

  private static String fmt(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
  }

  static UserInputException bad(String spec, String why) {
    return new UserInputException("--param [" + spec + "]: " + why);
  }
}
