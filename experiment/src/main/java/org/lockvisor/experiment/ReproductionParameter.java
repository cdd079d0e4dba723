package org.lockvisor.experiment;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * A what-if parameter a reproduction declares ({@link Reproduction#parameters()}), set with
 * {@code lockvisor reproduce <name> --set <name>=<value>}: its name, one line saying what it
 * changes, the allowed values in words, and a strict parser. A run with a parameter set is a
 * what-if and is labelled as one; the reproduction's own verdict always uses the defaults.
 *
 * @param <T> the parsed value's type
 */
public final class ReproductionParameter<T> {

  private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9-]*");
  private static final Pattern WHOLE = Pattern.compile("-?[0-9]+");

  private final String name;
  private final String description;
  private final String allowed;
  private final Function<String, T> parser;

  private ReproductionParameter(String name, String description, String allowed, Function<String, T> parser) {
    checkArgument(name != null && NAME.matcher(name).matches(),
        "parameter name must be lower-case letters, digits and '-', starting with a letter: [%s]", name);
    checkArgument(!name.equals("cost"), "parameter name [cost] is reserved for cost overrides");
    checkArgument(description != null && !description.isBlank() && description.indexOf('\n') < 0,
        "parameter [%s] needs a one-line description", name);
    checkArgument(allowed != null && !allowed.isBlank(), "parameter [%s] needs its allowed values", name);
    checkArgument(parser != null, "parameter [%s] needs a parser", name);
    this.name = name;
    this.description = description;
    this.allowed = allowed;
    this.parser = parser;
  }

  /**
   * A parameter whose {@code parser} returns the value, or throws (any runtime exception) or
   * returns {@code null} for a value outside {@code allowed}.
   */
  public static <T> ReproductionParameter<T> of(String name, String description, String allowed,
      Function<String, T> parser) {
    return new ReproductionParameter<>(name, description, allowed, parser);
  }

  /** A whole number in {@code [min, max]}. */
  public static ReproductionParameter<Integer> integer(String name, String description, int min, int max) {
    checkArgument(min <= max, "parameter [%s]: min %s > max %s", name, min, max);
    return of(name, description, "a whole number in [" + min + ", " + max + "]", v -> {
      long x = parseLong(v);
      return x >= min && x <= max ? (int) x : null;
    });
  }

  /** One of {@code values}, written as a whole number. */
  public static ReproductionParameter<Integer> oneOf(String name, String description, int... values) {
    checkArgument(values.length > 0, "parameter [%s] needs at least one value", name);
    int[] sorted = values.clone();
    Arrays.sort(sorted);
    return of(name, description, "one of " + Arrays.toString(sorted), v -> {
      long x = parseLong(v);
      return Arrays.stream(sorted).anyMatch(a -> a == x) ? (int) x : null;
    });
  }

  /** {@code true} or {@code false}, exactly. */
  public static ReproductionParameter<Boolean> bool(String name, String description) {
    return of(name, description, "true or false", v -> v.equals("true") ? Boolean.TRUE
        : v.equals("false") ? Boolean.FALSE : null);
  }

  /** The run's seed: any whole number that fits in 64 bits. */
  public static ReproductionParameter<Long> seed(String description) {
    return of("seed", description, "a whole number (64-bit)", ReproductionParameter::parseLong);
  }

  /** The seeds of the replications: a comma-separated list of distinct 64-bit whole numbers. */
  public static ReproductionParameter<List<Long>> seeds(String description) {
    return of("seeds", description, "a comma-separated list of distinct whole numbers (64-bit), e.g. 1,2,3", v -> {
      Set<Long> seeds = new LinkedHashSet<>();
      for (String part : v.split(",", -1)) {
        if (!seeds.add(parseLong(part))) {
          return null;
        }
      }
      return ImmutableList.copyOf(new ArrayList<>(seeds));
    });
  }

  private static long parseLong(String v) {
    if (!WHOLE.matcher(v).matches()) {
      throw new NumberFormatException(v);
    }
    return Long.parseLong(v); // overflow throws too
  }

  public String name() {
    return name;
  }

  /** One line: what the parameter changes. */
  public String description() {
    return description;
  }

  /** The allowed values in words, e.g. {@code one of [1, 2, 4, 8]}. */
  public String allowed() {
    return allowed;
  }

  /**
   * The value of {@code text}.
   *
   * @throws UserInputException naming the parameter, the bad value and the allowed values
   */
  public T parse(String text) {
    T value;
    try {
      value = text == null ? null : parser.apply(text);
    } catch (RuntimeException e) {
      value = null;
    }
    if (value == null) {
      throw new UserInputException(
          "bad value [" + text + "] for parameter [" + name + "]; allowed: " + allowed);
    }
    return value;
  }

  @Override
  public String toString() {
    return name + " (" + allowed + "): " + description;
  }
}
