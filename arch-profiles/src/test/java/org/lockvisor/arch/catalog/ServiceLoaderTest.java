package org.lockvisor.arch.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.lockvisor.arch.spi.ArchProfileFactory;

/**
 * Property: AutoService registers exactly the four built-ins, with unique stable names that match
 * the profiles they create, and lookup by an unknown name lists the known ones.
 */
class ServiceLoaderTest {

  @Test
  void serviceLoader_findsExactlyFourBuiltInsWithUniqueNames() {
    List<String> names = new ArrayList<>();
    ServiceLoader.load(ArchProfileFactory.class).forEach(f -> names.add(f.name()));

    assertThat(names).doesNotHaveDuplicates()
        .containsExactlyInAnyOrder("x86_64-kvm", "arm64-kvm", "ppc64-powervm", "s390x-kvm");
  }

  @Test
  void discover_sortedByName_metadataMatchesProfile() {
    var all = ArchProfiles.discover();

    assertThat(all.keySet()).containsExactly("arm64-kvm", "ppc64-powervm", "s390x-kvm", "x86_64-kvm");
    all.forEach((name, f) -> {
      assertThat(f.kind()).isEqualTo("arch");
      assertThat(f.create().name()).isEqualTo(name);
      assertThat(f.summary()).isEqualTo(f.create().summary()).isNotBlank();
      assertThat(f.getClass()).isFinal();
    });
  }

  @Test
  void capabilities_derivedFromBehaviour() {
    var all = ArchProfiles.discover();

    assertThat(all.get("arm64-kvm").capabilities())
        .contains("spin-trap", "directed-yield", "notify-userspace-vmm-under-global-lock")
        .doesNotContain("vcpu-is-preempted", "steal-time");
    assertThat(all.get("ppc64-powervm").capabilities()).contains("vcpu-is-preempted", "dispatch-window")
        .doesNotContain("spin-trap");
  }

  @Test
  void byName_unknown_listsKnownAndSuggests() {
    assertThatThrownBy(() -> ArchProfiles.byName("x86-64-kvm"))
        .hasMessageContaining("unknown arch profile [x86-64-kvm]")
        .hasMessageContaining("did you mean [x86_64-kvm]")
        .hasMessageContaining("known: [arm64-kvm, ppc64-powervm, s390x-kvm, x86_64-kvm]");
  }
}
