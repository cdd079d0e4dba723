/**
 * The composition root's dependency injection: the only package (with the CLI) that imports
 * Guice. {@link org.lockvisor.experiment.inject.Bootstrap} builds every injector; {@link
 * org.lockvisor.experiment.inject.PluginModule} binds discovered plugins into name-keyed
 * MapBinders.
 */
package org.lockvisor.experiment.inject;
