/**
 * Calibrate, then predict: measured figures in the formats users already have ({@link
 * org.lockvisor.studies.calibrate.MeasuredFigures}: real {@code fio --output-format=json},
 * {@code iperf3 -J}, {@code perf report --stdio} text, {@code /proc/lock_stat}, or a YAML of named
 * figures) are the target the named setup parameters are fitted to on the baseline alone; every
 * other variant is then predicted at the fitted point.
 */
package org.lockvisor.studies.calibrate;
