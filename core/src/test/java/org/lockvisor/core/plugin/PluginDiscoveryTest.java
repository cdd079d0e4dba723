package org.lockvisor.core.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.collect.ImmutableSortedMap;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** Discovery finds what is registered, sorted by name, and refuses inconsistent registrations loudly. */
class PluginDiscoveryTest {

  private final ClassLoader loader = getClass().getClassLoader();

  @Test
  void discover_registeredPlugins_sortedByNameRegardlessOfRegistrationOrder() {
    ImmutableSortedMap<String, TestPlugins.Widget> widgets = PluginDiscovery.discover(TestPlugins.Widget.class, loader);

    assertThat(widgets.keySet()).containsExactly("alpha", "zulu");
    assertThat(widgets.get("alpha")).isInstanceOf(TestPlugins.AlphaWidget.class);
  }

  @Test
  void discover_nothingRegistered_emptyMap() {
    assertThat(PluginDiscovery.discover(TestPlugins.Unregistered.class, loader)).isEmpty();
  }

  @Test
  void discover_duplicateName_failsNamingBothClasses() {
    assertThatThrownBy(() -> PluginDiscovery.discover(TestPlugins.Gadget.class, loader))
        .isInstanceOf(PluginDiscoveryException.class)
        .hasMessageContaining("duplicate Gadget plugin name [same]")
        .hasMessageContaining(TestPlugins.FirstSameGadget.class.getName())
        .hasMessageContaining(TestPlugins.SecondSameGadget.class.getName());
  }

  @Test
  void discover_malformedName_failsNamingClassAndRule() {
    assertThatThrownBy(() -> PluginDiscovery.discover(TestPlugins.Gizmo.class, loader))
        .isInstanceOf(PluginDiscoveryException.class)
        .hasMessageContaining("[Bad_Name]")
        .hasMessageContaining(TestPlugins.UpperCaseGizmo.class.getName())
        .hasMessageContaining("[a-z0-9][a-z0-9_-]*");
  }

  @Test
  void discover_pluginReportsOtherKind_fails() {
    assertThatThrownBy(() -> PluginDiscovery.discover(PluginKind.of("lock", TestPlugins.Widget.class), loader))
        .isInstanceOf(PluginDiscoveryException.class)
        .hasMessageContaining("reports kind [widget], expected [lock]");
  }

  @Test
  void discover_withMatchingKind_succeeds() {
    assertThat(PluginDiscovery.discover(PluginKind.of("widget", TestPlugins.Widget.class), loader))
        .containsOnlyKeys("alpha", "zulu");
  }

  @Test
  void discover_logsEachRegistrationWithItsOrigin() {
    Logger logger = Logger.getLogger(PluginDiscovery.class.getName());
    List<LogRecord> records = new ArrayList<>();
    Handler handler = new Handler() {
      @Override
      public void publish(LogRecord record) {
        records.add(record);
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    Level previous = logger.getLevel();
    logger.setLevel(Level.FINE);
    logger.addHandler(handler);
    try {
      PluginDiscovery.discover(TestPlugins.Widget.class, loader);
    } finally {
      logger.removeHandler(handler);
      logger.setLevel(previous);
    }

    assertThat(records).hasSize(2).allSatisfy(r -> assertThat(r.getLevel()).isEqualTo(Level.FINE));
    assertThat(records).anySatisfy(r -> assertThat(r.getMessage())
        .contains("[alpha]", TestPlugins.AlphaWidget.class.getName(), "test-classes"));
  }

  @Test
  void isValidName_acceptsKebabAndSnake_rejectsOthers() {
    assertThat(PluginDiscovery.isValidName("pv-qspinlock")).isTrue();
    assertThat(PluginDiscovery.isValidName("x86_64-kvm")).isTrue();
    assertThat(PluginDiscovery.isValidName("-ticket")).isFalse();
    assertThat(PluginDiscovery.isValidName("Ticket")).isFalse();
    assertThat(PluginDiscovery.isValidName("")).isFalse();
    assertThat(PluginDiscovery.isValidName("a b")).isFalse();
  }
}
