package org.lockvisor.experiment.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.core.plugin.PluginDiscoveryException;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockFactory;

/**
 * A plugin name becomes an object in one place: the registry finds each kind's plugins, refuses
 * two plugins of one kind under one name (naming both classes) instead of keeping the first one
 * silently, and answers an unknown name with the known names and a suggestion.
 */
class PluginRegistryTest {

  /** A lock plugin that takes the built-in ticket lock's name, as a second jar on the path might. */
  public static final class ShadowTicket implements LockFactory {
    @Override
    public String name() {
      return "ticket";
    }

    @Override
    public String summary() {
      return "a second ticket lock, for the duplicate-name test";
    }

    @Override
    public LockKind lockKind() {
      return LockKind.SPINLOCK;
    }

    @Override
    public KernelLock create(LockContext context) {
      throw new UnsupportedOperationException("never created");
    }
  }

  @Test
  void discover_secondJarRegistersBuiltInLockName_failsNamingBothClasses(@TempDir Path jar) throws IOException {
    Path services = jar.resolve("META-INF/services");
    Files.createDirectories(services);
    Files.writeString(services.resolve(LockFactory.class.getName()), ShadowTicket.class.getName() + "\n");
    String builtIn = PluginRegistry.classPath().get(PluginRegistry.LOCK, "ticket").getClass().getName();
    try (URLClassLoader withShadow = new URLClassLoader(new URL[] {jar.toUri().toURL()},
        getClass().getClassLoader())) {
      assertThatThrownBy(() -> ExperimentPlugins.discover(withShadow))
          .isInstanceOf(PluginDiscoveryException.class)
          .hasMessageContaining("duplicate")
          .hasMessageContaining("[ticket]")
          .hasMessageContaining(ShadowTicket.class.getName())
          .hasMessageContaining(builtIn);
    }
  }

  @Test
  void register_sameKindAndNameTwice_failsNamingBothClasses() {
    LockFactory builtIn = PluginRegistry.classPath().get(PluginRegistry.LOCK, "ticket");
    PluginRegistry.Builder builder = PluginRegistry.builder().register(PluginRegistry.LOCK, builtIn);

    assertThatThrownBy(() -> builder.register(PluginRegistry.LOCK, new ShadowTicket()))
        .isInstanceOf(PluginDiscoveryException.class)
        .hasMessageContaining("duplicate lock plugin name [ticket]")
        .hasMessageContaining(builtIn.getClass().getName())
        .hasMessageContaining(ShadowTicket.class.getName());
  }

  @Test
  void get_knownKindAndName_returnsThatPlugin() {
    PluginRegistry registry = PluginRegistry.builder().register(PluginRegistry.LOCK, new ShadowTicket()).build();

    assertThat(registry.get(PluginRegistry.LOCK, "ticket")).isInstanceOf(ShadowTicket.class);
    assertThat(registry.all(PluginRegistry.LOCK).keySet()).containsExactly("ticket");
    assertThat(registry.all(PluginRegistry.DEVICE)).isEmpty();
  }

  @Test
  void get_classPathRegistry_holdsEveryMachineKind() {
    PluginRegistry registry = PluginRegistry.classPath();

    assertThat(registry.kinds()).containsExactlyElementsOf(PluginRegistry.MACHINE_KINDS);
    assertThat(registry.get(PluginRegistry.SCHEDULER, "cfs").name()).isEqualTo("cfs");
    assertThat(registry.archProfile("x86_64-kvm").name()).isEqualTo("x86_64-kvm");
    assertThat(registry.experimentPlugins().locks()).isEqualTo(registry.all(PluginRegistry.LOCK));
  }

  @Test
  void get_mistypedName_listsKnownNamesAndSuggests() {
    assertThatThrownBy(() -> PluginRegistry.classPath().get(PluginRegistry.LOCK, "tiket"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("unknown lock plugin [tiket]; known: [")
        .hasMessageContaining("did you mean [ticket]?");
  }

  @Test
  void get_nameOfAnotherKind_notFound() {
    assertThatThrownBy(() -> PluginRegistry.classPath().get(PluginRegistry.SCHEDULER, "ticket"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("unknown scheduler plugin [ticket]");
  }
}
