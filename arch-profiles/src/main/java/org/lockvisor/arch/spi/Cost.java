package org.lockvisor.arch.spi;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One priced constant of an arch profile: its value in the key's unit, and where the value comes
 * from. A value without a source is not accepted; an estimate says so ({@link Confidence#E}) and
 * gives its range in the reference.
 */
public record Cost(CostKey key, double value, Source source) {

  /** Prefix of the reference of a cost that does not exist on an architecture. */
  public static final String NOT_APPLICABLE = "n/a: ";

  /** How far a value can be trusted; the tags of lockvisor KERNEL-MODEL, with the same meaning. */
  public enum Confidence {
    /** Verified by reading the source file or the commit/mail text (location given). */
    V,
    /** Taken from the seed mails, not re-verified elsewhere. */
    B,
    /** From background knowledge or memory, not verified. */
    M,
    /** Engineering estimate for a simulator parameter (range given), to be calibrated. */
    E
  }

  /**
   * The plausible range of an estimate, in the key's unit: an envelope samples a cost over it, a
   * calibration fits within it.
   */
  public record Range(double low, double high) {
    public Range {
      checkArgument(Double.isFinite(low) && Double.isFinite(high) && 0 <= low && low < high,
          "a cost range needs 0 <= low < high, both finite: [%s, %s]", low, high);
    }

    public boolean contains(double value) {
      return value >= low && value <= high;
    }

    /** Whether the range spans a decade or more (an envelope samples it log-uniformly). */
    public boolean spansDecades() {
      return low > 0 && high / low >= 10;
    }

    @Override
    public String toString() {
      return fmt(low) + "-" + fmt(high);
    }

    private static String fmt(double v) {
      return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }
  }

  /**
   * Where a value comes from: a confidence tag, a reference (file, URL, paper or estimate) and,
   * for an estimate, its plausible range.
   *
   * @param range the range of an estimate ({@link Confidence#E}); empty for the other tags
   */
  public record Source(Confidence confidence, String reference, Optional<Range> range) {
    /** The first {@code low-high} pair of numbers in an estimate's reference, e.g. {@code estimate 500 (200-1000)}. */
    private static final Pattern RANGE = Pattern.compile(
        "(?<![\\w.§])(\\d{1,3}(?:,\\d{3})+|\\d+(?:\\.\\d+)?)\\s*[-\u2013]\\s*(\\d{1,3}(?:,\\d{3})+|\\d+(?:\\.\\d+)?)(?![\\w.])");

    public Source {
      checkNotNull(confidence, "source needs a confidence tag");
      checkArgument(reference != null && !reference.isBlank(), "source needs a reference (file, URL, paper or \"estimate\")");
      checkNotNull(range, "source range must not be null; use Optional.empty()");
    }

    /**
     * A source whose range, for an estimate, is declared once in its reference text as the first
     * {@code low-high} pair ({@code "estimate 500 (200-1000): SIGP external call"}); the other tags
     * have none.
     */
    public Source(Confidence confidence, String reference) {
      this(confidence, reference, confidence == Confidence.E ? parseRange(reference) : Optional.empty());
    }

    /** The first {@code low-high} pair in {@code text}, if any (thousands may be grouped with commas). */
    public static Optional<Range> parseRange(String text) {
      if (text == null) {
        return Optional.empty();
      }
      Matcher m = RANGE.matcher(text);
      while (m.find()) {
        double low = Double.parseDouble(m.group(1).replace(",", ""));
        double high = Double.parseDouble(m.group(2).replace(",", ""));
        if (low < high) {
          return Optional.of(new Range(low, high));
        }
      }
      return Optional.empty();
    }

    @Override
    public String toString() {
      return "[" + confidence + "] " + reference;
    }
  }

  public Cost {
    checkNotNull(key, "cost needs a key");
    checkNotNull(source, "cost %s needs a source", key);
    checkArgument(Double.isFinite(value) && value >= 0, "%s must be a finite non-negative number: [%s]", key, value);
    // Counts are loop bounds; a fractional one would silently truncate where it is used.
    checkArgument(key.unit() != CostKey.Unit.COUNT || value == Math.rint(value), "%s is a count and must be whole: [%s]", key, value);
  }

  /** The plausible range of an estimate ({@link Confidence#E}), from its source; empty otherwise. */
  public Optional<Range> range() {
    return source.range();
  }

  public static Cost of(CostKey key, double value, Confidence confidence, String reference) {
    return new Cost(key, value, new Source(confidence, reference));
  }

  /**
   * A key whose mechanism does not exist on this architecture (PowerVM hcalls on x86). Priced at
   * zero so a wrong caller costs nothing rather than something invented; the reason is the source.
   */
  public static Cost notApplicable(CostKey key, String reason) {
    return new Cost(key, 0, new Source(Confidence.V, NOT_APPLICABLE + reason));
  }

  /** True if this cost was declared with {@link #notApplicable}. */
  public boolean isNotApplicable() {
    return value == 0 && source.reference().startsWith(NOT_APPLICABLE);
  }
}
