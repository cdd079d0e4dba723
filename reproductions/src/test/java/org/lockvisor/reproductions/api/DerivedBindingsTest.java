package org.lockvisor.reproductions.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.lockvisor.arch.catalog.ArchProfiles;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.experiment.UserInputException;

/**
 * Derived bindings ({@link DerivedBindings}): a path whose value is a function of several
 * parameters takes each input as the user set it or at its default of the run's scale, is written
 * only when it changes the shipped file, refuses a faulty declaration when it is declared, and a
 * value its function or the experiment validator refuses is one line of user input error from
 * {@link WhatIf#parse}, before anything runs.
 */
class DerivedBindingsTest {

  private static final ReproductionParameter<Integer> CORES = ReproductionParameter.integer("cores", "cores", 1, 64);
  private static final ReproductionParameter<Integer> THREADS = ReproductionParameter.oneOf("threads", "threads", 1, 2)
      .declareChoice("1", List.of("1", "2"), "test");

  /** cpus = cores x threads; more than 32 cores refused by the function, as a system would. */
  private static final DerivedBindings SHAPE = DerivedBindings.builder()
      .input("cores", "4", "2")
      .input("threads", "1", "1")
      .at("shape", "host.cpus", List.of("cores", "threads"), DerivedBindingsTest::cpus)
      .at("shape", "vms[0].vcpus", List.of("cores", "threads"), DerivedBindingsTest::cpus)
      .at("shape", "vms[0].kernel.threads-per-core", List.of("threads"), in -> in.text("threads"))
      .build();

  private static final Function<String, ArchProfile> PROFILES = ArchProfiles::byName;

  /** The shipped file: its paths hold the bindings' values at the full-scale defaults (4 x 1). */
  private static final String YAML = """
      name: shape
      arch: x86_64-kvm
      seed: 3
      warmup: 0
      duration: 2ms
      host:
        cpus: 4
      vms:
        - name: vm0
          vcpus: 4
          workloads:
            - name: hb
              type: sched-messaging
              options: {groups: 1, fds: 2, loops: 2}
      """;

  private static final Reproduction R = new Reproduction() {
    @Override
    public String name() {
      return "shape";
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
      return List.of(CORES, THREADS);
    }

    @Override
    public List<String> experimentFiles() {
      return List.of("shape");
    }

    @Override
    public byte[] experimentFile(String file) {
      return YAML.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public Set<String> archProfiles() {
      return Set.of("x86_64-kvm");
    }

    @Override
    public DerivedBindings derivedBindings() {
      return SHAPE;
    }
  };

  private static String cpus(DerivedBindings.Inputs in) {
    int cores = in.integer("cores");
    if (cores > 32) {
      throw new UserInputException("shape: [" + cores + "] cores do not fit one socket; allowed: up to 32");
    }
    return String.valueOf(cores * in.integer("threads"));
  }

  @Test
  void paths_nothingGivenAtTheFullScale_nothingWritten() {
    assertThat(SHAPE.paths("shape", Map.of(), false, PROFILES)).isEmpty();
    R.derivedBindings().check(R); // the declaration fits the reproduction
  }

  @Test
  void paths_nothingGivenAtQuick_theQuickDefaultsWhereTheyDiffer() {
    // cores' quick default (2) differs from its full one: the bindings reading it are written
    assertThat(SHAPE.paths("shape", Map.of(), true, PROFILES))
        .containsExactly(Map.entry("host.cpus", "2"), Map.entry("vms[0].vcpus", "2"));
  }

  @Test
  void paths_userValues_takenOverTheDefaults_otherInputsAtTheirDefaults() {
    assertThat(SHAPE.paths("shape", Map.of("threads", "2"), false, PROFILES)).containsExactly(
        Map.entry("host.cpus", String.valueOf(4 * 2)), Map.entry("vms[0].vcpus", String.valueOf(4 * 2)),
        Map.entry("vms[0].kernel.threads-per-core", "2"));
    assertThat(SHAPE.paths("shape", Map.of("cores", "6"), true, PROFILES))
        .containsExactly(Map.entry("host.cpus", "6"), Map.entry("vms[0].vcpus", "6"));
    assertThat(SHAPE.paths("other", Map.of("cores", "6"), true, PROFILES)).as("another file").isEmpty();
  }

  @Test
  void builder_inputNotDeclared_refusedAtDeclaration() {
    assertThatThrownBy(() -> DerivedBindings.builder().input("cores", "4", "2")
        .at("shape", "host.cpus", List.of("cores", "sockets"), in -> "1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[sockets]")
        .hasMessageContaining("[cores]");
    assertThatThrownBy(() -> DerivedBindings.builder().input("cores", "4", "2")
        .at("shape", "host.cpus", List.of(), in -> "1"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least one input");
    assertThatThrownBy(() -> DerivedBindings.builder().input("cores", "4", "2")
        .at(null, "host.cpus", List.of("cores"), in -> "1").at(null, "host.cpus", List.of("cores"), in -> "2"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bound twice");
  }

  @Test
  void inputs_functionReadingANameOutsideItsInputs_refused() {
    DerivedBindings sneaky = DerivedBindings.builder().input("cores", "4", "2").input("threads", "1", "1")
        .at("shape", "host.cpus", List.of("cores"), in -> in.text("threads")).build();
    assertThatThrownBy(() -> sneaky.paths("shape", Map.of("cores", "3"), false, PROFILES))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[threads]");
  }

  @Test
  void check_inputThatIsNoParameterOrABadDefault_refusedAsTheReproductionsFault() {
    DerivedBindings noParameter = DerivedBindings.builder().input("sockets", "1", "1")
        .at("shape", "host.cpus", List.of("sockets"), in -> "1").build();
    assertThatThrownBy(() -> noParameter.check(R)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("[sockets]");
    DerivedBindings badDefault = DerivedBindings.builder().input("threads", "3", "1")
        .at("shape", "host.cpus", List.of("threads"), in -> "1").build();
    assertThatThrownBy(() -> badDefault.check(R)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("[3]");
  }

  @Test
  void parse_inputs_theirDerivedPathsApplied() {
    WhatIf w = WhatIf.parse(List.of("cores=3", "threads=1"), List.of(R), false);
    assertThat(w.pathsOf(R, "shape", false, PROFILES)).containsExactly(Map.entry("host.cpus", "3"),
        Map.entry("vms[0].vcpus", "3"), Map.entry("vms[0].kernel.threads-per-core", "1"));
    // a raw path wins over a binding written for the scale only
    WhatIf raw = WhatIf.parse(List.of("host.cpus=5"), List.of(R), false, true, ReproductionOptions.classPathRunner());
    assertThat(raw.pathsOf(R, "shape", true, PROFILES)).containsEntry("host.cpus", "5")
        .containsEntry("vms[0].vcpus", "2");
  }

  @Test
  void parse_valueTheFunctionRefuses_oneLineNamingTheSetting() {
    assertThatThrownBy(() -> WhatIf.parse(List.of("cores=40"), List.of(R), false))
        .isInstanceOf(UserInputException.class)
        .hasMessageContaining("[cores=40]")
        .hasMessageContaining("up to 32")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }

  @Test
  void parse_badValueOfAnInput_oneLineWithTheAllowedValues() {
    assertThatThrownBy(() -> WhatIf.parse(List.of("threads=3"), List.of(R), false))
        .isInstanceOf(UserInputException.class)
        .hasMessageContaining("[threads=3]")
        .hasMessageContaining("[1, 2]")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }

  @Test
  void parse_derivedPathTheValidatorRefuses_oneLineNamingTheInputs() {
    // two threads per core cannot take effect in a KVM guest: the validator refuses the derived path
    assertThatThrownBy(() -> WhatIf.parse(List.of("threads=2"), List.of(R), false))
        .isInstanceOf(UserInputException.class)
        .hasMessageContaining("[threads=2]")
        .hasMessageContaining("threads-per-core")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }

  @Test
  void parse_rawPathAlsoDerivedFromAGivenInput_refusedAsGivenTwice() {
    assertThatThrownBy(() -> WhatIf.parse(List.of("cores=3", "host.cpus=5"), List.of(R), false))
        .isInstanceOf(UserInputException.class)
        .hasMessageContaining("[host.cpus]")
        .hasMessageContaining("give it once");
  }
}
