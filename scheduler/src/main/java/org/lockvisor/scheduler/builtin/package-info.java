/** Built-in scheduler plugins. */
package org.lockvisor.scheduler.builtin;
