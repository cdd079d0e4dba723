/**
 * Plugin metadata and discovery: the {@link org.lockvisor.core.plugin.Plugin} base SPI, loud
 * ServiceLoader discovery ({@link org.lockvisor.core.plugin.PluginDiscovery}), choice by name
 * with "did you mean" errors. No dependency injection here: Guice binds what this package finds,
 * at the composition root in the experiment module.
 */
package org.lockvisor.core.plugin;
