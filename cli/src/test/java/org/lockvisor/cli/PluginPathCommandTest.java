package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.cli.CliFixture.Run;
import org.lockvisor.reproductions.api.Reproduction;
import picocli.CommandLine;

/**
 * {@code --plugins PATH[:PATH...]} and {@code LOCKVISOR_PLUGINS}: the jars named (or every jar of
 * a named directory) are searched for plugins, the option wins over the variable, and a path that
 * is not a jar or a directory of jars is one line and exit 2 before anything runs, and so is a jar
 * cut short (it starts as a zip but has no central directory: the class loader skipped it without a
 * word) and a plugin class registered by two jars (only the first would load), naming both jars.
 */
class PluginPathCommandTest {

  @TempDir
  Path temp;

  /** A jar holding only a services file that registers the fake reproduction {@code fake-ok}. */
  private Path pluginJar(String name) throws IOException {
    return servicesJar(temp.resolve(name), Reproduction.class, FakeReproductions.Reproduces.class);
  }

  /** A jar at {@code jar} holding only a services file that registers {@code provider} as a {@code service}. */
  static Path servicesJar(Path jar, Class<?> service, Class<?> provider) throws IOException {
    try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file)) {
      out.putNextEntry(new JarEntry("META-INF/services/" + service.getName()));
      out.write((provider.getName() + "\n").getBytes(StandardCharsets.UTF_8));
      out.closeEntry();
    }
    return jar;
  }

  private static Run run(Map<String, String> environment, String... args) {
    java.io.StringWriter out = new java.io.StringWriter();
    java.io.StringWriter err = new java.io.StringWriter();
    CommandLine commandLine = Lockvisor.commandLine(CliFixture.WITHOUT_BUILT_IN_REPRODUCTIONS, environment::get);
    commandLine.setOut(new java.io.PrintWriter(out, true));
    commandLine.setErr(new java.io.PrintWriter(err, true));
    return new Run(commandLine.execute(args), out.toString(), err.toString());
  }

  private static void assertOneLineUsageError(Run run, String... fragments) {
    assertThat(run.exitCode()).as("exit code; stderr: %s", run.err()).isEqualTo(2);
    assertThat(run.errLines()).hasSize(1);
    assertThat(run.err()).startsWith("lockvisor: ").contains(fragments).doesNotContain("\tat ", "Exception");
  }

  @Test
  void plugins_jarOnPluginPath_listed() throws IOException {
    Path jar = pluginJar("fake.jar");

    Run without = run(Map.of(), "plugins", "--kind", "reproduction");
    Run with = run(Map.of(), "--plugins", jar.toString(), "plugins", "--kind", "reproduction");

    assertThat(without.out()).doesNotContain("fake-ok");
    assertThat(with.exitCode()).as(with.err()).isZero();
    assertThat(with.out()).contains("fake-ok");
  }

  @Test
  void plugins_directoryOfJars_everyJarTaken() throws IOException {
    pluginJar("fake.jar");

    Run run = run(Map.of(), "--plugins", temp.toString(), "plugins", "--kind", "reproduction", "--format", "json");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("\"name\" : \"fake-ok\"", "\"jar\" : ");
  }

  @Test
  void plugins_environmentVariable_usedWithoutOption() throws IOException {
    Path jar = pluginJar("fake.jar");

    Run run = run(Map.of("LOCKVISOR_PLUGINS", jar.toString()), "plugins", "--kind", "reproduction");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("fake-ok");
  }

  @Test
  void plugins_optionGiven_environmentVariableIgnored() throws IOException {
    Path jar = pluginJar("fake.jar");

    Run run = run(Map.of("LOCKVISOR_PLUGINS", temp.resolve("missing.jar").toString()),
        "--plugins", jar.toString(), "plugins", "--kind", "reproduction");

    assertThat(run.exitCode()).as(run.err()).isZero();
  }

  @Test
  void plugins_missingJar_oneLineExit2() {
    assertOneLineUsageError(run(Map.of(), "--plugins", temp.resolve("nope.jar").toString(), "plugins"),
        "--plugins: no such jar or directory [", "nope.jar]");
  }

  @Test
  void plugins_badEnvironmentVariable_oneLineExit2NamingIt() {
    assertOneLineUsageError(run(Map.of("LOCKVISOR_PLUGINS", temp.resolve("nope").toString()), "plugins"),
        "LOCKVISOR_PLUGINS: no such jar or directory [");
  }

  @Test
  void plugins_fileNotAJar_oneLineExit2() throws IOException {
    Path text = Files.writeString(temp.resolve("notes.txt"), "not a jar");

    assertOneLineUsageError(run(Map.of(), "--plugins", text.toString(), "plugins"), "is not a jar");
  }

  @Test
  void plugins_directoryWithoutJars_oneLineExit2() throws IOException {
    Path empty = Files.createDirectory(temp.resolve("empty"));

    assertOneLineUsageError(run(Map.of(), "--plugins", empty.toString(), "plugins"), "holds no .jar file");
  }

  @Test
  void run_badPluginPath_refusedBeforeRunning() {
    assertOneLineUsageError(run(Map.of(), "--plugins", temp.resolve("x.jar").toString(), "run",
        "../examples/experiments/quick-locks.yaml"), "no such jar or directory");
  }

  @Test
  void plugins_truncatedJar_oneLineExit2NamingIt() throws IOException {
    Path jar = pluginJar("fake.jar");
    byte[] whole = Files.readAllBytes(jar);
    Path cut = Files.write(temp.resolve("cut.jar"), java.util.Arrays.copyOf(whole, whole.length / 2));

    assertOneLineUsageError(run(Map.of(), "--plugins", cut.toString(), "plugins", "--kind", "reproduction"),
        "[" + cut.toAbsolutePath() + "] cannot be read as a jar (truncated or corrupt");
  }

  @Test
  void plugins_truncatedJarInADirectory_refusedNotSkipped() throws IOException {
    Path dir = Files.createDirectory(temp.resolve("dir"));
    Files.write(dir.resolve("a.jar"), new byte[] {'P', 'K', 3, 4, 0, 0});

    assertOneLineUsageError(run(Map.of(), "--plugins", dir.toString(), "plugins"), "a.jar] cannot be read as a jar");
  }

  @Test
  void plugins_samePluginInTwoJars_oneLineExit2NamingBothJars() throws IOException {
    Path first = pluginJar("first.jar");
    Path second = pluginJar("second.jar");

    Run run = run(Map.of(), "--plugins", first + java.io.File.pathSeparator + second, "plugins");

    assertOneLineUsageError(run, "is in two jars", "first.jar]", "second.jar]");
  }
}
