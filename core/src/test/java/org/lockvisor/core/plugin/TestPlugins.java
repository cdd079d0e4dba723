package org.lockvisor.core.plugin;

import java.util.List;
import java.util.Set;

/**
 * Test-only SPI interfaces and providers, registered in src/test/resources/META-INF/services so
 * that discovery runs through the real ServiceLoader.
 */
final class TestPlugins {

  private TestPlugins() {}

  /** Well-formed: two plugins with distinct names, registered out of order. */
  interface Widget extends Plugin {
    @Override
    default String kind() {
      return "widget";
    }
  }

  /** Two providers claim the same name. */
  interface Gadget extends Plugin {
    @Override
    default String kind() {
      return "gadget";
    }
  }

  /** One provider has a name that breaks the naming rule. */
  interface Gizmo extends Plugin {
    @Override
    default String kind() {
      return "gizmo";
    }
  }

  /** Nothing is registered for this one. */
  interface Unregistered extends Plugin {}

  public static final class AlphaWidget implements Widget {
    @Override
    public String name() {
      return "alpha";
    }

    @Override
    public String summary() {
      return "first widget";
    }

    @Override
    public Set<String> capabilities() {
      return Set.of("zeta", "fifo");
    }

    @Override
    public List<PluginOption> options() {
      return List.of(PluginOption.ofBoolean("fast", false, "go fast"));
    }
  }

  public static final class ZuluWidget implements Widget {
    @Override
    public String name() {
      return "zulu";
    }

    @Override
    public String summary() {
      return "last widget";
    }
  }

  public static final class FirstSameGadget implements Gadget {
    @Override
    public String name() {
      return "same";
    }

    @Override
    public String summary() {
      return "one of two";
    }
  }

  public static final class SecondSameGadget implements Gadget {
    @Override
    public String name() {
      return "same";
    }

    @Override
    public String summary() {
      return "two of two";
    }
  }

  public static final class UpperCaseGizmo implements Gizmo {
    @Override
    public String name() {
      return "Bad_Name";
    }

    @Override
    public String summary() {
      return "breaks the naming rule";
    }
  }
}
