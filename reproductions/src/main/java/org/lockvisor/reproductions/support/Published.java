package org.lockvisor.reproductions.support;

import static com.google.common.base.Preconditions.checkState;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * A seed's published figures, kept out of the code in
 * {@code org/lockvisor/reproductions/published/<reproduction>.properties} of the reproduction's jar
 * ({@link #of(Class, String)}): reproductions print them beside the simulated figures and judge the
 * issue's bands against them; no model code reads them.
 */
public final class Published {

  private final String file;
  private final Properties values;

  private Published(String file, Properties values) {
    this.file = file;
    this.values = values;
  }

  /**
   * The published figures of {@code reproduction} (its plugin name), read from the class loader of
   * {@code owner} (the reproduction's class): a reproduction in a {@code --plugins} jar ships them
   * in its own jar, which lockvisor's loader cannot see. Plugin names are unique, so the file names
   * are too.
   *
   * @throws IllegalStateException when the file is missing (a packaging fault)
   */
  public static Published of(Class<?> owner, String reproduction) {
    String file = "/org/lockvisor/reproductions/published/" + reproduction + ".properties";
    try (InputStream in = owner.getResourceAsStream(file)) {
      checkState(in != null, "missing published figures [%s]", file);
      Properties p = new Properties();
      p.load(new InputStreamReader(in, StandardCharsets.UTF_8));
      return new Published(file, p);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read published figures [" + file + "]", e);
    }
  }

  /** The published figures of built-in reproduction {@code reproduction}, shipped in this module's jar. */
  public static Published of(String reproduction) {
    return of(Published.class, reproduction);
  }

  /** Where the figures come from (the seed), one line. */
  public String source() {
    return text("source");
  }

  public double get(String key) {
    return Double.parseDouble(text(key));
  }

  /** A comma-separated list. */
  public List<String> list(String key) {
    return Arrays.stream(text(key).split(",")).map(String::strip).toList();
  }

  /** {@code <prefix>.<item>} for every item of the list {@code <prefix>.symbols}, in that order. */
  public Map<String, Double> ordered(String prefix) {
    Map<String, Double> out = new LinkedHashMap<>();
    for (String item : list(prefix + ".symbols")) {
      out.put(item, get(prefix + "." + item));
    }
    return out;
  }

  private String text(String key) {
    String v = values.getProperty(key);
    checkState(v != null, "published figures [%s] have no [%s]", file, key);
    return v;
  }
}
