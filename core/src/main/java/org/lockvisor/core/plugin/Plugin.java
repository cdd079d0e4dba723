package org.lockvisor.core.plugin;

import java.util.List;
import java.util.Set;

/**
 * What every lockvisor plugin factory says about itself. The metadata is the documentation:
 * {@code lockvisor plugins} prints it, and experiment validation checks options against it.
 *
 * <p>Each plugin kind (lock, device, scheduler, arch profile, workload) has its own SPI
 * interface extending this one; built-ins and third-party plugins implement that interface in
 * one small {@code final} class registered with {@code @AutoService}. New extension points are
 * added as default methods so old plugins keep compiling.
 */
public interface Plugin {

  /** The plugin kind, e.g. {@code lock}; fixed by the SPI interface. */
  String kind();

  /** Stable lower-case kebab name, e.g. {@code pv-qspinlock}. */
  String name();

  /** One line: what kernel behaviour this plugin models. */
  String summary();

  /** Version of the plugin; built-ins report the lockvisor version. */
  default String version() {
    String v = getClass().getPackage() == null ? null : getClass().getPackage().getImplementationVersion();
    return v == null ? "dev" : v;
  }

  /** Declared capabilities, used to gate contract tests and experiment validation. */
  default Set<String> capabilities() {
    return Set.of();
  }

  /** Options this plugin accepts, with types, defaults and documentation. */
  default List<PluginOption> options() {
    return List.of();
  }
}
