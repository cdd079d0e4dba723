package org.lockvisor.scheduler.builtin;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import org.lockvisor.core.sim.EventHandler;
import org.lockvisor.core.sim.EventQueue;
import org.lockvisor.core.sim.Simulation;

/**
 * The PowerVM dispatch window that {@link PowervmDispatchScheduler} and its gang dispatch ({@link
 * PowervmGang}) share: the window's length, each LPAR's entitled capacity per window spread over
 * its VPs, and the one timer at the next window boundary (its event goes to the scheduler, which
 * refills the entitlements). Split out of {@link PowervmDispatchScheduler} so the gang reads this state without
 * calling back into the scheduler.
 */
final class PowervmWindow {
  private final long windowNs;
  private final double defaultUnits;
  private final Map<String, Double> unitsByVm = new HashMap<>(); // lookups only, never iterated
  private final EventHandler boundaryHandler;
  private final int boundaryKind;
  private long handle = EventQueue.NO_EVENT;

  /**
   * @param processorUnits entitled capacity of each LPAR without its own ({@link #entitle}); 0 or
   *     less entitles every VP to a whole processor
   * @param boundaryHandler receives the boundary event (kind {@code boundaryKind}) and calls
   *     {@link #fired()}
   */
  PowervmWindow(long windowNs, double processorUnits, EventHandler boundaryHandler, int boundaryKind) {
    this.windowNs = windowNs;
    this.defaultUnits = processorUnits;
    this.boundaryHandler = boundaryHandler;
    this.boundaryKind = boundaryKind;
  }

  long windowNs() {
    return windowNs;
  }

  /** Sets the entitled capacity of the LPAR (VM) named {@code vmName}. */
  void entitle(String vmName, double processorUnits) {
    checkArgument(processorUnits > 0, "entitlement of [%s] must be positive: %s", vmName, processorUnits);
    unitsByVm.put(vmName, processorUnits);
  }

  /**
   * The entitlement per window of each of {@code vps} VPs of LPAR {@code vmName}: its entitled
   * capacity ({@link #entitle}, else the default; 0 or less: a processor per VP) spread equally,
   * at most one window.
   */
  long entitledNs(String vmName, int vps) {
    Double units = unitsByVm.get(vmName);
    double u = units != null ? units : defaultUnits <= 0 ? vps : defaultUnits;
    return Math.min(windowNs, Math.round(u / vps * windowNs));
  }

  /** The first VP of {@code queue} with entitlement left, or null. */
  PowervmVp firstEntitled(ArrayDeque<PowervmVp> queue, long now) {
    for (PowervmVp vp : queue) {
      if (vp.remaining(now, windowNs) > 0) {
        return vp;
      }
    }
    return null;
  }

  /** Arms the timer at the next window boundary unless it is armed. */
  void arm(Simulation sim) {
    if (handle == EventQueue.NO_EVENT) {
      long next = (sim.now() / windowNs + 1) * windowNs;
      handle = sim.scheduleAt(next, boundaryHandler, boundaryKind, 0);
    }
  }

  /** The boundary event was delivered: the timer is no longer armed. */
  void fired() {
    handle = EventQueue.NO_EVENT;
  }
}
