package org.lockvisor.reproductions.api;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSortedMap;
import com.google.common.collect.ImmutableSortedSet;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.ArchProfileFactory;
import org.lockvisor.arch.spi.Cost;
import org.lockvisor.arch.spi.CostKey;
import org.lockvisor.core.plugin.DidYouMean;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.experiment.model.ExperimentYaml;
import org.lockvisor.experiment.model.PluginRegistry;
import org.lockvisor.experiment.model.Problem;
import org.lockvisor.experiment.runner.ExperimentRunner;

/**
 * The what-if settings of one {@code lockvisor reproduce ... --set KEY=VALUE} command, in the one
 * {@code --set} language of {@code run} and {@code reproduce}: cost overrides of arch profiles
 * ({@code cost.<profile>.<COST_KEY>=<number>}, applied to every machine built on that profile by
 * a runner over the changed profiles, {@link #runner}, as {@code run --set} does), values of a
 * reproduction's declared parameters ({@code <parameter>=<value>}, see {@link
 * Reproduction#parameters()}; a parameter bound to an experiment path, {@link
 * ReproductionParameter#at}, is applied as that path, and the paths of the reproduction's derived
 * bindings, {@link DerivedBindings}, as functions of the parameters set and the defaults of the
 * run's scale, {@link #pathsOf(Reproduction, String, boolean, java.util.function.Function)}) and
 * raw experiment paths of the
 * reproduction's shipped files ({@code vms[0].vcpus=2}, {@link Reproduction#experimentFiles()}),
 * checked by {@code ExperimentYaml.set} and the runner's validator like {@code run --set}. A run
 * with a non-empty what-if is not the reproduction: the CLI labels its output ({@link #labelled},
 * a {@code whatIf} object in the JSON, and the run directories' provenance).
 *
 * @param settings the settings as given, {@code KEY=VALUE}, in order
 * @param costs overridden costs by profile name, in the order given; values in each key's unit
 * @param parameters parameter values as given (already checked by the parameter's parser), by name
 * @param paths the experiment paths to apply to the reproduction's shipped files, in order: raw
 *     paths as given and each path-bound parameter's path with its value as the path takes it
 *     (all already checked against every shipped file of the reproduction)
 * @param filePaths the experiment paths of single shipped files, by file base name, in order: the
 *     targets of parameters bound to one file ({@link ReproductionParameter#at(String, String)}),
 *     applied after {@code paths} (checked against their file)
 */
public record WhatIf(ImmutableList<String> settings, ImmutableMap<String, ImmutableMap<CostKey, Double>> costs,
    ImmutableMap<String, String> parameters, ImmutableMap<String, String> paths,
    ImmutableMap<String, ImmutableMap<String, String>> filePaths) {

  /** No what-if: the reproduction as it is. */
  public static final WhatIf NONE = new WhatIf(ImmutableList.of(), ImmutableMap.of(), ImmutableMap.of(),
      ImmutableMap.of());

  /** Prefix of a labelled headline. */
  public static final String LABEL = "WHAT-IF — ";

  static final String COST_PREFIX = "cost.";
  // A plain decimal: no sign, no NaN/Infinity, no hex or type suffix (Double.parseDouble takes all of those).
  private static final Pattern NUMBER = Pattern.compile("([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+)?");

  public WhatIf {
    checkArgument(settings != null && costs != null && parameters != null && paths != null && filePaths != null,
        "what-if parts must not be null");
  }

  /** A what-if whose experiment paths apply to every shipped file alike. */
  public WhatIf(ImmutableList<String> settings, ImmutableMap<String, ImmutableMap<CostKey, Double>> costs,
      ImmutableMap<String, String> parameters, ImmutableMap<String, String> paths) {
    this(settings, costs, parameters, paths, ImmutableMap.of());
  }

  /** The experiment paths applied to shipped file {@code file}, in order: {@link #paths()} then its own. */
  public ImmutableMap<String, String> pathsOf(String file) {
    ImmutableMap<String, String> own = filePaths.getOrDefault(file, ImmutableMap.of());
    if (own.isEmpty()) {
      return paths;
    }
    return ImmutableMap.<String, String>builder().putAll(paths).putAll(own).buildOrThrow();
  }

  /**
   * The experiment paths applied to shipped file {@code file} of {@code r} in a run at scale
   * {@code quick}, in order: the paths its derived bindings write ({@link
   * Reproduction#derivedBindings()}, {@link DerivedBindings#paths}; the values of the parameters
   * set, else the defaults of the scale, read against the arch profiles {@code profiles}), then
   * {@link #pathsOf(String)} (a raw path given by the user takes precedence over a binding written
   * for the scale only; one written for a parameter given is refused by {@link #parse}).
   *
   * @throws UserInputException when a binding refuses the values (options built without {@link #parse})
   */
  public ImmutableMap<String, String> pathsOf(Reproduction r, String file, boolean quick,
      java.util.function.Function<String, ArchProfile> profiles) {
    Map<String, String> out = new LinkedHashMap<>(r.derivedBindings().paths(file, parameters, quick, profiles));
    out.putAll(pathsOf(file));
    return ImmutableMap.copyOf(out);
  }

  /** Whether any experiment path is set, on any file. */
  public boolean hasPaths() {
    return !paths.isEmpty() || !filePaths.isEmpty();
  }

  /** A what-if of costs and parameters, without raw experiment paths. */
  public WhatIf(ImmutableList<String> settings, ImmutableMap<String, ImmutableMap<CostKey, Double>> costs,
      ImmutableMap<String, String> parameters) {
    this(settings, costs, parameters, ImmutableMap.of());
  }

  /**
   * {@code base} itself when no cost is overridden, otherwise a runner over the same plugins whose
   * arch profiles carry the overrides ({@link #apply}): how {@code run --set cost.*} and {@code
   * reproduce --set cost.*} both reach every machine.
   */
  public ExperimentRunner runner(ExperimentRunner base) {
    return costs.isEmpty() ? base : new ExperimentRunner(base.plugins().withArchProfiles(this::apply));
  }

  /** True when nothing is overridden. */
  public boolean isEmpty() {
    return settings.isEmpty();
  }

  /** The settings for a label: {@code cost.x86_64-kvm.TTWU_FULL=4000, groups=400}. */
  public String describe() {
    return String.join(", ", settings);
  }

  /**
   * {@code profile} with this what-if's overrides of its costs, each with the source {@code
   * what-if: --set cost.<profile>.<KEY>=<v> (profile: <old>)}; {@code profile} itself when none.
   */
  public ArchProfile apply(ArchProfile profile) {
    ImmutableMap<CostKey, Double> overrides = costs.get(profile.name());
    if (overrides == null || overrides.isEmpty()) {
      return profile;
    }
    List<Cost> list = new ArrayList<>();
    overrides.forEach((key, value) -> list.add(Cost.of(key, value, Cost.Confidence.E,
        "what-if: --set " + COST_PREFIX + profile.name() + "." + key + "=" + format(value)
            + " (profile: " + format(profile.costs().value(key)) + ")")));
    return profile.withCosts(profile.costs().with(list));
  }

  /**
   * The part of this what-if that applies to {@code reproduction}: the costs of the profiles it
   * declares ({@link Reproduction#archProfiles()}) and the parameters (which are only ever given
   * for a single reproduction).
   */
  public WhatIf restrictTo(Reproduction reproduction) {
    if (isEmpty()) {
      return this;
    }
    Set<String> profiles = reproduction.archProfiles();
    ImmutableList.Builder<String> kept = ImmutableList.builder();
    for (String s : settings) {
      String key = s.substring(0, s.indexOf('='));
      if (!key.startsWith(COST_PREFIX) || profiles.contains(key.split("\\.", -1)[1])) {
        kept.add(s);
      }
    }
    ImmutableMap.Builder<String, ImmutableMap<CostKey, Double>> c = ImmutableMap.builder();
    costs.forEach((profile, overrides) -> {
      if (profiles.contains(profile)) {
        c.put(profile, overrides);
      }
    });
    ImmutableList<String> s = kept.build();
    return s.isEmpty() ? NONE : new WhatIf(s, c.buildOrThrow(), parameters, paths, filePaths);
  }

  /**
   * {@code {"costs": {profile: {KEY: number}}, "parameters": {name: "value"}}} and, when experiment
   * paths are set, {@code "paths": {path: "value"}} and {@code "filePaths": {file: {path:
   * "value"}}}; whole numbers as such, for the JSON output and
   * the provenance of run directories.
   */
  public Map<String, Object> json() {
    Map<String, Object> c = new LinkedHashMap<>();
    costs.forEach((profile, overrides) -> {
      Map<String, Object> m = new LinkedHashMap<>();
      overrides.forEach((key, value) -> m.put(key.name(), number(value)));
      c.put(profile, m);
    });
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("costs", c);
    out.put("parameters", new LinkedHashMap<>(parameters));
    if (!paths.isEmpty()) {
      out.put("paths", new LinkedHashMap<>(paths));
    }
    if (!filePaths.isEmpty()) {
      Map<String, Object> f = new LinkedHashMap<>();
      filePaths.forEach((file, set) -> f.put(file, new LinkedHashMap<>(set)));
      out.put("filePaths", f);
    }
    return out;
  }

  /** {@code result} labelled as a what-if: its headline starts with {@link #LABEL}. */
  public ReproductionResult labelled(ReproductionResult result) {
    if (isEmpty() || result.headline().startsWith(LABEL)) {
      return result;
    }
    return new ReproductionResult(result.name(), result.reproduced(), LABEL + result.headline(), result.report(),
        result.metrics(), result.data(), result.bands());
  }

  /**
   * Parses and checks {@code --set} settings for the reproductions {@code chosen}, against the
   * registered arch profiles, for a run at the full scale.
   *
   * @param all whether the user asked for {@code all} (parameters then are refused)
   * @throws UserInputException on the first bad setting, naming it, what is wrong and what is allowed
   */
  public static WhatIf parse(List<String> settings, List<? extends Reproduction> chosen, boolean all) {
    return parse(settings, chosen, all, false, ReproductionOptions.classPathRunner());
  }

  /**
   * {@link #parse(List, List, boolean)} for a run at scale {@code quick} (the scale the derived
   * bindings' defaults are taken at, {@link DerivedBindings}) against the arch profiles of {@code
   * runner}'s plugins; experiment paths are checked by {@code runner}'s validator on every shipped
   * file.
   */
  public static WhatIf parse(List<String> settings, List<? extends Reproduction> chosen, boolean all, boolean quick,
      ExperimentRunner runner) {
    if (settings.isEmpty()) {
      return NONE;
    }
    Map<String, ArchProfile> profiles = new LinkedHashMap<>();
    for (Map.Entry<String, ArchProfileFactory> e : runner.plugins().arches().entrySet()) {
      profiles.put(e.getKey(), e.getValue().create());
    }
    return parse(settings, chosen, all, quick, profiles, runner);
  }

  /** {@link #parse(List, List, boolean, boolean, ExperimentRunner)} against the given profiles, by name. */
  public static WhatIf parse(List<String> settings, List<? extends Reproduction> chosen, boolean all, boolean quick,
      Map<String, ArchProfile> profiles) {
    return parse(settings, chosen, all, quick, profiles, ReproductionOptions.classPathRunner());
  }

  private static WhatIf parse(List<String> settings, List<? extends Reproduction> chosen, boolean all, boolean quick,
      Map<String, ArchProfile> profiles, ExperimentRunner runner) {
    if (settings.isEmpty()) {
      return NONE;
    }
    Map<String, Map<CostKey, Double>> costs = new LinkedHashMap<>();
    Map<String, String> parameters = new LinkedHashMap<>();
    Map<String, String> paths = new LinkedHashMap<>();
    Map<String, Map<String, String>> filePaths = new LinkedHashMap<>();
    for (String s : settings) {
      int eq = s.indexOf('=');
      if (eq <= 0 || eq == s.length() - 1) {
        throw SetErrors.bad(s, "expected KEY=VALUE, i.e. " + SetErrors.FORMS);
      }
      String key = s.substring(0, eq);
      String value = s.substring(eq + 1);
      if (key.startsWith(COST_PREFIX) || key.equals("cost")) {
        cost(s, key, value, chosen, profiles, costs);
      } else {
        parameter(s, key, value, chosen, all, parameters, paths, filePaths, runner);
      }
    }
    ImmutableMap.Builder<String, ImmutableMap<String, String>> f = ImmutableMap.builder();
    filePaths.forEach((file, set) -> f.put(file, ImmutableMap.copyOf(set)));
    ImmutableMap.Builder<String, ImmutableMap<CostKey, Double>> c = ImmutableMap.builder();
    costs.forEach((name, overrides) -> c.put(name, ImmutableMap.copyOf(overrides)));
    WhatIf whatIf = new WhatIf(ImmutableList.copyOf(settings), c.buildOrThrow(), ImmutableMap.copyOf(parameters),
        ImmutableMap.copyOf(paths), f.buildOrThrow());
    // What the profile's own checks refuse (a cycle of 0 ns, say) is bad input too, not a crash later.
    for (String name : costs.keySet()) {
      try {
        whatIf.apply(profiles.get(name));
      } catch (IllegalArgumentException e) {
        throw new UserInputException("--set: the costs given for [" + name + "] are refused: " + e.getMessage());
      }
    }
    if (!parameters.isEmpty() || !paths.isEmpty()) { // only ever for a single reproduction
      Reproduction r = chosen.get(0);
      Map<String, Map<String, String>> derived = WhatIfPaths.derived(r, parameters, paths, filePaths, quick,
          name -> whatIf.apply(profile(profiles, name)));
      boolean inputGiven = parameters.keySet().stream().anyMatch(r.derivedBindings().inputs()::containsKey);
      if (!paths.isEmpty() || !filePaths.isEmpty() || inputGiven) {
        List<String> given = settings.stream().filter(x -> !x.startsWith(COST_PREFIX)).toList();
        WhatIfPaths.validatePaths(paths, filePaths, derived, parameters, given, r, runner);
      }
    }
    return whatIf;
  }

  private static ArchProfile profile(Map<String, ArchProfile> profiles, String name) {
    ArchProfile p = profiles.get(name);
    if (p == null) {
      throw new IllegalStateException(DidYouMean.unknownMessage("arch profile", name, profiles.keySet()));
    }
    return p;
  }

  private static void cost(String s, String key, String value, List<? extends Reproduction> chosen,
      Map<String, ArchProfile> profiles, Map<String, Map<CostKey, Double>> costs) {
    Set<String> used = new TreeSet<>();
    List<String> uses = new ArrayList<>();
    for (Reproduction r : chosen) {
      used.addAll(r.archProfiles());
      uses.add(r.name() + " uses " + ImmutableSortedSet.copyOf(r.archProfiles()));
    }
    cost(s, key, value, used, (chosen.size() == 1 ? "this reproduction" : "the chosen reproductions") + " ("
        + (uses.isEmpty() ? "no reproduction chosen" : String.join("; ", uses)) + ")", profiles, costs);
  }

  /**
   * Parses {@code cost.<profile>.<COST_KEY>=<number>} settings of an experiment ({@code run} and
   * {@code sweep --set}), with the same checks as {@code reproduce --set}: a known profile that the
   * experiment builds a machine on ({@code used}, named by {@code usedBy} in the message), a cost
   * key that applies to it, a number in the key's unit.
   *
   * @throws UserInputException on the first bad setting
   */
  public static WhatIf parseCosts(List<String> settings, Set<String> used, String usedBy,
      Map<String, ArchProfile> profiles) {
    if (settings.isEmpty()) {
      return NONE;
    }
    Map<String, Map<CostKey, Double>> costs = new LinkedHashMap<>();
    for (String s : settings) {
      int eq = s.indexOf('=');
      if (eq <= 0 || eq == s.length() - 1 || !s.startsWith(COST_PREFIX)) {
        throw SetErrors.bad(s, "expected cost.<profile>.<COST_KEY>=<number>, e.g. cost.x86_64-kvm.TTWU_FULL=4000");
      }
      cost(s, s.substring(0, eq), s.substring(eq + 1), used, usedBy, profiles, costs);
    }
    ImmutableMap.Builder<String, ImmutableMap<CostKey, Double>> c = ImmutableMap.builder();
    costs.forEach((name, overrides) -> c.put(name, ImmutableMap.copyOf(overrides)));
    WhatIf whatIf = new WhatIf(ImmutableList.copyOf(settings), c.buildOrThrow(), ImmutableMap.of());
    for (String name : costs.keySet()) {
      try {
        whatIf.apply(profiles.get(name));
      } catch (IllegalArgumentException e) {
        throw new UserInputException("--set: the costs given for [" + name + "] are refused: " + e.getMessage());
      }
    }
    return whatIf;
  }

  private static void cost(String s, String key, String value, Set<String> used, String usedBy,
      Map<String, ArchProfile> profiles, Map<String, Map<CostKey, Double>> costs) {
    String[] parts = key.split("\\.", -1);
    if (parts.length != 3 || parts[1].isEmpty() || parts[2].isEmpty()) {
      throw SetErrors.bad(s, "expected cost.<profile>.<COST_KEY>=<number>, e.g. cost.x86_64-kvm.TTWU_FULL=4000");
    }
    ArchProfile profile = profiles.get(parts[1]);
    if (profile == null) {
      throw SetErrors.bad(s, DidYouMean.unknownMessage("arch profile", parts[1], profiles.keySet()));
    }
    if (!used.contains(profile.name())) {
      throw SetErrors.bad(s, "no machine of " + usedBy + " is built on [" + profile.name()
          + "], so the override would change nothing");
    }
    List<String> applicable = new ArrayList<>();
    for (Cost c : profile.costs().costs()) {
      if (!c.isNotApplicable()) {
        applicable.add(c.key().name());
      }
    }
    CostKey costKey = null;
    for (CostKey k : CostKey.values()) {
      if (k.name().equals(parts[2])) {
        costKey = k;
      }
    }
    if (costKey == null) {
      throw SetErrors.bad(s, DidYouMean.unknownMessage(profile.name() + " cost key", parts[2], applicable));
    }
    Cost current = profile.costs().cost(costKey);
    if (current.isNotApplicable()) {
      throw SetErrors.bad(s, "cost [" + costKey + "] does not apply to " + profile.name() + " ("
          + current.source().reference() + "); applicable: " + ImmutableSortedSet.copyOf(applicable));
    }
    String allowed = allowed(costKey) + " (" + profile.name() + ": " + format(current.value()) + ")";
    double v = NUMBER.matcher(value).matches() ? Double.parseDouble(value) : Double.NaN;
    boolean ok = Double.isFinite(v) && v >= 0 && v <= ceiling(costKey)
        && (costKey.unit() != CostKey.Unit.COUNT || v == Math.rint(v))
        && (costKey != CostKey.CPU_CYCLE || v > 0);
    if (!ok) {
      throw SetErrors.bad(s, "bad value [" + org.lockvisor.experiment.model.Problem.echo(value) + "] for cost [" + costKey + "] of " + profile.name() + "; allowed: " + allowed);
    }
    Map<CostKey, Double> overrides = costs.computeIfAbsent(profile.name(), n -> new LinkedHashMap<>());
    if (overrides.put(costKey, v) != null) {
      throw SetErrors.bad(s, "cost [" + costKey + "] of " + profile.name() + " is given twice; give each key once");
    }
  }

  /**
   * The largest value a cost override may take, per unit: far above any real machine (a cost is
   * one kernel or hardware operation, nanoseconds to microseconds), low enough that simulated time
   * cannot overflow. Documented in docs/experiments.md.
   */
  static double ceiling(CostKey key) {
    return switch (key.unit()) {
      case COUNT -> 1e6;
      case NANOSECONDS -> 1e9; // one second
      case CYCLES -> 1e9;
      case NS_PER_BYTE -> 1e6; // one millisecond per byte
    };
  }

  private static String allowed(CostKey key) {
    String max = format(ceiling(key));
    return switch (key.unit()) {
      case COUNT -> "a whole number in [0, " + max + "] (a count)";
      case NANOSECONDS -> key == CostKey.CPU_CYCLE ? "a number in (0, " + max + "], in ns"
          : "a number in [0, " + max + "], in ns";
      case CYCLES -> "a number in [0, " + max + "], in cycles";
      case NS_PER_BYTE -> "a number in [0, " + max + "], in ns per byte";
    };
  }

  private static void parameter(String s, String key, String value, List<? extends Reproduction> chosen, boolean all,
      Map<String, String> parameters, Map<String, String> paths, Map<String, Map<String, String>> filePaths,
      ExperimentRunner runner) {
    if (all || chosen.size() != 1) {
      throw SetErrors.bad(s, "parameters and experiment paths need a single reproduction (reproduce <name> --set " + key
          + "=...); with 'all' only cost.<profile>.<COST_KEY>=<number> is allowed");
    }
    Reproduction r = chosen.get(0);
    ImmutableSortedMap.Builder<String, ReproductionParameter<?>> b = ImmutableSortedMap.naturalOrder();
    r.parameters().forEach(p -> b.put(p.name(), p));
    ImmutableSortedMap<String, ReproductionParameter<?>> declared = b.buildOrThrow();
    ReproductionParameter<?> p = declared.get(key);
    if (p == null) {
      WhatIfPaths.path(s, key, value, r, declared.keySet(), paths, runner);
      for (Map<String, String> own : filePaths.values()) {
        if (own.containsKey(key)) {
          throw SetErrors.bad(s, "path [" + key + "] is also set by a parameter; give it once");
        }
      }
      return;
    }
    try {
      p.parse(value);
    } catch (UserInputException e) {
      throw SetErrors.bad(s, e.getMessage());
    }
    if (parameters.put(key, value) != null) {
      throw SetErrors.bad(s, "parameter [" + key + "] is given twice; give each parameter once");
    }
    // the bound targets are applied to the shipped files as paths: checked and recorded as such
    for (ReproductionParameter.Target t : p.targets()) {
      String v = t.value().apply(value);
      if (t.file() == null) {
        WhatIfPaths.checkPath(s, t.path(), v, r, runner);
        if (paths.put(t.path(), v) != null) {
          throw SetErrors.bad(s, "path [" + t.path() + "] is given twice (parameter [" + key + "] sets it); give it once");
        }
        continue;
      }
      if (!r.experimentFiles().contains(t.file())) {
        throw new IllegalStateException("parameter [" + key + "] of " + r.name() + " is bound to ["
            + t.file() + "], not one of its shipped files " + r.experimentFiles());
      }
      Problem problem = ExperimentYaml.set(WhatIfPaths.shipped(r, t.file()), t.path(), v);
      if (problem != null) {
        throw SetErrors.bad(s, "in shipped experiment " + t.file() + ".yaml: " + problem);
      }
      if (paths.containsKey(t.path())
          || filePaths.computeIfAbsent(t.file(), x -> new LinkedHashMap<>()).put(t.path(), v) != null) {
        throw SetErrors.bad(s, "path [" + t.path() + "] of " + t.file() + ".yaml is given twice (parameter [" + key
            + "] sets it); give it once");
      }
    }
  }



  /** A value as written in labels and sources: {@code 4000}, {@code 0.35}. */
  static String format(double v) {
    return BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
  }

  private static Object number(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? (Object) (long) v : (Object) v;
  }
}
