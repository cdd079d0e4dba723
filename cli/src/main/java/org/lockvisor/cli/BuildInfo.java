package org.lockvisor.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/**
 * Version and git commit, written into {@code build.properties} at build time. A value that was
 * not filtered (an IDE build, a source tree outside git) reads as {@code unknown}.
 */
public final class BuildInfo implements IVersionProvider {

  static final String RESOURCE = "/org/lockvisor/cli/build.properties";

  private final String version;
  private final String commit;

  public BuildInfo() {
    Properties properties = new Properties();
    try (InputStream in = BuildInfo.class.getResourceAsStream(RESOURCE)) {
      if (in != null) {
        properties.load(in);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + RESOURCE, e);
    }
    this.version = clean(properties.getProperty("version"));
    this.commit = clean(properties.getProperty("commit"));
  }

  private static String clean(String value) {
    return value == null || value.isBlank() || value.contains("${") ? "unknown" : value.trim();
  }

  public String version() {
    return version;
  }

  public String commit() {
    return commit;
  }

  /** {@code lockvisor <version> (git <commit>)}. */
  public String versionLine() {
    return "lockvisor " + version + " (git " + commit + ")";
  }

  @Override
  public String[] getVersion() {
    return new String[] {versionLine()};
  }
}
