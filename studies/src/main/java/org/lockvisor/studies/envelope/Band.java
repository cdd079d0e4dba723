package org.lockvisor.studies.envelope;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.regex.Pattern;

/**
 * One published figure a reproduction judges, with the band its issue accepts and the simulated
 * value: the structured form of a line of the reproduction's acceptance table, for envelopes
 * ({@code reproduce --envelope}: where each published value lies among the samples, which samples
 * meet every band at once) and calibrations ({@code reproduce --calibrate}: the {@linkplain
 * #baselineOnly() baseline-only} bands are the targets, the others are judged at the fitted point).
 *
 * @param key stable identifier, unique within the reproduction, e.g. {@code arm64.nj4.ratio}
 * @param quantity one line: what the figure is, e.g. {@code arm64 numjobs=4 IOPS}
 * @param column the variant or derived column the figure belongs to: {@code baseline}, {@code
 *     patched}, or a derived one such as {@code ratio} or {@code reduction}
 * @param published the published figure, {@code NaN} where the source gives none (a band from the
 *     text, e.g. "no obvious difference")
 * @param low the band's lower end ({@code -Infinity} for none)
 * @param high the band's upper end ({@code +Infinity} for none)
 * @param simulated the simulated figure
 * @param baselineOnly whether the figure is a measurement of the unpatched system alone (a
 *     calibration target); false for the patched column and for anything derived from it
 */
public record Band(String key, String quantity, String column, double published, double low, double high,
    double simulated, boolean baselineOnly) {

  private static final Pattern KEY = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_./\\-\\[\\]]*");

  public Band {
    checkArgument(key != null && KEY.matcher(key).matches(), "band key must be letters, digits, '_', '.', '/', '-', '[', ']': [%s]", key);
    checkArgument(quantity != null && !quantity.isBlank() && quantity.indexOf('\n') < 0,
        "band [%s] needs a one-line quantity", key);
    checkArgument(column != null && !column.isBlank(), "band [%s] needs a column", key);
    checkArgument(!Double.isNaN(low) && !Double.isNaN(high) && low <= high, "band [%s]: need low <= high: [%s, %s]",
        key, low, high);
    checkArgument(!Double.isInfinite(published), "band [%s]: published value must be finite or NaN", key);
    checkArgument(!baselineOnly || column.equals(BASELINE), "band [%s]: only a baseline figure is baseline-only", key);
  }

  public static final String BASELINE = "baseline";
  public static final String PATCHED = "patched";

  /** A band on a figure of the baseline (unpatched) variant: a calibration target. */
  public static Band baseline(String key, String quantity, double published, double low, double high,
      double simulated) {
    return new Band(key, quantity, BASELINE, published, low, high, simulated, true);
  }

  /** A band on a figure of {@code column} (patched, or derived from both variants): held out of a calibration. */
  public static Band heldOut(String key, String quantity, String column, double published, double low, double high,
      double simulated) {
    checkArgument(!column.equals(BASELINE), "band [%s]: a baseline figure is a calibration target, use baseline()", key);
    return new Band(key, quantity, column, published, low, high, simulated, false);
  }

  /** This band judging another simulated value (an envelope's sample). */
  public Band withSimulated(double value) {
    return new Band(key, quantity, column, published, low, high, value, baselineOnly);
  }

  /** Whether the simulated value lies in the band (ends included). */
  public boolean met() {
    return contains(simulated);
  }

  /** Whether {@code value} lies in the band (ends included). */
  public boolean contains(double value) {
    return value >= low && value <= high;
  }

  /** Whether the source gives a figure (not only a band from its text). */
  public boolean hasPublished() {
    return !Double.isNaN(published);
  }

  /**
   * How far {@code value} lies outside the band, relative to the band's scale (0 inside): the
   * distance to the nearer end over the width of the band, or over the nearer end's magnitude for a
   * band open on one side. The envelope ranks its samples by the sum of these over every band.
   */
  public double distance(double value) {
    if (contains(value)) {
      return 0;
    }
    double end = value < low ? low : high;
    double scale = Double.isFinite(low) && Double.isFinite(high) ? high - low : Math.abs(end);
    return Math.abs(value - end) / (scale > 0 ? scale : 1);
  }
}
