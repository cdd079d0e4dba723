package org.lockvisor.arch.builtin;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lockvisor.arch.catalog.ArchProfileMarkdown;
import org.lockvisor.arch.catalog.ArchProfiles;
import org.lockvisor.arch.spi.ArchProfile;

/**
 * Property: each built-in's page in docs/plugins shows exactly the constants, sources and
 * hypervisor behaviour in the code. Regenerate the marked sections with
 * {@code mvn -pl arch-profiles -am verify -Dlockvisor.regenerateDocs=true}.
 */
class PluginDocsTest {

  private static final Path DOCS = Path.of("..", "docs", "plugins");
  private static final boolean REGENERATE = Boolean.getBoolean("lockvisor.regenerateDocs");

  @ParameterizedTest
  @ValueSource(strings = {"x86_64-kvm", "arm64-kvm", "ppc64-powervm", "s390x-kvm"})
  void pluginPage_generatedSectionsMatchCode(String name) throws IOException {
    ArchProfile p = ArchProfiles.byName(name);
    Path page = DOCS.resolve(name + ".md");
    assertThat(page).as("plugin page for %s", name).exists();
    String text = Files.readString(page, StandardCharsets.UTF_8);

    String updated = replaceSection(text, "costs", ArchProfileMarkdown.costTable(p));
    updated = replaceSection(updated, "hypervisor", ArchProfileMarkdown.hypervisorTable(p));
    if (REGENERATE && !updated.equals(text)) {
      Files.writeString(page, updated, StandardCharsets.UTF_8);
      text = updated;
    }
    assertThat(text).as("%s is out of date; rerun with -Dlockvisor.regenerateDocs=true", page).isEqualTo(updated);
  }

  private static String replaceSection(String text, String section, String body) {
    String begin = "<!-- BEGIN GENERATED: " + section + " -->\n";
    String end = "<!-- END GENERATED: " + section + " -->";
    int b = text.indexOf(begin);
    int e = text.indexOf(end);
    assertThat(b).as("marker %s", begin.strip()).isNotNegative();
    assertThat(e).as("marker %s", end).isGreaterThan(b);
    return text.substring(0, b + begin.length()) + body + text.substring(e);
  }
}
