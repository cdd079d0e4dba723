package org.lockvisor.reproductions.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.studies.envelope.Dimension;

/**
 * Property: a setup parameter's declared domain holds its default and only allowed values, says
 * where its range comes from, and answers whether a value lies in it; a parameter without a domain
 * (a seed) has none.
 */
class ReproductionParameterDomainTest {

  private static final ReproductionParameter<Integer> QUEUES =
      ReproductionParameter.integer("peer-queues", "RSS queues", 1, 16).declareRange("16", 1, 16, true, "ixgbe");

  @Test
  void declaredRange_holdsDefaultAndSource() {
    assertThat(QUEUES.defaultValue()).contains("16");
    assertThat(QUEUES.domain()).containsInstanceOf(Dimension.Whole.class);
    assertThat(QUEUES.domain().get().source()).isEqualTo("ixgbe");
    assertThat(ReproductionParameter.domainText(QUEUES.domain().get())).isEqualTo("[1, 16] log-uniform");
    assertThat(QUEUES.toString()).contains("default 16").contains("ixgbe");
  }

  @Test
  void inDomain_valuesInsideAndOutside() {
    assertThat(QUEUES.inDomain("1")).isTrue();
    assertThat(QUEUES.inDomain("16")).isTrue();
    assertThat(QUEUES.inDomain("17")).isFalse();
    assertThat(QUEUES.inDomain("x")).isFalse();
  }

  @Test
  void declaredRange_widerThanAllowed_refused() {
    assertThatThrownBy(() -> ReproductionParameter.integer("vcpus", "vCPUs", 1, 8).declareRange("4", 1, 9, false, "s"))
        .isInstanceOf(UserInputException.class).hasMessageContaining("[9]");
  }

  @Test
  void declaredDefault_outsideDomain_refused() {
    assertThatThrownBy(() -> ReproductionParameter.integer("vcpus", "vCPUs", 1, 8).declareRange("8", 1, 4, false, "s"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outside its domain");
  }

  @Test
  void declaredChoice_valueNotAllowed_refused() {
    assertThatThrownBy(() -> ReproductionParameter.oneOf("mtu", "MTU", 1500, 9000)
        .declareChoice("9000", List.of("1500", "4000", "9000"), "s"))
        .isInstanceOf(UserInputException.class).hasMessageContaining("[4000]");
  }

  @Test
  void seed_hasNoDomain() {
    ReproductionParameter<Long> seed = ReproductionParameter.seed("the seed");
    assertThat(seed.domain()).isEmpty();
    assertThat(seed.defaultValue()).isEmpty();
    assertThat(seed.inDomain("1")).isFalse();
  }

  @Test
  void domain_namedOtherwise_refused() {
    assertThatThrownBy(() -> ReproductionParameter.bool("smt-on", "SMT")
        .declare("true", new Dimension.Choice("smt", List.of("true", "false"), "s")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[smt]");
  }
}
