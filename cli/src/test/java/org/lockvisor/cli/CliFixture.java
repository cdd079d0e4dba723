package org.lockvisor.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import org.lockvisor.reproductions.api.Reproduction;
import picocli.CommandLine;

/** Runs the command line in-process with captured stdout and stderr. */
final class CliFixture {

  record Run(int exitCode, String out, String err) {
    List<String> errLines() {
      return err.lines().toList();
    }
  }

  private CliFixture() {}

  /**
   * The shipped class path with the built-in reproductions hidden, so that these tests see only
   * the fake reproductions they register (the built-ins have their own tests in their module).
   */
  static final ClassLoader WITHOUT_BUILT_IN_REPRODUCTIONS = new ClassLoader(CliFixture.class.getClassLoader()) {
    @Override
    public Enumeration<URL> getResources(String name) throws IOException {
      if (name.equals("META-INF/services/" + Reproduction.class.getName())) {
        return Collections.emptyEnumeration();
      }
      return super.getResources(name);
    }
  };

  static Run run(ClassLoader loader, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine commandLine = Lockvisor.commandLine(loader);
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    int exitCode = commandLine.execute(args);
    return new Run(exitCode, out.toString(), err.toString());
  }

  /** The class path as shipped, built-in reproductions hidden: no reproductions registered. */
  static Run run(String... args) {
    return run(WITHOUT_BUILT_IN_REPRODUCTIONS, args);
  }

  /**
   * A class loader that also sees a services file registering {@code reproductions}: the same
   * ServiceLoader path a third-party jar takes.
   */
  static ClassLoader withReproductions(Path directory, Class<?>... reproductions) {
    try {
      Path services = directory.resolve("META-INF/services");
      Files.createDirectories(services);
      StringBuilder lines = new StringBuilder();
      for (Class<?> reproduction : reproductions) {
        lines.append(reproduction.getName()).append('\n');
      }
      Files.writeString(services.resolve(Reproduction.class.getName()), lines);
      return new URLClassLoader(new URL[] {directory.toUri().toURL()}, WITHOUT_BUILT_IN_REPRODUCTIONS);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
