package ${package};

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.lockvisor.arch.builtin.X86KvmArchProfile;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.ArchProfileFactory;
import org.lockvisor.arch.spi.Cost;
import org.lockvisor.arch.spi.CostKey;

/**
 * The profile is well formed (its name is the factory's, every cost key has a value or is marked
 * not applicable, every value has a source), differs from its base exactly where it says, and is
 * found by ServiceLoader like a built-in.
 */
class ${className}Test {

  private final ArchProfile profile = new ${className}Factory().create();

  @Test
  void profile_nameIsTheFactorys() {
    assertThat(profile.name()).isEqualTo(${className}Factory.NAME);
  }

  @Test
  void costs_everyKeyPricedWithASource() {
    for (CostKey key : CostKey.values()) {
      Cost cost = profile.costs().cost(key);
      assertThat(cost).as("cost %s", key).isNotNull();
      assertThat(cost.source().reference()).as("source of %s", key).isNotBlank();
    }
  }

  @Test
  void costs_differFromTheBaseOnlyWhereChanged() {
    ArchProfile base = new X86KvmArchProfile().create();
    for (CostKey key : CostKey.values()) {
      if (key == CostKey.HALT_POLL) {
        assertThat(profile.ns(key)).isEqualTo(200_000);
        assertThat(base.ns(key)).isNotEqualTo(200_000);
      } else {
        assertThat(profile.costs().cost(key)).as("cost %s", key).isEqualTo(base.costs().cost(key));
      }
    }
  }

  @Test
  void serviceLoader_findsThePlugin() {
    assertThat(ServiceLoader.load(ArchProfileFactory.class).stream().map(p -> p.get().name()))
        .contains(${className}Factory.NAME, "x86_64-kvm");
  }
}
