package org.lockvisor.arch.spi;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

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

  /** Where a value comes from: a confidence tag and a reference (file, URL, paper or estimate). */
  public record Source(Confidence confidence, String reference) {
    public Source {
      checkNotNull(confidence, "source needs a confidence tag");
      checkArgument(reference != null && !reference.isBlank(), "source needs a reference (file, URL, paper or \"estimate\")");
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
