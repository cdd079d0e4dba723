package org.lockvisor.cli.inject;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.inject.ConfigurationException;
import com.google.inject.Injector;
import com.google.inject.Key;
import com.google.inject.Stage;
import com.google.inject.TypeLiteral;
import jakarta.inject.Inject;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.plugin.PluginDescriptor;
import org.lockvisor.core.plugin.PluginDiscoveryException;
import org.lockvisor.core.plugin.PluginKind;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.reproductions.api.Reproductions;

/**
 * The composition root is strict (production stage, explicit bindings only) and binds every
 * discovered plugin into a name-keyed, name-sorted MapBinder that the catalog reads back.
 */
class BootstrapTest {

  private static final ClassLoader LOADER = BootstrapTest.class.getClassLoader();
  private static final PluginKinds TEST_KINDS = PluginKinds.of(
      PluginKind.of("widget", Widgets.Widget.class), PluginKind.of("sprocket", Widgets.Sprocket.class));

  /** Has an @Inject constructor but is bound nowhere: a just-in-time binding would find it. */
  static final class Unbound {
    @Inject
    Unbound() {}
  }

  private static Injector testInjector() {
    return Bootstrap.createInjector(PluginModule.discover(TEST_KINDS, LOADER));
  }

  @Test
  void createInjector_productionStage() {
    assertThat(testInjector().getInstance(Stage.class)).isEqualTo(Stage.PRODUCTION);
  }

  @Test
  void createInjector_justInTimeBinding_refused() {
    Injector injector = testInjector();

    assertThatThrownBy(() -> injector.getInstance(Unbound.class))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("Explicit bindings are required");
  }

  @Test
  void pluginModule_mapBinderKeyedByNameInNameOrder() {
    Map<String, Widgets.Widget> widgets =
        testInjector().getInstance(Key.get(new TypeLiteral<Map<String, Widgets.Widget>>() {}));

    assertThat(widgets.keySet()).containsExactly("mcs", "qspinlock", "ticket");
    assertThat(widgets.get("mcs")).isInstanceOf(Widgets.Mcs.class);
  }

  @Test
  void pluginModule_kindWithNoPlugins_emptyMap() {
    assertThat(testInjector().getInstance(Key.get(new TypeLiteral<Map<String, Widgets.Sprocket>>() {}))).isEmpty();
  }

  @Test
  void pluginModule_duplicateName_failsBeforeInjectorWithBothClasses() {
    PluginKinds clash = PluginKinds.of(PluginKind.of("clash", Widgets.Clash.class));

    assertThatThrownBy(() -> PluginModule.discover(clash, LOADER))
        .isInstanceOf(PluginDiscoveryException.class)
        .hasMessageContaining("[twin]")
        .hasMessageContaining(Widgets.ClashOne.class.getName())
        .hasMessageContaining(Widgets.ClashTwo.class.getName());
  }

  @Test
  void pluginKinds_sameKindTwice_rejected() {
    assertThatThrownBy(() -> PluginKinds.of(
            PluginKind.of("widget", Widgets.Widget.class), PluginKind.of("widget", Widgets.Sprocket.class)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("plugin kind [widget] is listed twice");
  }

  @Test
  void catalog_listsAllKindsSortedWithMetadata() {
    PluginCatalog catalog = testInjector().getInstance(PluginCatalog.class);

    assertThat(catalog.kinds()).containsExactly("sprocket", "widget");
    assertThat(catalog.all()).extracting(PluginDescriptor::name).containsExactly("mcs", "qspinlock", "ticket");
    assertThat(catalog.ofKind("widget").get(0).capabilities()).containsExactly("fifo");
    assertThat(catalog.ofKind("sprocket")).isEmpty();
  }

  @Test
  void catalog_unknownKind_userInputWithSuggestion() {
    PluginCatalog catalog = testInjector().getInstance(PluginCatalog.class);

    assertThatThrownBy(() -> catalog.ofKind("widgte"))
        .isInstanceOf(UserInputException.class)
        .hasMessage("unknown plugin kind [widgte]; known: [sprocket, widget]; did you mean [widget]?");
  }

  @Test
  void standard_bindsReproductionsFromServiceRegistrations() {
    Injector injector = Bootstrap.standard(LOADER);

    // The shipped reproductions register themselves with @AutoService in lockvisor-reproductions.
    assertThat(injector.getInstance(Reproductions.class).names())
        .contains("vhost-wakeup", "virtio-blk-notify", "vcpu-preempted");
    assertThat(injector.getInstance(PluginCatalog.class).ofKind("reproduction"))
        .extracting(PluginDescriptor::name)
        .contains("vhost-wakeup", "virtio-blk-notify", "vcpu-preempted");
  }
}
