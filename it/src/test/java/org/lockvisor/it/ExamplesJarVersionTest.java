package org.lockvisor.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * The packaged examples jar (a lock and a device built only against the SPI) names the project's
 * version in its manifest, which is what {@code lockvisor plugins} prints as its plugins' version
 * ({@code Plugin.version()}); without it they reported {@code dev}.
 */
class ExamplesJarVersionTest {

  @Test
  void examplesJar_manifestCarriesTheProjectsVersion() throws Exception {
    String version = System.getProperty("lockvisor.version");
    Path jar = Path.of(System.getProperty("lockvisor.root"), "examples", "target",
        "lockvisor-examples-" + version + ".jar");
    assertThat(jar).as("built by the reactor before this module").exists();

    try (JarFile file = new JarFile(jar.toFile())) {
      assertThat(file.getManifest().getMainAttributes().getValue("Implementation-Version")).isEqualTo(version);
    }
    assertThat(Files.size(jar)).isPositive();
  }
}
