/** Scheduler plugin SPI. Depends only on the JDK, Guava, core's plugin API and the machine. */
package org.lockvisor.scheduler.spi;
