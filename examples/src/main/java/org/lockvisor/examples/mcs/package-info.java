/**
 * A third-party lock plugin built only against the locking SPI and the machine API: a plain MCS
 * spinlock. It shows what a plugin needs (a factory registered with AutoService, a KernelLock
 * whose ops are state machines over the machine) and passes the lock contract test kit.
 */
package org.lockvisor.examples.mcs;
