package org.lockvisor.reproductions.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.lockvisor.arch.catalog.ArchProfiles;
import org.lockvisor.arch.spi.Cost;
import org.lockvisor.arch.spi.CostKey;
import org.lockvisor.reproductions.api.Reproduction;
import org.lockvisor.reproductions.api.ReproductionParameter;
import org.lockvisor.reproductions.vcpupreempted.VcpuPreemptedReproduction;
import org.lockvisor.reproductions.vhost.VhostWakeupReproduction;
import org.lockvisor.reproductions.virtioblk.VirtioBlkNotifyReproduction;

/**
 * Property: every seed reproduction declares the plausible domain of at least one setup parameter
 * (default inside, source given), and every cost its envelope samples is an estimate of one of its
 * own profiles with a range holding the profile's value.
 */
class DeclaredDomainsTest {

  static Stream<Reproduction> reproductions() {
    return Stream.of(new VhostWakeupReproduction(), new VirtioBlkNotifyReproduction(), new VcpuPreemptedReproduction());
  }

  @ParameterizedTest
  @MethodSource("reproductions")
  void setupParameters_declareDefaultRangeAndSource(Reproduction r) {
    List<ReproductionParameter<?>> declared = r.parameters().stream().filter(p -> p.domain().isPresent()).toList();
    assertThat(declared).as(r.name()).isNotEmpty();
    for (ReproductionParameter<?> p : declared) {
      assertThat(p.inDomain(p.defaultValue().orElseThrow())).as(p.name()).isTrue();
      assertThat(p.domain().get().source()).as(p.name()).isNotBlank();
    }
    assertThat(r.parameters()).filteredOn(p -> p.name().equals("seed") || p.name().equals("seeds"))
        .allSatisfy(p -> assertThat(p.domain()).isEmpty());
  }

  @ParameterizedTest
  @MethodSource("reproductions")
  void envelopeCosts_areRangedEstimatesOfTheReproductionsProfiles(Reproduction r) {
    assertThat(r.envelopeCosts()).as(r.name()).isNotEmpty();
    for (String key : r.envelopeCosts()) {
      String[] parts = key.split("\\.");
      assertThat(parts).as(key).hasSize(3);
      assertThat(parts[0]).isEqualTo("cost");
      assertThat(r.archProfiles()).as(key).contains(parts[1]);
      Cost c = ArchProfiles.byName(parts[1]).costs().cost(CostKey.valueOf(parts[2]));
      assertThat(c.source().confidence()).as(key).isEqualTo(Cost.Confidence.E);
      assertThat(c.range()).as(key).hasValueSatisfying(range -> assertThat(range.contains(c.value())).isTrue());
    }
  }
}
