package org.lockvisor.studies.envelope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.lockvisor.experiment.UserInputException;

/**
 * Property: a {@code --param} spec parses to a name and a numeric range (whole or real, optionally
 * log-uniform) or a set, and narrows a declared range only from inside it.
 */
class RangeSpecTest {

  @Test
  void wholeRange_parsesToWholeDimension() {
    Dimension d = RangeSpec.parse("vms[0].vcpus=2..16").dimension("cli");
    assertThat(d).isEqualTo(new Dimension.Whole("vms[0].vcpus", 2, 16, false, "cli"));
  }

  @Test
  void realLogRange_parsesToContinuousLog() {
    Dimension d = RangeSpec.parse("cost.x86_64-kvm.EXIT_USERSPACE=5000.5..15000:log").dimension("cli");
    assertThat(d).isEqualTo(new Dimension.Continuous("cost.x86_64-kvm.EXIT_USERSPACE", 5000.5, 15000, true, "cli"));
  }

  @Test
  void set_parsesToChoice() {
    assertThat(RangeSpec.parse("mtu=1500|9000").dimension("cli"))
        .isEqualTo(new Dimension.Choice("mtu", List.of("1500", "9000"), "cli"));
  }

  @Test
  void bareName_takesTheDeclaredRange_andANarrowerOneInside() {
    Dimension declared = new Dimension.Whole("vcpus", 1, 8, false, "page");
    assertThat(RangeSpec.parse("vcpus").within(declared, "r vcpus")).isSameAs(declared);
    assertThat(RangeSpec.parse("vcpus=2..4").within(declared, "r vcpus")).isEqualTo(
        new Dimension.Whole("vcpus", 2, 4, false, "--param vcpus=2..4, within page"));
  }

  @Test
  void rangeOutsideTheDeclaredOne_refusedNamingBoth() {
    Dimension declared = new Dimension.Continuous("cost.p.K", 500, 1500, false, "estimate");
    assertThatThrownBy(() -> RangeSpec.parse("cost.p.K=100..1000").within(declared, "p K"))
        .isInstanceOf(UserInputException.class).hasMessage("--param [cost.p.K=100..1000]: the range lies outside the"
            + " declared range [500, 1500] of p K (estimate)");
  }

  @Test
  void malformed_refused() {
    assertThatThrownBy(() -> RangeSpec.parse("x=1..")).hasMessageContaining("LOW..HIGH");
    assertThatThrownBy(() -> RangeSpec.parse("x=5..1")).hasMessageContaining("LOW < HIGH");
    assertThatThrownBy(() -> RangeSpec.parse("x=0..1:log")).hasMessageContaining("LOW > 0");
    assertThatThrownBy(() -> RangeSpec.parse("x=a|a")).hasMessageContaining("distinct");
    assertThatThrownBy(() -> RangeSpec.parse("1x=1..2")).hasMessageContaining("not a parameter name");
    assertThatThrownBy(() -> RangeSpec.parse("x").dimension("cli")).hasMessageContaining("give one");
  }
}
