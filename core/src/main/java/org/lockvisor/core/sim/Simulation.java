package org.lockvisor.core.sim;

import static com.google.common.base.Preconditions.checkArgument;

import org.lockvisor.core.random.RandomStreams;

/**
 * The discrete-event engine: simulated time in {@code long} nanoseconds, one future-event set,
 * named random streams derived from one root seed, and a fingerprint over every processed event.
 *
 * <p>A run is a pure function of (model, seed): ties on time are broken by insertion order and
 * the fingerprint is a rolling hash of (time, kind, arg) of each processed event, so two runs
 * that processed the same events in the same order end with the same fingerprint.
 */
public final class Simulation {

  private final EventQueue queue = new EventQueue(1024);
  private final RandomStreams streams;
  private final long seed;
  private long now;
  private long events;
  private long fingerprint = 0x9E3779B97F4A7C15L;
  private boolean stopped;
  private long eventBudget = Long.MAX_VALUE;
  private EventObserver observer;
  private EventHandler current;

  public Simulation(long seed) {
    this.seed = seed;
    this.streams = new RandomStreams(seed);
  }

  /** Current simulated time in nanoseconds. */
  public long now() {
    return now;
  }

  public long seed() {
    return seed;
  }

  public RandomStreams streams() {
    return streams;
  }

  /** Schedules an event {@code delay} ns from now; returns a handle for {@link #cancel}. */
  public long schedule(long delay, EventHandler handler, int kind, long arg) {
    checkArgument(delay >= 0, "negative delay: %s", delay);
    long time = now + delay;
    checkArgument(time >= 0, "delay %s overflows simulated time", delay);
    return queue.push(time, handler, kind, arg);
  }

  /** Schedules an event at absolute time {@code time} (not in the past). */
  public long scheduleAt(long time, EventHandler handler, int kind, long arg) {
    checkArgument(time >= now, "time %s is before now %s", time, now);
    return queue.push(time, handler, kind, arg);
  }

  /** Cancels a pending event; false if it already ran, was cancelled, or the handle is NO_EVENT. */
  public boolean cancel(long handle) {
    return queue.cancel(handle);
  }

  /** Due time of a pending event, or -1. */
  public long timeOf(long handle) {
    return queue.timeOf(handle);
  }

  public int pendingEvents() {
    return queue.size();
  }

  /** Processes events in order until the next one is after {@code endTime}, then sets now = endTime. */
  public void runUntil(long endTime) {
    checkArgument(endTime >= now, "endTime %s is before now %s", endTime, now);
    stopped = false;
    EventQueue q = queue;
    while (!stopped && q.size() > 0 && q.peekTime() <= endTime) {
      if (events >= eventBudget) {
        throw new EventBudgetExceededException(eventBudget, now);
      }
      q.pop();
      long t = q.poppedTime();
      int kind = q.poppedKind();
      long arg = q.poppedArg();
      now = t;
      events++;
      fingerprint = mix(fingerprint ^ t) + (kind * 0x9E3779B97F4A7C15L) + arg;
      EventHandler h = q.poppedHandler();
      current = h;
      h.onEvent(kind, arg);
      if (observer != null) {
        observer.afterEvent(t, kind, arg);
      }
    }
    if (!stopped) {
      now = Math.max(now, endTime);
    }
  }

  /** Processes every pending event (for models that terminate on their own). */
  public void runToCompletion() {
    runUntil(Long.MAX_VALUE);
  }

  /** Stops {@link #runUntil} after the current event. */
  public void stop() {
    stopped = true;
  }

  public boolean isStopped() {
    return stopped;
  }

  /** The handler of the event being (or last) processed, or null; for observers' reports. */
  public EventHandler currentHandler() {
    return current;
  }

  public long eventsProcessed() {
    return events;
  }

  /** Rolling hash over all processed events. */
  public long fingerprint() {
    return fingerprint;
  }

  /** Fails the run with {@link EventBudgetExceededException} after this many events. */
  public void setEventBudget(long budget) {
    checkArgument(budget > 0, "event budget must be positive: %s", budget);
    this.eventBudget = budget;
  }

  /** Installs an observer called after every event (invariant checking, tracing); null removes it. */
  public void setObserver(EventObserver observer) {
    this.observer = observer;
  }

  /**
   * Schedule exploration hook: a non-zero salt makes the order of simultaneous events a
   * pseudo-random permutation keyed by the salt (0, the default, is insertion order). Must be
   * set before anything is scheduled.
   */
  public void setTieBreakSalt(long salt) {
    queue.setTieBreakSalt(salt);
  }

  /** SplitMix64 finalizer. */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
