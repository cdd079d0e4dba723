package org.lockvisor.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.lockvisor.experiment.Reproduction;
import picocli.CommandLine;

/** Runs the command line in-process with captured stdout and stderr. */
final class CliFixture {

  record Run(int exitCode, String out, String err) {
    List<String> errLines() {
      return err.lines().toList();
    }
  }

  private CliFixture() {}

  static Run run(ClassLoader loader, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine commandLine = Lockvisor.commandLine(loader);
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    int exitCode = commandLine.execute(args);
    return new Run(exitCode, out.toString(), err.toString());
  }

  /**
   * The class path as shipped, but with the built-in reproductions hidden: the CLI's behaviour
   * with none registered (the built-ins run in the reproductions module's own tests).
   */
  static Run run(String... args) {
    return run(new OnlyOwnReproductions(new URL[0], CliFixture.class.getClassLoader()), args);
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
      return new OnlyOwnReproductions(new URL[] {directory.toUri().toURL()}, CliFixture.class.getClassLoader());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Sees the parent's classes and every other service file, but registers only the reproductions
   * of its own URLs, so tests control exactly which reproductions exist whatever the built-ins.
   */
  private static final class OnlyOwnReproductions extends URLClassLoader {
    private static final String SERVICES = "META-INF/services/" + Reproduction.class.getName();

    OnlyOwnReproductions(URL[] urls, ClassLoader parent) {
      super(urls, parent);
    }

    @Override
    public java.util.Enumeration<URL> getResources(String name) throws IOException {
      return SERVICES.equals(name) ? findResources(name) : super.getResources(name);
    }

    @Override
    public URL getResource(String name) {
      return SERVICES.equals(name) ? findResource(name) : super.getResource(name);
    }
  }
}
