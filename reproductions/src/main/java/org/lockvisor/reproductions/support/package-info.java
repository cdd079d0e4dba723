/**
 * What a reproduction needs besides the experiment SPI, public for reproduction plugins as much as
 * for the built-in ones: shipped experiment files run through the injected runner ({@link
 * org.lockvisor.reproductions.support.ShippedExperiment}), published figures ({@link
 * org.lockvisor.reproductions.support.Published}), text tables, XChart plots and the run meter.
 */
package org.lockvisor.reproductions.support;
