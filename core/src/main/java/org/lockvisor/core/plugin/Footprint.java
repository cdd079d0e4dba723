package org.lockvisor.core.plugin;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * What a component will allocate when it is built, estimated from its configuration alone before
 * anything is built, so that an experiment too large for the heap is refused with one line
 * instead of dying in an {@link OutOfMemoryError} minutes later. The bytes are per object kind
 * measured on the built-in plugins (heap after garbage collection, before and after assembly) and
 * rounded up; {@code basis} says what was counted, e.g. {@code 4096 jobs, 268435456 requests in
 * flight}.
 *
 * @param bytes estimated heap bytes (saturating: {@link Long#MAX_VALUE} for "more than can be said")
 * @param basis the sizes the estimate counts, for the message that refuses it
 */
public record Footprint(long bytes, String basis) {

  /** Nothing worth counting. */
  public static final Footprint NONE = new Footprint(0, "");

  public Footprint {
    checkArgument(bytes >= 0, "bytes must not be negative: %s", bytes);
    checkArgument(basis != null, "basis must not be null");
  }

  /** {@code count} objects of {@code bytesEach}, saturating instead of overflowing. */
  public static long times(long count, long bytesEach) {
    return count != 0 && bytesEach > Long.MAX_VALUE / count ? Long.MAX_VALUE : count * bytesEach;
  }

  /** {@code a + b}, saturating. */
  public static long plus(long a, long b) {
    return a > Long.MAX_VALUE - b ? Long.MAX_VALUE : a + b;
  }
}
