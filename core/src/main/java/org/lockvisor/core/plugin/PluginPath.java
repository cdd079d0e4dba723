package org.lockvisor.core.plugin;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * Third-party plugin jars named on the command line ({@code --plugins PATH[:PATH...]}) or in the
 * {@code LOCKVISOR_PLUGINS} environment variable: each element is a jar, or a directory whose
 * {@code *.jar} files (not its subdirectories) are all taken, in name order.
 *
 * <p>All jars share <em>one</em> class loader whose parent is lockvisor's own. One, not one per
 * jar, because plugins meet only through lockvisor's SPI types, which must come from the parent
 * for a plugin to be a plugin at all; one loader lets a plugin jar use a helper jar next to it
 * (a device built on a third-party lock library) with nothing but the path, while isolation per
 * jar would buy freedom from library version clashes that plugins built against the bom (which
 * pins every shared library and marks it {@code provided}) do not have. Name clashes between
 * jars are caught anyway: discovery refuses duplicate plugin names and names both jars. The
 * parent is asked first, so a jar cannot replace a lockvisor class.
 */
public final class PluginPath {

  /** The environment variable read when {@code --plugins} is not given. */
  public static final String ENVIRONMENT_VARIABLE = "LOCKVISOR_PLUGINS";

  private final String source;
  private final ImmutableList<Path> jars;

  private PluginPath(String source, ImmutableList<Path> jars) {
    this.source = source;
    this.jars = jars;
  }

  /** No plugin jars. */
  public static PluginPath empty() {
    return new PluginPath("none", ImmutableList.of());
  }

  /**
   * Parses {@code spec}, a {@link File#pathSeparator}-separated list of jars and directories of
   * jars, named {@code source} in messages ({@code --plugins} or {@code LOCKVISOR_PLUGINS}).
   *
   * @throws PluginDiscoveryException naming {@code source} and the element, for an element that
   *     does not exist, a file that is not a jar, or a directory that holds no jar
   */
  public static PluginPath parse(String source, String spec) {
    checkArgument(source != null, "source must not be null");
    if (spec == null || spec.isBlank()) {
      throw new PluginDiscoveryException(source + ": empty plugin path; expected jars or directories of jars"
          + " separated by '" + File.pathSeparator + "'");
    }
    List<Path> jars = new ArrayList<>();
    for (String element : spec.split(File.pathSeparator, -1)) {
      if (element.isBlank()) {
        continue; // "a.jar::b.jar" or a trailing separator: tolerated, as in CLASSPATH
      }
      Path path = Path.of(element);
      if (Files.isDirectory(path)) {
        List<Path> inside = jarsIn(path);
        if (inside.isEmpty()) {
          throw new PluginDiscoveryException(source + ": directory [" + element + "] holds no .jar file");
        }
        jars.addAll(inside);
      } else if (!Files.exists(path)) {
        throw new PluginDiscoveryException(source + ": no such jar or directory [" + element + "]");
      } else if (!isJar(path)) {
        throw new PluginDiscoveryException(source + ": [" + element + "] is not a jar (expected a .jar file or a"
            + " directory of them)");
      } else {
        jars.add(path);
      }
    }
    if (jars.isEmpty()) {
      throw new PluginDiscoveryException(source + ": empty plugin path [" + spec + "]");
    }
    ImmutableList<Path> distinct = ImmutableList.copyOf(jars.stream().map(p -> p.toAbsolutePath().normalize())
        .distinct().toList());
    checkReadableAndDistinct(source, distinct);
    return new PluginPath(source, distinct);
  }

  /**
   * The plugin path of one invocation: {@code option} when given (even if the variable is set),
   * else {@code environment} when set and not blank, else none.
   */
  public static PluginPath of(String option, String environment) {
    if (option != null) {
      return parse("--plugins", option);
    }
    if (environment != null && !environment.isBlank()) {
      return parse(ENVIRONMENT_VARIABLE, environment);
    }
    return empty();
  }

  /** The jars, absolute, in path order without repeats. */
  public ImmutableList<Path> jars() {
    return jars;
  }

  /** Where the path came from: {@code --plugins}, {@code LOCKVISOR_PLUGINS} or {@code none}. */
  public String source() {
    return source;
  }

  /** {@code parent} itself when there are no jars, else one loader over every jar, parent first. */
  public ClassLoader loader(ClassLoader parent) {
    checkArgument(parent != null, "parent loader must not be null");
    if (jars.isEmpty()) {
      return parent;
    }
    URL[] urls = new URL[jars.size()];
    for (int i = 0; i < urls.length; i++) {
      try {
        urls[i] = jars.get(i).toUri().toURL();
      } catch (MalformedURLException e) {
        throw new PluginDiscoveryException(source + ": bad jar path [" + jars.get(i) + "]", e);
      }
    }
    return new URLClassLoader("lockvisor-plugins", urls, parent);
  }

  /**
   * Opens every jar as the class loader will (its central directory, which a truncated copy lacks:
   * the class loader would skip it without a word) and reads its service registrations: a provider
   * class registered by two jars is found only in the first (one loader, parent first, and
   * ServiceLoader lists a class once), so the second would be ignored silently; both jars are named.
   */
  private static void checkReadableAndDistinct(String source, List<Path> jars) {
    Map<String, Path> providers = new TreeMap<>();
    for (Path jar : jars) {
      try (JarFile file = new JarFile(jar.toFile())) {
        for (JarEntry entry : Collections.list(file.entries())) {
          String name = entry.getName();
          if (!name.startsWith("META-INF/services/") || entry.isDirectory()) {
            continue;
          }
          String text;
          try (InputStream in = file.getInputStream(entry)) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
          }
          for (String line : text.split("\\R")) {
            String provider = line.replaceFirst("#.*", "").strip();
            if (provider.isEmpty()) {
              continue;
            }
            Path first = providers.putIfAbsent(provider, jar);
            if (first != null && !first.equals(jar)) {
              throw new PluginDiscoveryException(source + ": plugin class [" + provider + "] is in two jars, ["
                  + first + "] and [" + jar + "]; only the first would load: keep one of them");
            }
          }
        }
      } catch (IOException e) {
        throw new PluginDiscoveryException(source + ": [" + jar + "] cannot be read as a jar (truncated or corrupt: "
            + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()) + ")", e);
      }
    }
  }

  private static boolean isJar(Path path) {
    if (!Files.isRegularFile(path) || !path.getFileName().toString().endsWith(".jar")) {
      return false;
    }
    try (var in = Files.newInputStream(path)) {
      byte[] magic = in.readNBytes(2);
      return magic.length == 2 && magic[0] == 'P' && magic[1] == 'K'; // a zip file
    } catch (IOException e) {
      return false;
    }
  }

  private static List<Path> jarsIn(Path directory) {
    try (Stream<Path> files = Files.list(directory)) {
      // every *.jar is taken, so that a corrupt one is refused by name rather than skipped
      return files.filter(p -> Files.isRegularFile(p) && p.getFileName().toString().endsWith(".jar")).sorted()
          .toList();
    } catch (IOException e) {
      throw new PluginDiscoveryException("cannot list plugin directory [" + directory + "]: " + e, e);
    }
  }
}
