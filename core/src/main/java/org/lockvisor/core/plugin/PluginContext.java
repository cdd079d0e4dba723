package org.lockvisor.core.plugin;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * What every plugin kind's factory receives in its one {@code create(context)} call (after Trino's
 * {@code ConnectorFactory.create(..., ConnectorContext)}): the instance's name and its options,
 * bound by the framework's one {@link OptionBinder} against what the factory declares, so a
 * factory never parses a raw option map. Each kind's context extends this one with what that kind
 * needs (a cost view of the arch profile, the locks); new services arrive as new methods there, so
 * no plugin breaks. Contexts are interfaces: a plugin's unit test may hand its factory a mock.
 */
public interface PluginContext {

  /** The instance's name, e.g. {@code vdb}, {@code fio0}, {@code vhost_dev.work_lock}; for a scheduler its kernel's. */
  String name();

  /** The instance's options: the given values or the declared defaults, checked and typed. */
  BoundOptions options();

  /** A context of {@code name} with {@code options} already bound. */
  static PluginContext of(String name, BoundOptions options) {
    checkArgument(name != null && !name.isBlank(), "a plugin instance needs a name");
    checkArgument(options != null, "options of [%s] must be bound (OptionBinder.bind)", name);
    record Simple(String name, BoundOptions options) implements PluginContext {}
    return new Simple(name, options);
  }
}
