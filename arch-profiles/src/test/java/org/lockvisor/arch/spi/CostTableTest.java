package org.lockvisor.arch.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Property: a cost table holds exactly one sourced, non-negative cost per key; durations read
 * through ns() are the value in ns, cycle-priced keys converted with CPU_CYCLE; non-durations are
 * refused by ns().
 */
class CostTableTest {

  /** Every key at 10 in its unit, CPU_CYCLE at 0.5 ns. */
  private static CostTable.Builder full() {
    CostTable.Builder b = CostTable.builder();
    for (CostKey k : CostKey.values()) {
      b.put(k, 10, Cost.Confidence.E, "test estimate 5-20");
    }
    return b.put(CostKey.CPU_CYCLE, 0.5, Cost.Confidence.M, "test clock 2 GHz");
  }

  @Test
  void build_missingKeys_errorListsEveryMissingKey() {
    List<Cost> some = new ArrayList<>(full().build().costs());
    some.removeIf(c -> c.key() == CostKey.PAUSE || c.key() == CostKey.H_PROD);

    assertThatThrownBy(() -> CostTable.of(some))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("missing: [PAUSE, H_PROD]");
  }

  @Test
  void of_duplicateKey_rejected() {
    List<Cost> all = new ArrayList<>(full().build().costs());
    all.add(Cost.of(CostKey.PAUSE, 3, Cost.Confidence.E, "second estimate 1-5"));

    assertThatThrownBy(() -> CostTable.of(all)).hasMessageContaining("duplicated: [PAUSE]");
  }

  @Test
  void ns_cycleKey_convertedWithCpuCycle() {
    CostTable t = full().put(CostKey.HYPERCALL, 6500, Cost.Confidence.M, "test").build();

    assertThat(t.value(CostKey.HYPERCALL)).isEqualTo(6500);
    assertThat(t.ns(CostKey.HYPERCALL)).isEqualTo(3250);
  }

  @Test
  void ns_nanosecondKey_roundedToNearest() {
    CostTable t = full().put(CostKey.PAUSE, 3.6, Cost.Confidence.E, "test 1-5").build();

    assertThat(t.ns(CostKey.PAUSE)).isEqualTo(4);
    assertThat(t.value(CostKey.PAUSE)).isEqualTo(3.6);
  }

  @Test
  void ns_countOrRateKey_refusedWithHint() {
    CostTable t = full().build();

    assertThatThrownBy(() -> t.ns(CostKey.SPIN_THRESHOLD_LOOPS)).hasMessageContaining("use value()");
    assertThatThrownBy(() -> t.ns(CostKey.MEMCPY_PER_BYTE)).hasMessageContaining("ns/B");
  }

  @Test
  void cost_negativeOrNaN_rejectedWithValue() {
    assertThatThrownBy(() -> Cost.of(CostKey.PAUSE, -1, Cost.Confidence.E, "x"))
        .hasMessage("PAUSE must be a finite non-negative number: [-1.0]");
    assertThatThrownBy(() -> Cost.of(CostKey.PAUSE, Double.NaN, Cost.Confidence.E, "x"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void cost_fractionalCount_rejected() {
    assertThatThrownBy(() -> Cost.of(CostKey.SPIN_THRESHOLD_LOOPS, 1.5, Cost.Confidence.E, "x"))
        .hasMessageContaining("must be whole");
  }

  @Test
  void cost_blankSource_rejected() {
    assertThatThrownBy(() -> Cost.of(CostKey.PAUSE, 1, Cost.Confidence.E, " "))
        .hasMessageContaining("needs a reference");
  }

  @Test
  void build_zeroCpuCycle_rejected() {
    assertThatThrownBy(() -> full().put(CostKey.CPU_CYCLE, 0, Cost.Confidence.E, "x").build())
        .hasMessageContaining("CPU_CYCLE must be positive");
  }

  @Test
  void with_override_replacesOnlyThatKey() {
    CostTable base = full().build();

    CostTable t = base.with(List.of(Cost.of(CostKey.PAUSE, 50, Cost.Confidence.M, "Skylake")));

    assertThat(t.ns(CostKey.PAUSE)).isEqualTo(50);
    assertThat(base.ns(CostKey.PAUSE)).isEqualTo(10);
    assertThat(t.cost(CostKey.ATOMIC_RMW)).isEqualTo(base.cost(CostKey.ATOMIC_RMW));
  }

  @Test
  void notApplicable_zeroAndMarked() {
    Cost c = Cost.notApplicable(CostKey.H_CEDE, "PowerVM only");

    assertThat(c.value()).isZero();
    assertThat(c.isNotApplicable()).isTrue();
    assertThat(Cost.of(CostKey.H_CEDE, 0, Cost.Confidence.E, "estimate 0-1").isNotApplicable()).isFalse();
  }
}
