/**
 * The composition root's dependency injection, the only package that imports Guice. It sits
 * with the command because it binds every plugin kind, the reproductions (above the experiment
 * module) included. {@link org.lockvisor.cli.inject.Bootstrap} builds every injector; {@link
 * org.lockvisor.cli.inject.PluginModule} binds discovered plugins into name-keyed
 * MapBinders.
 */
package org.lockvisor.cli.inject;
