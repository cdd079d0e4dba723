package ${package};

import org.lockvisor.machine.Task;
import org.lockvisor.machine.config.KernelConfig;

/** Planted for PluginApiTest: a template plugin that reads machine assembly and the platform wiring. */
final class ${className} {

  static long tick(KernelConfig config, Task t) {
    return config.tickNs() + org.lockvisor.platform.Platforms.class.hashCode();
  }
}
