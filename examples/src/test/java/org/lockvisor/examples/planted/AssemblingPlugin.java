package org.lockvisor.examples.planted;

import org.lockvisor.machine.config.KernelConfig;

/** Planted for {@code PluginApiTest}: a "plugin" that reaches past the plugin API into machine assembly. */
public final class AssemblingPlugin {

  private AssemblingPlugin() {}

  public static long tickOf(KernelConfig config) {
    return config.tickNs();
  }
}
