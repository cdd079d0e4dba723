package org.lockvisor.machine.observe;

/** A machine invariant failed: the message names the time, the CPUs and tasks involved. */
public final class InvariantViolation extends RuntimeException {
  private final long time;

  public InvariantViolation(long time, String message) {
    super("invariant violated at t=" + time + " ns: " + message);
    this.time = time;
  }

  public long time() {
    return time;
  }
}
