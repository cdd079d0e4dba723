package org.lockvisor.devices.spi;

import com.google.common.collect.ImmutableMap;
import java.util.List;
import java.util.Map;
import org.lockvisor.core.plugin.BoundOptions;
import org.lockvisor.core.plugin.OptionBinder;
import org.lockvisor.core.plugin.PluginOption;

/**
 * A device or workload plugin's option values: the framework's one binder ({@link OptionBinder})
 * under the name device and workload plugins have used since the first SPI. New code may use
 * {@link OptionBinder#bind} and {@link BoundOptions} directly.
 */
public final class OptionValues {
  private final BoundOptions bound;

  private OptionValues(BoundOptions bound) {
    this.bound = bound;
  }

  /** Validates {@code given} against {@code options}; throws one IllegalArgumentException listing every problem. */
  public static OptionValues parse(String plugin, List<PluginOption> options, Map<String, String> given) {
    return new OptionValues(OptionBinder.bind(plugin, options, given == null ? Map.of() : given));
  }

  /** The typed values. */
  public BoundOptions bound() {
    return bound;
  }

  public String string(String name) {
    return bound.string(name);
  }

  public boolean bool(String name) {
    return bound.bool(name);
  }

  public long integer(String name) {
    return bound.integer(name);
  }

  public double real(String name) {
    return bound.real(name);
  }

  /** All values including defaults, sorted by name (for provenance). */
  public ImmutableMap<String, String> asMap() {
    return bound.asMap();
  }
}
