package org.lockvisor.reproductions.study;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.Cost;
import org.lockvisor.arch.spi.CostKey;
import org.lockvisor.experiment.SimulationFailedException;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.reproductions.api.Reproduction;
import org.lockvisor.reproductions.api.ReproductionOptions;
import org.lockvisor.reproductions.api.ReproductionParameter;
import org.lockvisor.reproductions.api.ReproductionResult;
import org.lockvisor.reproductions.api.ReproductionRuns;
import org.lockvisor.reproductions.api.WhatIf;
import org.lockvisor.studies.envelope.Dimension;
import org.lockvisor.studies.envelope.EnvelopeRunner;
import org.lockvisor.studies.envelope.RangeSpec;

/**
 * A reproduction as the subject of a setup envelope ({@code reproduce NAME --envelope}): which of
 * its parameters are sampled and over what range (its declared domains and the ranges of the
 * estimates it names, {@link Reproduction#envelopeCosts()}, or those given with {@code --param}),
 * and one run of it at a setting and a seed. Every check of the input is made here, before
 * anything runs.
 */
public final class ReproductionEnvelope {

  private final Reproduction reproduction;
  private final Map<String, ArchProfile> profiles;

  /**
   * @param profiles the registered arch profiles by name (their costs and ranges)
   */
  public ReproductionEnvelope(Reproduction reproduction, Map<String, ArchProfile> profiles) {
    this.reproduction = reproduction;
    this.profiles = Map.copyOf(profiles);
  }

  /**
   * The sampled dimensions: every declared domain and every estimate of {@link
   * Reproduction#envelopeCosts()} when {@code params} is empty; otherwise those named, each over
   * its declared range or a range inside it.
   *
   * @throws UserInputException for a parameter that is not declared (or declares no range), a range
   *     outside the declared one, or a parameter named twice
   */
  public ImmutableList<Dimension> dimensions(List<String> params) {
    List<String> specs = new ArrayList<>(params);
    if (specs.isEmpty()) {
      reproduction.parameters().stream().filter(p -> p.domain().isPresent()).forEach(p -> specs.add(p.name()));
      specs.addAll(reproduction.envelopeCosts());
    }
    Set<String> seen = new LinkedHashSet<>();
    ImmutableList.Builder<Dimension> out = ImmutableList.builder();
    for (String s : specs) {
      RangeSpec spec = RangeSpec.parse(s);
      if (!seen.add(spec.name())) {
        throw new UserInputException("--param [" + spec.name() + "] is given twice");
      }
      out.add(spec.name().startsWith("cost.") ? cost(spec) : parameter(spec));
    }
    return out.build();
  }

  private Dimension parameter(RangeSpec spec) {
    Optional<ReproductionParameter<?>> found = reproduction.parameters().stream()
        .filter(p -> p.name().equals(spec.name())).findFirst();
    List<String> declared = reproduction.parameters().stream().filter(p -> p.domain().isPresent())
        .map(ReproductionParameter::name).toList();
    if (found.isEmpty()) {
      throw new UserInputException("--param [" + spec.spec() + "]: [" + spec.name() + "] is not a parameter of "
          + reproduction.name() + "; declared: " + declared + " or cost.<profile>.<KEY> of "
          + new java.util.TreeSet<>(reproduction.archProfiles()));
    }
    ReproductionParameter<?> p = found.get();
    if (p.domain().isEmpty()) {
      throw new UserInputException("--param [" + spec.spec() + "]: " + reproduction.name() + " declares no plausible"
          + " range for [" + p.name() + "] (a what-if or a seed, not part of the setup); declared: " + declared);
    }
    return spec.within(p.domain().get(), reproduction.name() + " " + p.name());
  }

  private Dimension cost(RangeSpec spec) {
    String[] parts = spec.name().split("\\.", -1);
    if (parts.length != 3) {
      throw new UserInputException("--param [" + spec.spec() + "]: expected cost.<profile>.<COST_KEY>");
    }
    String profile = parts[1];
    if (!reproduction.archProfiles().contains(profile)) {
      throw new UserInputException("--param [" + spec.spec() + "]: " + reproduction.name() + " builds no machine on ["
          + profile + "]; it uses " + new java.util.TreeSet<>(reproduction.archProfiles()));
    }
    CostKey key;
    try {
      key = CostKey.valueOf(parts[2]);
    } catch (IllegalArgumentException e) {
      throw new UserInputException("--param [" + spec.spec() + "]: unknown cost key [" + parts[2] + "]; keys:"
          + " lockvisor plugins --options " + profile);
    }
    Cost c = profiles.get(profile).costs().cost(key);
    if (c.range().isEmpty()) {
      throw new UserInputException("--param [" + spec.spec() + "]: " + profile + " " + key + " is not an estimate"
          + " with a range (" + c.source() + "); only [E] costs are sampled");
    }
    Cost.Range r = c.range().get();
    Dimension declared = key.unit() == CostKey.Unit.COUNT
        ? new Dimension.Whole(spec.name(), (long) r.low(), (long) r.high(), r.spansDecades(), c.source().toString())
        : new Dimension.Continuous(spec.name(), r.low(), r.high(), r.spansDecades(), c.source().toString());
    return spec.within(declared, profile + " " + key);
  }

  /** The parameter a seed is set with ({@code seed} or {@code seeds}), if the reproduction has one. */
  public Optional<String> seedParameter() {
    for (String name : List.of("seed", "seeds")) {
      if (reproduction.parameters().stream().anyMatch(p -> p.name().equals(name))) {
        return Optional.of(name);
      }
    }
    return Optional.empty();
  }

  /**
   * The what-if of one run at scale {@code quick}: {@code fixed}, the sample's {@code setting}, the
   * seed.
   *
   * @throws UserInputException when the settings are refused (checked once before the envelope runs)
   */
  public WhatIf whatIf(boolean quick, List<String> fixed, Map<String, String> setting, long seed) {
    List<String> settings = new ArrayList<>(fixed);
    setting.forEach((k, v) -> settings.add(k + "=" + v));
    seedParameter().ifPresent(p -> settings.add(p + "=" + seed));
    return WhatIf.parse(settings, List.of(reproduction), false, quick, new LinkedHashMap<>(profiles));
  }

  /** One run of the reproduction ({@code quick} or not) at a setting and a seed: the bands it judged. */
  public EnvelopeRunner.Simulation simulation(boolean quick, List<String> fixed) {
    return (setting, seed) -> {
      WhatIf w = whatIf(quick, fixed, setting, seed);
      ReproductionResult r = reproduction.run(new ReproductionOptions(quick, Optional.empty(), ReproductionRuns.NONE,
          w));
      if (r.bands().isEmpty()) {
        throw new SimulationFailedException(reproduction.name() + " judged no structured band at " + setting);
      }
      return r.bands();
    };
  }
}
