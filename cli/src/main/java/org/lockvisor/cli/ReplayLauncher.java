package org.lockvisor.cli;

import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.lockvisor.core.plugin.Plugin;
import org.lockvisor.experiment.model.ExperimentPlugins;

/**
 * How a printed replay command starts, so that it reproduces as printed: {@code lockvisor} when
 * every plugin comes with lockvisor, and, when plugins were loaded from jars (or directories) of
 * their own (a third-party plugin, the {@code examples} jar), {@code java -cp <lockvisor jar>:<plugin jars>
 * org.lockvisor.cli.Lockvisor} — the form that loads plugin jars today. When the launcher takes
 * plugin jars itself ({@code ./lockvisor --plugins PATH}), {@link #launcher} is the one place to
 * change.
 */
final class ReplayLauncher {

  private ReplayLauncher() {}

  /** The start of a replay command for the plugins discovered in {@code plugins}. */
  static String of(ExperimentPlugins plugins) {
    Path own = location(Lockvisor.class);
    TreeSet<Path> jars = new TreeSet<>();
    Stream.of(plugins.arches(), plugins.schedulers(), plugins.locks(), plugins.devices(), plugins.workloads())
        .flatMap(m -> m.values().stream())
        .map(p -> ((Plugin) p).getClass())
        .filter(type -> !isBuiltIn(type))
        .map(ReplayLauncher::location)
        .filter(p -> p != null && !p.equals(own))
        .forEach(jars::add);
    return launcher(own, List.copyOf(jars));
  }

  /**
   * Whether {@code type} ships with lockvisor: its package is lockvisor's own (the module jars of a
   * build, or the one jar of a release), not the {@code examples} plugins nor a third party's.
   */
  static boolean isBuiltIn(Class<?> type) {
    String name = type.getName();
    return name.startsWith("org.lockvisor.") && !name.startsWith("org.lockvisor.examples.");
  }

  /** {@code lockvisor}, or the {@code java -cp} form naming {@code own} and the plugin jars. */
  static String launcher(Path own, List<Path> pluginJars) {
    if (pluginJars.isEmpty() || own == null) {
      return "lockvisor";
    }
    List<String> classPath = new ArrayList<>();
    classPath.add(own.toString());
    pluginJars.forEach(j -> classPath.add(j.toString()));
    return "java -cp " + CheckOptions.quote(String.join(java.io.File.pathSeparator, classPath)) + " "
        + Lockvisor.class.getName();
  }

  private static Path location(Class<?> type) {
    CodeSource source = type.getProtectionDomain().getCodeSource();
    URL url = source == null ? null : source.getLocation();
    try {
      return url == null ? null : Path.of(url.toURI()).toAbsolutePath().normalize();
    } catch (URISyntaxException | IllegalArgumentException | SecurityException e) {
      return null;
    }
  }
}
