package org.lockvisor.reproductions.api;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.studies.envelope.Dimension;

/**
 * A what-if parameter a reproduction declares ({@link Reproduction#parameters()}), set with
 * {@code lockvisor reproduce <name> --set <name>=<value>}: its name, one line saying what it
 * changes, the allowed values in words, and a strict parser. A run with a parameter set is a
 * what-if and is labelled as one; the reproduction's own verdict always uses the defaults.
 *
 * <p>A parameter of the seed's setup also declares its <em>domain</em> ({@link #declare}): the
 * default the reproduction uses, the plausible range (a numeric interval, log-uniform where it
 * spans decades, or a set of values) and the one-line source of that range. An envelope ({@code
 * reproduce --envelope}) samples the declared domains; a calibration fits within them. A parameter
 * that is not part of the setup (a seed) declares none.
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
  private final String defaultValue;
  private final Dimension domain;
  private final ImmutableList<Target> targets;

  /**
   * One place a path-bound parameter is written: the experiment {@code path} of the shipped file
   * {@code file} (base name; {@code null}: every shipped file of the reproduction), with the
   * parameter's value as the path takes it ({@code value}, a pure function of the value given).
   */
  public record Target(String file, String path, Function<String, String> value) {
    public Target {
      checkArgument(file == null || !file.isBlank(), "a target's file must be null (every file) or a name");
      checkArgument(path != null && !path.isBlank(), "a target needs a path");
      checkArgument(value != null, "a target needs a value mapping");
    }

    /** Whether this target is written into shipped file {@code name}. */
    public boolean appliesTo(String name) {
      return file == null || file.equals(name);
    }
  }

  private ReproductionParameter(String name, String description, String allowed, Function<String, T> parser) {
    this(name, description, allowed, parser, null, null, ImmutableList.of());
  }

  private ReproductionParameter(String name, String description, String allowed, Function<String, T> parser,
      String defaultValue, Dimension domain, ImmutableList<Target> targets) {
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
    this.defaultValue = defaultValue;
    this.domain = domain;
    checkArgument(targets != null, "parameter [%s]: null targets", name);
    this.targets = targets;
    if (domain != null) {
      checkArgument(domain.name().equals(name), "parameter [%s]: its domain is named [%s]", name, domain.name());
      checkArgument(defaultValue != null, "parameter [%s] declares a domain without a default", name);
      parse(defaultValue); // the default is an allowed value
      checkArgument(inDomain(defaultValue), "parameter [%s]: default [%s] lies outside its domain %s", name,
          defaultValue, domainText(domain));
      for (String bound : bounds(domain)) {
        parse(bound); // every value the domain can give is allowed
      }
    }
  }

  /**
   * This parameter with its domain declared: {@code defaultValue} (the value the reproduction uses
   * when the parameter is not set) and the plausible range {@code domain}, whose {@link
   * Dimension#source()} says where the range comes from. Every value of the domain must be an
   * allowed value.
   */
  public ReproductionParameter<T> declare(String defaultValue, Dimension domain) {
    checkArgument(domain != null, "parameter [%s]: null domain", name);
    return new ReproductionParameter<>(name, description, allowed, parser, defaultValue, domain, targets);
  }

  /**
   * This parameter bound to the experiment path {@code path} of the reproduction's shipped
   * experiment files ({@link Reproduction#experimentFiles()}), in the {@code run --set} path
   * language ({@code ExperimentYaml.set}), e.g. {@code vms[0].devices[0].options.mtu}: {@code
   * reproduce NAME --set mtu=1500} is applied as {@code --set vms[0].devices[0].options.mtu=1500}
   * on the shipped experiment. The value is written as given. Adds a target to those bound so far.
   */
  public ReproductionParameter<T> at(String path) {
    return at(path, Function.identity());
  }

  /**
   * {@link #at(String)} with the value as the path takes it, e.g. {@code v -> v + "us"} for a
   * duration option given in microseconds.
   */
  public ReproductionParameter<T> at(String path, Function<String, String> value) {
    return bind(null, path, value);
  }

  /**
   * This parameter also bound to {@code path} of the one shipped file {@code file} (base name,
   * e.g. {@code virtio-blk-notify-x86}), the value written as given: a setting of one file's
   * machine only.
   */
  public ReproductionParameter<T> at(String file, String path) {
    return at(file, path, Function.identity());
  }

  /**
   * {@link #at(String, String)} with the value as the path takes it. Several targets make a
   * derived binding: one value written as several paths (e.g. a group count and the run length it
   * needs), each a pure function of the value.
   */
  public ReproductionParameter<T> at(String file, String path, Function<String, String> value) {
    checkArgument(file != null && !file.isBlank(), "parameter [%s]: empty file name", name);
    return bind(file, path, value);
  }

  private ReproductionParameter<T> bind(String file, String path, Function<String, String> value) {
    checkArgument(path != null && !path.isBlank(), "parameter [%s]: empty path", name);
    checkArgument(value != null, "parameter [%s]: null value mapping", name);
    for (Target t : targets) {
      checkArgument(!t.path().equals(path) || (t.file() != null && file != null && !t.file().equals(file)),
          "parameter [%s]: path [%s] bound twice", name, path);
    }
    return new ReproductionParameter<>(name, description, allowed, parser, defaultValue, domain,
        ImmutableList.<Target>builder().addAll(targets).add(new Target(file, path, value)).build());
  }

  /**
   * Where this parameter is written in the shipped files, in order; empty when the reproduction
   * reads it or only its derived bindings write it ({@link Reproduction#derivedBindings()}).
   */
  public ImmutableList<Target> targets() {
    return targets;
  }

  /**
   * The experiment path this parameter is applied as when it is bound to exactly one path of
   * every shipped file ({@link #at(String)}); empty otherwise (see {@link #targets()}).
   */
  public Optional<String> path() {
    return targets.size() == 1 && targets.get(0).file() == null ? Optional.of(targets.get(0).path())
        : Optional.empty();
  }

  /** The targets in words: {@code path} or {@code file.yaml path}, comma-separated; empty when unbound. */
  public String targetText() {
    List<String> out = new ArrayList<>();
    for (Target t : targets) {
      out.add(t.file() == null ? t.path() : t.file() + ".yaml " + t.path());
    }
    return String.join(", ", out);
  }

  /**
   * The value {@code text} (an allowed value) as written at {@link #path()}.
   *
   * @throws IllegalStateException if the parameter is not bound to one path of every file
   */
  public String pathValue(String text) {
    if (path().isEmpty()) {
      throw new IllegalStateException("parameter [" + name + "] is not bound to one experiment path");
    }
    return targets.get(0).value().apply(text);
  }

  /** {@link #declare} with a whole-number range {@code [low, high]} (log-uniform if {@code log}). */
  public ReproductionParameter<T> declareRange(String defaultValue, long low, long high, boolean log, String source) {
    return declare(defaultValue, new Dimension.Whole(name, low, high, log, source));
  }

  /** {@link #declare} with a set of values, each equally plausible. */
  public ReproductionParameter<T> declareChoice(String defaultValue, List<String> values, String source) {
    return declare(defaultValue, new Dimension.Choice(name, values, source));
  }

  /** The plausible range of a setup parameter, with its source; empty for one that is not part of the setup. */
  public Optional<Dimension> domain() {
    return Optional.ofNullable(domain);
  }

  /** The value the reproduction uses when the parameter is not set, as text; empty without a domain. */
  public Optional<String> defaultValue() {
    return Optional.ofNullable(defaultValue);
  }

  /** Whether {@code text} lies in the declared domain (false without one). */
  public boolean inDomain(String text) {
    if (domain == null) {
      return false;
    }
    if (domain instanceof Dimension.Choice c) {
      return c.values().contains(text);
    }
    if (domain instanceof Dimension.Whole w) {
      double v = WHOLE.matcher(text).matches() ? Double.parseDouble(text) : Double.NaN;
      return v >= w.low() && v <= w.high();
    }
    Dimension.Continuous c = (Dimension.Continuous) domain;
    double v = number(text) ? Double.parseDouble(text) : Double.NaN;
    return v >= c.low() && v <= c.high();
  }

  /** A domain in words: {@code [10, 125]}, {@code [1, 10000] log-uniform} or {@code {1500, 9000}}. */
  public static String domainText(Dimension d) {
    if (d instanceof Dimension.Choice c) {
      return "{" + String.join(", ", c.values()) + "}";
    }
    if (d instanceof Dimension.Whole w) {
      return "[" + w.low() + ", " + w.high() + "]" + (w.log() ? " log-uniform" : "");
    }
    Dimension.Continuous c = (Dimension.Continuous) d;
    return "[" + c.low() + ", " + c.high() + "]" + (c.log() ? " log-uniform" : "");
  }

  private static List<String> bounds(Dimension d) {
    if (d instanceof Dimension.Choice c) {
      return c.values();
    }
    if (d instanceof Dimension.Whole w) {
      return List.of(Long.toString(w.low()), Long.toString(w.high()));
    }
    Dimension.Continuous c = (Dimension.Continuous) d;
    return List.of(Double.toString(c.low()), Double.toString(c.high()));
  }

  private static boolean number(String text) {
    try {
      return Double.isFinite(Double.parseDouble(text));
    } catch (NumberFormatException e) {
      return false;
    }
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
    return name + " (" + allowed + "): " + description
        + (domain == null ? "" : "; default " + defaultValue + ", plausible " + domainText(domain) + " (" + domain.source() + ")");
  }
}
