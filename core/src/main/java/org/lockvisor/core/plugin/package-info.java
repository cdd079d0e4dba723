/** Plugin metadata shared by every SPI, and plugin discovery. */
package org.lockvisor.core.plugin;
