package org.lockvisor.cli.arch.planted.split;

/** Planted for {@code SplitClassesTest}: the class a part was split out of. */
public final class Origin {

  private final Part part = new Part();

  public int work() {
    return part.half();
  }

  public static int shared() {
    return 2;
  }
}
