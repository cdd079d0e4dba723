package org.lockvisor.reproductions.api;

import java.io.IOException;
import java.net.URL;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.lockvisor.core.plugin.PluginDiscovery;
import org.lockvisor.core.plugin.PluginDiscoveryException;

/**
 * The discovery check of the reproductions' shipped experiment files ({@link
 * Reproduction#experimentFiles()}). Every jar ships its files into one class-path folder, {@link
 * Reproduction#EXPERIMENTS}, and a {@code --plugins} jar's loader asks lockvisor's loader first: a
 * plugin that shipped {@code r1-vhost-wakeup.yaml} would silently run the built-in's file, and of
 * two plugins shipping one name the second would run the first's. So each declared file must be on
 * its reproduction's class path exactly once, in the reproduction's own jar; anything else is
 * refused at start-up in one line that names the jars, as a duplicate plugin name is. The way to
 * stay clear of other jars is a file name that starts with the reproduction's own (unique) name,
 * e.g. {@code my-repro-base.yaml} for reproduction {@code my-repro}.
 */
public final class ShippedExperimentFiles {

  /** A file's base name: lower case, digits, {@code .}, {@code _}, {@code -} (what {@code ShippedExperiment} loads). */
  private static final String NAME = "[a-z0-9][a-z0-9._-]*";

  private ShippedExperimentFiles() {}

  /**
   * Checks the shipped files of {@code reproductions}, in order.
   *
   * @throws PluginDiscoveryException for the first file with a bad name, missing from the
   *     reproduction's jar, shipped by another jar as well, or shipped only by another jar
   */
  public static void check(Iterable<? extends Reproduction> reproductions) {
    for (Reproduction r : reproductions) {
      for (String file : r.experimentFiles()) {
        check(r, file);
      }
    }
  }

  private static void check(Reproduction r, String file) {
    Class<?> type = r.getClass();
    String own = PluginDiscovery.origin(type);
    String who = "reproduction [" + r.name() + "] (" + where(own) + ")";
    if (file == null || !file.matches(NAME)) {
      throw new PluginDiscoveryException(who + ": bad shipped experiment file name [" + file + "]; names match "
          + NAME + ", without .yaml");
    }
    String resource = Reproduction.EXPERIMENTS + file + ".yaml";
    ClassLoader loader = type.getClassLoader() == null ? ClassLoader.getSystemClassLoader() : type.getClassLoader();
    Set<String> containers = new LinkedHashSet<>();
    try {
      for (URL url : Collections.list(loader.getResources(resource))) {
        containers.add(container(url.toString(), resource));
      }
    } catch (IOException e) {
      throw new PluginDiscoveryException(who + ": cannot look up its shipped experiment [" + resource + "]: " + e, e);
    }
    if (containers.isEmpty()) {
      throw new PluginDiscoveryException(who + " declares shipped experiment [" + file + "] but its jar has no ["
          + resource + "]");
    }
    boolean known = !own.equals("unknown location");
    List<String> others = containers.stream().filter(c -> !known || !same(c, own)).toList();
    if (known && others.size() == containers.size()) {
      throw new PluginDiscoveryException(who + " declares shipped experiment [" + file + "], which only "
          + others.stream().map(c -> "[" + where(c) + "]").collect(Collectors.joining(" and "))
          + " ships; a reproduction runs the files of its own jar"
          + (others.size() > 1 ? ", and names must be unique across jars" : ""));
    }
    if (containers.size() > 1) {
      throw new PluginDiscoveryException(who + " ships experiment file [" + file + ".yaml], and so does ["
          + where(others.get(0)) + "]: shipped files share one class-path folder (" + Reproduction.EXPERIMENTS
          + "), so their names must be unique; " + (file.startsWith(r.name() + "-") ? "rename one of them"
          : "start a plugin's file names with its own name, e.g. [" + r.name() + "-" + file + ".yaml]"));
    }
  }

  /** The jar or folder a resource URL lies in: {@code file:/a/b.jar} of {@code jar:file:/a/b.jar!/<resource>}. */
  static String container(String url, String resource) {
    if (url.startsWith("jar:")) {
      int bang = url.lastIndexOf("!/");
      return bang < 0 ? url.substring(4) : url.substring(4, bang);
    }
    return url.endsWith(resource) ? url.substring(0, url.length() - resource.length()) : url;
  }

  private static boolean same(String container, String codeSource) {
    return strip(container).equals(strip(codeSource));
  }

  private static String strip(String location) {
    String s = location.startsWith("jar:") ? location.substring(4) : location;
    if (s.endsWith("!/")) {
      s = s.substring(0, s.length() - 2);
    }
    return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
  }

  /** A location as a path where it is a file URL (messages name jars as users wrote them). */
  private static String where(String location) {
    return location.startsWith("file:") ? location.substring("file:".length()) : location;
  }
}
