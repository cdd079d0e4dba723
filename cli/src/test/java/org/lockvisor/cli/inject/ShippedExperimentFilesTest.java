package org.lockvisor.cli.inject;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.cli.inject.PluginKinds;
import org.lockvisor.cli.inject.PluginModule;
import org.lockvisor.core.plugin.PluginDiscoveryException;
import org.lockvisor.core.plugin.PluginKind;
import org.lockvisor.reproductions.api.Reproduction;
import org.lockvisor.reproductions.api.ReproductionOptions;
import org.lockvisor.reproductions.api.ReproductionResult;
import org.lockvisor.reproductions.api.ShippedExperimentFiles;

/**
 * A reproduction's shipped experiment files must be on its class path exactly once, in its own
 * jar: a plugin whose file name a jar of lockvisor's (the parent loader, asked first) or another
 * plugin jar already ships is refused at discovery in one line naming both, as is a declared file
 * its jar lacks. Fixture: folders standing for jars; the plugin's class is defined by a loader over
 * its folder (as a {@code --plugins} jar's would be), lockvisor's loader is a parent over another.
 */
class ShippedExperimentFilesTest {

  @TempDir
  Path temp;

  /**
   * A reproduction that only declares its name and shipped files, what the check reads. Public,
   * with a protected constructor: a plugin loader defines the subclasses anew, in a package of
   * its own.
   */
  public abstract static class Declaring implements Reproduction {
    private final String name;
    private final List<String> files;

    protected Declaring(String name, String... files) {
      this.name = name;
      this.files = List.of(files);
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public String summary() {
      return "test";
    }

    @Override
    public ReproductionResult run(ReproductionOptions options) {
      throw new UnsupportedOperationException();
    }

    @Override
    public List<String> experimentFiles() {
      return files;
    }
  }

  /** A reproduction plugin declaring one shipped file, {@code owner-base}. */
  public static final class Owner extends Declaring {
    static final String FILE = "owner-base";

    public Owner() {
      super("owner", FILE);
    }
  }

  /** A reproduction whose file name does not start with its own: the name a built-in might use. */
  public static final class Unprefixed extends Declaring {
    static final String FILE = "r1-vhost-wakeup";

    public Unprefixed() {
      super("unprefixed", FILE);
    }
  }

  /** A reproduction declaring a file name the loader of shipped files refuses. */
  public static final class BadName extends Declaring {
    public BadName() {
      super("bad-name", "Base.yaml");
    }
  }

  @Test
  void check_fileInItsOwnJarOnly_accepted() throws Exception {
    Path plugin = jar("plugin", true);
    try (PluginLoader loader = new PluginLoader(plugin, getClass().getClassLoader())) {
      ShippedExperimentFiles.check(List.of(loader.owner()));
    }
  }

  @Test
  void check_nameLockvisorsJarAlreadyShips_refusedNamingBothJars() throws Exception {
    Path lockvisor = jar("lockvisor", true);
    Path plugin = jar("plugin", true);
    try (URLClassLoader parent = new URLClassLoader(new URL[] {lockvisor.toUri().toURL()}, getClass().getClassLoader());
        PluginLoader loader = new PluginLoader(plugin, parent)) {
      assertThatThrownBy(() -> ShippedExperimentFiles.check(List.of(loader.owner())))
          .isInstanceOf(PluginDiscoveryException.class)
          .hasMessageStartingWith("reproduction [owner] (" + plugin.toUri().getPath())
          .hasMessageContaining("ships experiment file [owner-base.yaml], and so does [" + lockvisor.toUri().getPath())
          .hasMessageEndingWith("so their names must be unique; rename one of them")
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }
  }

  @Test
  void check_builtInsNameWithoutThePluginsPrefix_refusedSuggestingThePrefix() throws Exception {
    Path lockvisor = jar("lockvisor", Unprefixed.class, Unprefixed.FILE);
    Path plugin = jar("plugin", Unprefixed.class, Unprefixed.FILE);
    try (URLClassLoader parent = new URLClassLoader(new URL[] {lockvisor.toUri().toURL()}, getClass().getClassLoader());
        PluginLoader loader = new PluginLoader(plugin, parent, Unprefixed.class)) {
      assertThatThrownBy(() -> ShippedExperimentFiles.check(List.of(loader.owner())))
          .isInstanceOf(PluginDiscoveryException.class)
          // the first owner found: on this module's class path the built-in reproductions' own folder
          .hasMessageContaining("ships experiment file [r1-vhost-wakeup.yaml], and so does [")
          .hasMessageEndingWith("start a plugin's file names with its own name, e.g. [unprefixed-r1-vhost-wakeup.yaml]");
    }
  }

  @Test
  void check_nameAnotherPluginJarShips_refused() throws Exception {
    Path plugin = jar("plugin", true);
    Path other = jar("other", true);
    try (PluginLoader loader = new PluginLoader(new Path[] {plugin, other}, getClass().getClassLoader())) {
      assertThatThrownBy(() -> ShippedExperimentFiles.check(List.of(loader.owner())))
          .isInstanceOf(PluginDiscoveryException.class)
          .hasMessageContaining("and so does [" + other.toUri().getPath());
    }
  }

  @Test
  void check_declaredFileMissing_refused() throws Exception {
    Path plugin = jar("plugin", false);
    try (PluginLoader loader = new PluginLoader(plugin, getClass().getClassLoader())) {
      assertThatThrownBy(() -> ShippedExperimentFiles.check(List.of(loader.owner())))
          .isInstanceOf(PluginDiscoveryException.class)
          .hasMessageContaining("declares shipped experiment [owner-base] but its jar has no ["
              + Reproduction.EXPERIMENTS + "owner-base.yaml]");
    }
  }

  @Test
  void check_fileOnlyAnotherJarShips_refused() throws Exception {
    Path lockvisor = jar("lockvisor", true);
    Path plugin = jar("plugin", false);
    try (URLClassLoader parent = new URLClassLoader(new URL[] {lockvisor.toUri().toURL()}, getClass().getClassLoader());
        PluginLoader loader = new PluginLoader(plugin, parent)) {
      assertThatThrownBy(() -> ShippedExperimentFiles.check(List.of(loader.owner())))
          .isInstanceOf(PluginDiscoveryException.class)
          .hasMessageContaining("which only [" + lockvisor.toUri().getPath())
          .hasMessageContaining("a reproduction runs the files of its own jar");
    }
  }

  @Test
  void check_badFileName_refused() {
    assertThatThrownBy(() -> ShippedExperimentFiles.check(List.of(new BadName())))
        .isInstanceOf(PluginDiscoveryException.class)
        .hasMessageContaining("bad shipped experiment file name [Base.yaml]");
  }

  /** The check runs where plugins are discovered: before any injector, with discovery's exception. */
  @Test
  void pluginModuleDiscover_clashingFile_refusedAtDiscovery() throws Exception {
    Path lockvisor = jar("lockvisor", true);
    Path plugin = jar("plugin", true);
    Path services = plugin.resolve("META-INF/services/" + Reproduction.class.getName());
    Files.createDirectories(services.getParent());
    Files.writeString(services, Owner.class.getName() + "\n", StandardCharsets.UTF_8);
    PluginKinds reproductions = PluginKinds.of(PluginKind.of(Reproduction.KIND, Reproduction.class));
    try (URLClassLoader parent = new URLClassLoader(new URL[] {lockvisor.toUri().toURL()}, getClass().getClassLoader());
        PluginLoader loader = new PluginLoader(plugin, parent)) {
      assertThatThrownBy(() -> PluginModule.discover(reproductions, loader))
          .isInstanceOf(PluginDiscoveryException.class).hasMessageContaining("and so does");
    }
    try (PluginLoader alone = new PluginLoader(plugin, getClass().getClassLoader())) {
      assertThat(PluginModule.discover(reproductions, alone)).isNotNull();
    }
  }

  /** A folder standing for a jar: {@link Owner}'s class file, and its shipped file when {@code shipsFile}. */
  private Path jar(String name, boolean shipsFile) throws IOException {
    return jar(name, Owner.class, shipsFile ? Owner.FILE : null);
  }

  /** A folder standing for a jar: {@code type}'s class file, and shipped file {@code file} unless null. */
  private Path jar(String name, Class<?> type, String file) throws IOException {
    Path root = Files.createDirectories(temp.resolve(name));
    String classFile = type.getName().replace('.', '/') + ".class";
    Path target = root.resolve(classFile);
    Files.createDirectories(target.getParent());
    try (InputStream in = getClass().getClassLoader().getResourceAsStream(classFile)) {
      Files.copy(in, target);
    }
    if (file != null) {
      Path shipped = root.resolve(Reproduction.EXPERIMENTS + file + ".yaml");
      Files.createDirectories(shipped.getParent());
      Files.writeString(shipped, "name: " + name + "\n", StandardCharsets.UTF_8);
    }
    return root;
  }

  /** A plugin jar's loader: defines its plugin class from its own folders (code source: the first), the rest parent first. */
  private static final class PluginLoader extends URLClassLoader {
    private final Class<?> own;

    PluginLoader(Path folder, ClassLoader parent) throws IOException {
      this(new Path[] {folder}, parent, Owner.class);
    }

    PluginLoader(Path folder, ClassLoader parent, Class<?> own) throws IOException {
      this(new Path[] {folder}, parent, own);
    }

    PluginLoader(Path[] folders, ClassLoader parent) throws IOException {
      this(folders, parent, Owner.class);
    }

    PluginLoader(Path[] folders, ClassLoader parent, Class<?> own) throws IOException {
      super(urls(folders), parent);
      this.own = own;
    }

    private static URL[] urls(Path[] folders) throws IOException {
      URL[] urls = new URL[folders.length];
      for (int i = 0; i < folders.length; i++) {
        urls[i] = folders[i].toUri().toURL();
      }
      return urls;
    }

    Reproduction owner() throws ReflectiveOperationException {
      Reproduction r = (Reproduction) loadClass(own.getName()).getConstructor().newInstance();
      assertThat(r.getClass().getClassLoader()).isSameAs(this);
      return r;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (!name.equals(own.getName())) {
        return super.loadClass(name, resolve);
      }
      synchronized (getClassLoadingLock(name)) {
        Class<?> c = findLoadedClass(name);
        return c != null ? c : findClass(name);
      }
    }
  }
}
