/**
 * A third-party device plugin built only against the devices SPI ({@code org.lockvisor.devices.spi})
 * and the machine API: Linux's {@code null_blk} in its timer completion mode. It shows the
 * completion protocol, per-CPU state read in an interrupt handler and a timer armed from a code
 * path, and passes the device contract kit (docs/plugins/null-blk.md).
 */
package org.lockvisor.examples.nullblk;
