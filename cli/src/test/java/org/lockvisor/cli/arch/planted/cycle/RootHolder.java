package org.lockvisor.cli.arch.planted.cycle;

import org.lockvisor.cli.arch.planted.cycle.sub.SubUser;

/** Planted for {@code PlantedViolationsTest}: a root-package class that uses its sub-package. */
public final class RootHolder {

  private RootHolder() {}

  public static int value() {
    return SubUser.one();
  }
}
