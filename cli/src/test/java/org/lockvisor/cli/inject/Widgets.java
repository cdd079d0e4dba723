package org.lockvisor.cli.inject;

import java.util.Set;
import org.lockvisor.core.plugin.Plugin;

/** Test-only plugin kinds, registered in src/test/resources/META-INF/services. */
final class Widgets {

  private Widgets() {}

  /** Three registered plugins, listed out of name order in the services file. */
  public interface Widget extends Plugin {
    @Override
    default String kind() {
      return "widget";
    }
  }

  /** Nothing registered. */
  public interface Sprocket extends Plugin {
    @Override
    default String kind() {
      return "sprocket";
    }
  }

  /** Two registered plugins with the same name. */
  public interface Clash extends Plugin {
    @Override
    default String kind() {
      return "clash";
    }
  }

  abstract static class Named implements Widget {
    private final String name;

    Named(String name) {
      this.name = name;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public String summary() {
      return "widget " + name;
    }
  }

  public static final class Mcs extends Named {
    public Mcs() {
      super("mcs");
    }

    @Override
    public Set<String> capabilities() {
      return Set.of("fifo");
    }
  }

  public static final class Ticket extends Named {
    public Ticket() {
      super("ticket");
    }
  }

  public static final class Qspinlock extends Named {
    public Qspinlock() {
      super("qspinlock");
    }
  }

  public static final class ClashOne implements Clash {
    @Override
    public String name() {
      return "twin";
    }

    @Override
    public String summary() {
      return "first twin";
    }
  }

  public static final class ClashTwo implements Clash {
    @Override
    public String name() {
      return "twin";
    }

    @Override
    public String summary() {
      return "second twin";
    }
  }
}
