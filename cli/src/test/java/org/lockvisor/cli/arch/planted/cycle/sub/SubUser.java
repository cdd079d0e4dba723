package org.lockvisor.cli.arch.planted.cycle.sub;

import org.lockvisor.cli.arch.planted.cycle.RootHolder;

/** Planted for {@code PlantedViolationsTest}: a sub-package class that calls back into the root package. */
public final class SubUser {

  private SubUser() {}

  public static int one() {
    return 1;
  }

  public static int twice() {
    return 2 * RootHolder.value();
  }
}
