/**
 * The catalogue of arch profiles, apart from any one profile: discovery by name ({@link
 * org.lockvisor.arch.catalog.ArchProfiles}), the markdown tables the plugin pages and {@code
 * plugins --options} print ({@link org.lockvisor.arch.catalog.ArchProfileMarkdown}), and the error
 * a profile file's problems raise ({@link org.lockvisor.arch.catalog.ProfileException}). Code
 * outside the built-ins uses these, never a {@code ..builtin..} class.
 */
package org.lockvisor.arch.catalog;
