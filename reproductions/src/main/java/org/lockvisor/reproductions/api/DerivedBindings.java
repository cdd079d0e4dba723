package org.lockvisor.reproductions.api;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.experiment.UserInputException;

/**
 * The experiment paths of a reproduction's shipped files whose values are functions of several of
 * its parameters ({@link Reproduction#derivedBindings()}), e.g. R3's {@code host.cpus} = {@code
 * pool-cpus} x {@code smt}: a path no single parameter's value determines ({@link
 * ReproductionParameter#at} binds one value to a path). Declared once, immutable:
 *
 * <pre>{@code
 * DerivedBindings.builder()
 *     .input("pool-cpus", "8", "4")     // its default at the full scale and at --quick
 *     .input("smt", "1", "1")
 *     .at("my-file", "host.cpus", List.of("pool-cpus", "smt"),
 *         in -> String.valueOf(in.integer("pool-cpus") * in.integer("smt")))
 *     .build();
 * }</pre>
 *
 * <p>Each input is a declared parameter of the reproduction with its default at each scale (the
 * value the reproduction uses when the user does not set it). A binding's value is computed from
 * its inputs' values ({@link Inputs}: as set with {@code --set}, else the default at the run's
 * scale) and is written like any {@code --set} path: by {@code reproduce} before its runs ({@link
 * WhatIf#pathsOf(Reproduction, String, boolean, Function)}), by {@code --export-experiments} into
 * the files, and checked with the runner's validator by {@link WhatIf#parse} before anything runs.
 * A value the function refuses (a combination of inputs the modelled system refuses) is a {@link
 * UserInputException}: one line, exit 2.
 *
 * <p>The shipped file holds every binding's value at the full-scale defaults, so a binding is
 * written only when it changes something: when one of its inputs is set, or the default of one of
 * its inputs at the run's scale is not its full-scale default ({@link #paths}).
 */
public final class DerivedBindings {

  private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9-]*");

  /** No derived binding: every parameter writes its own paths, if any. */
  public static final DerivedBindings NONE = builder().build();

  /**
   * A parameter that derived bindings read, with its default at the full scale and at {@code
   * --quick}.
   */
  public record Input(String name, String fullDefault, String quickDefault) {
    public Input {
      checkArgument(name != null && NAME.matcher(name).matches(), "bad input name [%s]", name);
      checkArgument(fullDefault != null && !fullDefault.isBlank() && quickDefault != null && !quickDefault.isBlank(),
          "input [%s] needs a default at each scale", name);
    }

    /** The default at the scale of a run. */
    public String defaultValue(boolean quick) {
      return quick ? quickDefault : fullDefault;
    }
  }

  /**
   * One derived path: {@code path} of shipped file {@code file} (base name; {@code null}: every
   * shipped file), its value {@code value} of the values of {@code inputs} (a pure function; it
   * may read only those inputs).
   */
  public record Binding(String file, String path, ImmutableList<String> inputs, Function<Inputs, String> value) {
    public Binding {
      checkArgument(file == null || !file.isBlank(), "a derived binding's file must be null (every file) or a name");
      checkArgument(path != null && !path.isBlank(), "a derived binding needs a path");
      checkArgument(inputs != null && !inputs.isEmpty(), "derived binding [%s] needs at least one input", path);
      checkArgument(value != null, "derived binding [%s] needs a value function", path);
    }

    /** Whether this binding is written into shipped file {@code name}. */
    public boolean appliesTo(String name) {
      return file == null || file.equals(name);
    }

    /** {@code path} or {@code file.yaml path}, then {@code (from a, b)}. */
    public String text() {
      return (file == null ? path : file + ".yaml " + path) + " (from " + String.join(", ", inputs) + ")";
    }
  }

  /**
   * The values a binding's function reads: each input as set with {@code --set}, else its default
   * at the run's scale, and the run's arch profiles (with the what-if's cost overrides).
   */
  public static final class Inputs {
    private final Binding binding;
    private final ImmutableMap<String, String> values;
    private final boolean quick;
    private final Function<String, ArchProfile> profiles;

    private Inputs(Binding binding, ImmutableMap<String, String> values, boolean quick,
        Function<String, ArchProfile> profiles) {
      this.binding = binding;
      this.values = values;
      this.quick = quick;
      this.profiles = profiles;
    }

    /**
     * The value of input {@code name}, as text.
     *
     * @throws IllegalArgumentException when {@code name} is not an input of the binding (a fault of the declaration)
     */
    public String text(String name) {
      String v = values.get(name);
      checkArgument(v != null, "derived binding [%s] reads [%s], not one of its inputs %s", binding.path(), name,
          binding.inputs());
      return v;
    }

    /**
     * The value of input {@code name} as a whole number.
     *
     * @throws UserInputException when it is not one (a value the parameter's parser let through)
     */
    public int integer(String name) {
      String v = text(name);
      try {
        return Integer.parseInt(v);
      } catch (NumberFormatException e) {
        throw new UserInputException("bad value [" + v + "] for parameter [" + name + "]; allowed: a whole number");
      }
    }

    /** Whether the run is at the {@code --quick} scale. */
    public boolean quick() {
      return quick;
    }

    /** The run's arch profile {@code name}, with the what-if's cost overrides. */
    public ArchProfile profile(String name) {
      return profiles.apply(name);
    }
  }

  private final ImmutableMap<String, Input> inputs;
  private final ImmutableList<Binding> bindings;

  private DerivedBindings(ImmutableMap<String, Input> inputs, ImmutableList<Binding> bindings) {
    this.inputs = inputs;
    this.bindings = bindings;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The inputs by name, in declaration order. */
  public ImmutableMap<String, Input> inputs() {
    return inputs;
  }

  /** The bindings, in declaration order (the order their paths are written). */
  public ImmutableList<Binding> bindings() {
    return bindings;
  }

  /** The bindings that read parameter {@code name}. */
  public ImmutableList<Binding> of(String name) {
    return bindings.stream().filter(b -> b.inputs().contains(name)).collect(ImmutableList.toImmutableList());
  }

  /**
   * The paths of shipped file {@code file} the bindings write for a run at scale {@code quick}
   * with the parameter values {@code given} (as set, by name; parameters that are no input are
   * ignored), in declaration order: a binding is written when one of its inputs is given or has a
   * default at this scale other than its full-scale one (the shipped file holds the full-scale
   * values).
   *
   * @throws UserInputException when a binding's function refuses the values
   */
  public ImmutableMap<String, String> paths(String file, Map<String, String> given, boolean quick,
      Function<String, ArchProfile> profiles) {
    Map<String, String> out = new LinkedHashMap<>();
    for (Binding b : bindings) {
      if (!b.appliesTo(file) || !written(b, given, quick)) {
        continue;
      }
      ImmutableMap.Builder<String, String> values = ImmutableMap.builder();
      for (String name : b.inputs()) {
        String v = given.get(name);
        values.put(name, v != null ? v : inputs.get(name).defaultValue(quick));
      }
      String v = b.value().apply(new Inputs(b, values.buildOrThrow(), quick, profiles));
      if (v == null || v.isBlank()) {
        throw new IllegalStateException("derived binding [" + b.text() + "] gave no value");
      }
      out.put(b.path(), v);
    }
    return ImmutableMap.copyOf(out);
  }

  /** Whether {@code b} is written at this scale with these values given. */
  boolean written(Binding b, Map<String, String> given, boolean quick) {
    for (String name : b.inputs()) {
      Input in = inputs.get(name);
      if (given.containsKey(name) || !in.defaultValue(quick).equals(in.fullDefault())) {
        return true;
      }
    }
    return false;
  }

  /**
   * Checks the declaration against {@code r}: every input is a declared parameter whose parser
   * takes both defaults (and whose declared default, if any, is the full-scale one), every
   * binding's file is a shipped file, and no path is also a parameter's own target.
   *
   * @throws IllegalStateException naming the fault of the reproduction
   */
  public void check(Reproduction r) {
    Map<String, ReproductionParameter<?>> declared = new LinkedHashMap<>();
    r.parameters().forEach(p -> declared.put(p.name(), p));
    for (Input in : inputs.values()) {
      ReproductionParameter<?> p = declared.get(in.name());
      if (p == null) {
        throw new IllegalStateException(r.name() + ": derived-binding input [" + in.name()
            + "] is not a declared parameter " + declared.keySet());
      }
      try {
        p.parse(in.fullDefault());
        p.parse(in.quickDefault());
      } catch (UserInputException e) {
        throw new IllegalStateException(r.name() + ": a default of derived-binding input: " + e.getMessage(), e);
      }
      if (p.defaultValue().isPresent() && !p.defaultValue().get().equals(in.fullDefault())) {
        throw new IllegalStateException(r.name() + ": derived-binding input [" + in.name() + "] defaults to ["
            + in.fullDefault() + "], its parameter to [" + p.defaultValue().get() + "]");
      }
    }
    for (Binding b : bindings) {
      if (b.file() != null && !r.experimentFiles().contains(b.file())) {
        throw new IllegalStateException(r.name() + ": derived binding [" + b.text() + "] names no shipped file "
            + r.experimentFiles());
      }
      for (ReproductionParameter<?> p : r.parameters()) {
        for (ReproductionParameter.Target t : p.targets()) {
          if (t.path().equals(b.path()) && (t.file() == null || b.file() == null || t.file().equals(b.file()))) {
            throw new IllegalStateException(r.name() + ": path [" + b.path() + "] is both parameter [" + p.name()
                + "]'s target and a derived binding");
          }
        }
      }
    }
  }

  /** Builds {@link DerivedBindings}: inputs first, then the bindings that read them. */
  public static final class Builder {
    private final Map<String, Input> inputs = new LinkedHashMap<>();
    private final List<Binding> bindings = new ArrayList<>();

    private Builder() {}

    /** Declares input parameter {@code name} with its default at the full scale and at {@code --quick}. */
    public Builder input(String name, String fullDefault, String quickDefault) {
      Input in = new Input(name, fullDefault, quickDefault);
      checkArgument(inputs.put(name, in) == null, "derived-binding input [%s] declared twice", name);
      return this;
    }

    /**
     * Binds {@code path} of shipped file {@code file} ({@code null}: every file) to {@code value}
     * of the declared inputs {@code inputs}.
     *
     * @throws IllegalArgumentException for an input not declared with {@link #input}, or a path bound twice
     */
    public Builder at(String file, String path, List<String> inputs, Function<Inputs, String> value) {
      checkArgument(inputs != null, "derived binding [%s]: null inputs", path);
      for (String name : inputs) {
        checkArgument(this.inputs.containsKey(name), "derived binding [%s]: input [%s] is not declared; declared: %s",
            path, name, this.inputs.keySet());
      }
      checkArgument(inputs.stream().distinct().count() == inputs.size(), "derived binding [%s]: an input named twice",
          path);
      Binding b = new Binding(file, path, ImmutableList.copyOf(inputs), value);
      for (Binding o : bindings) {
        checkArgument(!o.path().equals(path) || (o.file() != null && file != null && !o.file().equals(file)),
            "derived binding: path [%s] bound twice", path);
      }
      bindings.add(b);
      return this;
    }

    public DerivedBindings build() {
      return new DerivedBindings(ImmutableMap.copyOf(inputs), ImmutableList.copyOf(bindings));
    }
  }
}
