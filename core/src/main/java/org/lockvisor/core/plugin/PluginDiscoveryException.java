package org.lockvisor.core.plugin;

/**
 * The set of plugins on the class path is inconsistent: two plugins share a name, a name is
 * malformed, or a registered provider cannot be loaded. Discovery refuses to guess which one the
 * user meant, so the message names every class involved.
 */
public final class PluginDiscoveryException extends IllegalStateException {

  public PluginDiscoveryException(String message) {
    super(message);
  }

  public PluginDiscoveryException(String message, Throwable cause) {
    super(message, cause);
  }
}
