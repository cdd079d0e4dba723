package org.lockvisor.reproductions.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.lockvisor.arch.catalog.ArchProfiles;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.Cost;
import org.lockvisor.arch.spi.CostKey;
import org.lockvisor.experiment.UserInputException;

/**
 * What-if settings ({@code reproduce --set}) are parsed strictly, reach the profiles a
 * reproduction obtains through its options and nothing else, and label what they produce.
 */
class WhatIfTest {

  /** A reproduction that declares {@code profiles} and {@code parameters}; never run here. */
  private static Reproduction declaring(String name, Set<String> profiles, List<ReproductionParameter<?>> parameters) {
    return new Reproduction() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public String summary() {
        return "test";
      }

      @Override
      public ReproductionResult run(ReproductionOptions options) {
        throw new UnsupportedOperationException();
      }

      @Override
      public List<ReproductionParameter<?>> parameters() {
        return parameters;
      }

      @Override
      public Set<String> archProfiles() {
        return profiles;
      }
    };
  }

  private static final ReproductionParameter<Integer> LEVEL = ReproductionParameter.integer("level", "a level", 1, 9);
  private static final Reproduction X86_ONLY = declaring("r-x86", Set.of("x86_64-kvm"), List.of(LEVEL));
  private static final Reproduction BOTH = declaring("r-both", Set.of("x86_64-kvm", "arm64-kvm"), List.of());

  @Test
  void costOverride_replacesThatCostOnly_withAWhatIfSource() {
    WhatIf w = WhatIf.parse(List.of("cost.x86_64-kvm.TTWU_FULL=4000"), List.of(X86_ONLY), false);
    ArchProfile base = ArchProfiles.byName("x86_64-kvm");
    ArchProfile p = new ReproductionOptions(true, Optional.empty(), ReproductionRuns.NONE, w).profile("x86_64-kvm");

    assertThat(p.costs().value(CostKey.TTWU_FULL)).isEqualTo(4000.0).isNotEqualTo(base.costs().value(CostKey.TTWU_FULL));
    assertThat(p.ns(CostKey.TTWU_FULL)).isEqualTo(4000);
    Cost c = p.costs().cost(CostKey.TTWU_FULL);
    assertThat(c.source().confidence()).isEqualTo(Cost.Confidence.E);
    assertThat(c.source().reference()).isEqualTo("what-if: --set cost.x86_64-kvm.TTWU_FULL=4000 (profile: "
        + WhatIf.format(base.costs().value(CostKey.TTWU_FULL)) + ")");
    for (CostKey k : CostKey.values()) {
      if (k != CostKey.TTWU_FULL) {
        assertThat(p.costs().cost(k)).as(k.name()).isEqualTo(base.costs().cost(k));
      }
    }
    assertThat(p.topology()).isEqualTo(base.topology());
    assertThat(p.hypervisor()).isEqualTo(base.hypervisor());
  }

  @Test
  void cycleKeyOverride_isInCycles_andConvertedWithTheProfilesCycle() {
    WhatIf w = WhatIf.parse(List.of("cost.x86_64-kvm.VMEXIT_ROUNDTRIP=13000"), List.of(X86_ONLY), false);
    ArchProfile p = w.apply(ArchProfiles.byName("x86_64-kvm"));
    assertThat(p.ns(CostKey.VMEXIT_ROUNDTRIP)).isEqualTo(Math.round(13000 * p.costs().value(CostKey.CPU_CYCLE)));
  }

  @Test
  void noWhatIf_orAnotherProfile_leavesTheProfileAsItIs() {
    ArchProfile arm = ArchProfiles.byName("arm64-kvm");
    assertThat(WhatIf.NONE.apply(arm)).isSameAs(arm);
    WhatIf w = WhatIf.parse(List.of("cost.x86_64-kvm.TTWU_FULL=4000"), List.of(X86_ONLY), false);
    assertThat(w.apply(arm)).isSameAs(arm);
    assertThat(ReproductionOptions.defaults().whatIf()).isSameAs(WhatIf.NONE);
    assertThat(new ReproductionOptions(true, Optional.empty(), ReproductionRuns.NONE).whatIf()).isSameAs(WhatIf.NONE);
    assertThat(ReproductionOptions.defaults().profile("x86_64-kvm")).isEqualTo(ArchProfiles.byName("x86_64-kvm"));
    assertThat(WhatIf.parse(List.of(), List.of(X86_ONLY), false)).isSameAs(WhatIf.NONE);
  }

  @Test
  void restrictTo_keepsTheCostsOfTheProfilesAReproductionUses() {
    WhatIf w = WhatIf.parse(List.of("cost.arm64-kvm.EXIT_USERSPACE=20000", "cost.x86_64-kvm.TTWU_FULL=1500"),
        List.of(X86_ONLY, BOTH), true);
    WhatIf x86 = w.restrictTo(X86_ONLY);
    assertThat(x86.settings()).containsExactly("cost.x86_64-kvm.TTWU_FULL=1500");
    assertThat(x86.costs()).containsOnlyKeys("x86_64-kvm");
    assertThat(w.restrictTo(BOTH)).isEqualTo(w);
    assertThat(w.restrictTo(declaring("r-none", Set.of(), List.of()))).isSameAs(WhatIf.NONE);
  }

  @Test
  void json_wholeNumbersStayWhole_andParametersAreTheTextGiven() {
    WhatIf w = WhatIf.parse(List.of("cost.x86_64-kvm.TTWU_FULL=4000", "cost.x86_64-kvm.MEMCPY_PER_BYTE=0.35",
        "level=07"), List.of(X86_ONLY), false);
    Map<String, Object> json = w.json();
    assertThat(json).containsOnlyKeys("costs", "parameters");
    @SuppressWarnings("unchecked")
    Map<String, Map<String, Object>> costs = (Map<String, Map<String, Object>>) json.get("costs");
    assertThat(costs.get("x86_64-kvm")).containsEntry("TTWU_FULL", 4000L).containsEntry("MEMCPY_PER_BYTE", 0.35);
    assertThat(json.get("parameters")).isEqualTo(Map.of("level", "07"));
    assertThat(new ReproductionOptions(true, Optional.empty(), ReproductionRuns.NONE, w).parameter(LEVEL)).contains(7);
    assertThat(ReproductionOptions.defaults().parameter(LEVEL)).isEmpty();
    assertThat(w.describe()).isEqualTo("cost.x86_64-kvm.TTWU_FULL=4000, cost.x86_64-kvm.MEMCPY_PER_BYTE=0.35, level=07");
  }

  @Test
  void labelled_prefixesTheHeadlineOnce_andNoneLeavesItAlone() {
    ReproductionResult r = ReproductionResult.of("r-x86", false, "not reproduced: 1/2 bands", List.of("x"), Map.of());
    WhatIf w = WhatIf.parse(List.of("level=2"), List.of(X86_ONLY), false);
    ReproductionResult l = w.labelled(r);
    assertThat(l.headline()).isEqualTo(WhatIf.LABEL + r.headline());
    assertThat(w.labelled(l).headline()).isEqualTo(l.headline());
    assertThat(l.reproduced()).isEqualTo(r.reproduced());
    assertThat(WhatIf.NONE.labelled(r)).isSameAs(r);
  }

  @Test
  void parameters_areParsedStrictly() {
    assertThat(LEVEL.parse("9")).isEqualTo(9);
    for (String bad : List.of("+4", " 4", "4.0", "0", "10", "99999999999999999999", "", "four")) {
      assertThatThrownBy(() -> LEVEL.parse(bad)).as(bad).isInstanceOf(UserInputException.class)
          .hasMessage("bad value [" + bad + "] for parameter [level]; allowed: a whole number in [1, 9]");
    }
    ReproductionParameter<List<Long>> seeds = ReproductionParameter.seeds("seeds");
    assertThat(seeds.parse("3,1,-2")).containsExactly(3L, 1L, -2L);
    for (String bad : List.of("1,1", "1,", ",1", "1;2", "1, 2")) {
      assertThatThrownBy(() -> seeds.parse(bad)).as(bad).isInstanceOf(UserInputException.class);
    }
    ReproductionParameter<Boolean> flag = ReproductionParameter.bool("flag", "a flag");
    assertThat(flag.parse("true")).isTrue();
    assertThatThrownBy(() -> flag.parse("TRUE")).isInstanceOf(UserInputException.class).hasMessageContaining("true or false");
    assertThat(ReproductionParameter.oneOf("smt", "threads", 8, 1, 4, 2).allowed()).isEqualTo("one of [1, 2, 4, 8]");
    assertThat(ReproductionParameter.seed("s").parse("-7")).isEqualTo(-7L);
  }
}
