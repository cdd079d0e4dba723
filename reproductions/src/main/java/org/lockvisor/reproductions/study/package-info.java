/**
 * Studies of a reproduction: its setup envelope ({@link
 * org.lockvisor.reproductions.study.ReproductionEnvelope}, {@code reproduce NAME --envelope}) and
 * its calibration ({@link org.lockvisor.reproductions.study.ReproductionCalibration}, {@code
 * reproduce NAME --calibrate}), built on the studies module's envelopes and calibrator.
 */
package org.lockvisor.reproductions.study;
