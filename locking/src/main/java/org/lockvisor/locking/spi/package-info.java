/** Lock plugin SPI: depends only on the JDK, Guava, core's plugin API and the machine. */
package org.lockvisor.locking.spi;
