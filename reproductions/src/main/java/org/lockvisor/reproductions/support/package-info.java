/** Text tables and XChart plots shared by the built-in reproductions. */
package org.lockvisor.reproductions.support;
