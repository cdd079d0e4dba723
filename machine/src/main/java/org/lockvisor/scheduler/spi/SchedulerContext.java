package org.lockvisor.scheduler.spi;

import static com.google.common.base.Preconditions.checkArgument;

import org.lockvisor.arch.spi.ArchCosts;
import org.lockvisor.core.plugin.BoundOptions;
import org.lockvisor.core.plugin.PluginContext;

/**
 * Everything a scheduler instance gets from the framework, handed to {@link
 * SchedulerFactory#create}: the name of the kernel it will serve ({@code host} or the VM's), its
 * options bound by the framework, and the arch profile's costs. New services arrive as new
 * methods here, so no plugin breaks. An interface: a scheduler's unit test may hand its factory a
 * mock.
 */
public interface SchedulerContext extends PluginContext {

  /** The arch profile's costs. */
  ArchCosts costs();

  /** A context of the framework's making: {@code options} already bound against the factory's declarations. */
  static SchedulerContext of(String name, BoundOptions options, ArchCosts costs) {
    checkArgument(name != null && !name.isBlank(), "a scheduler needs the name of its kernel");
    checkArgument(options != null, "options of scheduler [%s] must be bound", name);
    checkArgument(costs != null, "scheduler [%s] needs costs", name);
    record Simple(String name, BoundOptions options, ArchCosts costs) implements SchedulerContext {}
    return new Simple(name, options, costs);
  }
}
