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
 * How a printed replay command starts, so that it reproduces through {@code ./lockvisor}: {@code
 * lockvisor} when every plugin comes with lockvisor, else {@code lockvisor --plugins <jars>} naming
 * the jars the plugins came from — those given with {@code --plugins} (or {@code
 * LOCKVISOR_PLUGINS}) and those that were on the class path of a {@code java -cp ...
 * org.lockvisor.cli.Lockvisor} launch, so a run started either way replays through the launcher.
 */
final class ReplayLauncher {

  private ReplayLauncher() {}

  /** The start of a replay command for this invocation and the plugins discovered in {@code plugins}. */
  static String of(Lockvisor lockvisor, ExperimentPlugins plugins) {
    String withFlag = lockvisor.launcher();
    return withFlag.equals("lockvisor") ? of(plugins) : withFlag;
  }

  /** The start of a replay command for the plugins discovered in {@code plugins} (class-path jars). */
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
    return launcher(List.copyOf(jars));
  }

  /**
   * Whether {@code type} ships with lockvisor: its package is lockvisor's own (the module jars of a
   * build, or the one jar of a release), not the {@code examples} plugins nor a third party's.
   */
  static boolean isBuiltIn(Class<?> type) {
    String name = type.getName();
    return name.startsWith("org.lockvisor.") && !name.startsWith("org.lockvisor.examples.");
  }

  /** {@code lockvisor}, or {@code lockvisor --plugins <jars>}. */
  static String launcher(List<Path> pluginJars) {
    if (pluginJars.isEmpty()) {
      return "lockvisor";
    }
    List<String> jars = new ArrayList<>();
    pluginJars.forEach(j -> jars.add(j.toString()));
    return "lockvisor --plugins " + CheckOptions.quote(String.join(java.io.File.pathSeparator, jars));
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
