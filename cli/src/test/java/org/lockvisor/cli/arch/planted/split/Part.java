package org.lockvisor.cli.arch.planted.split;

/**
 * Planted for {@code SplitClassesTest}: a part that calls back into its origin.
 *
 * <p>Split out of {@link Origin}.
 */
public final class Part {

  int half() {
    return Origin.shared() / 2;
  }
}
