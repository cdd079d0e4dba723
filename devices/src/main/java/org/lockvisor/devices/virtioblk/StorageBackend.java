package org.lockvisor.devices.virtioblk;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.ArrayDeque;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.lockvisor.core.random.RandomStreams;
import org.lockvisor.core.sim.EventHandler;
import org.lockvisor.core.sim.Simulation;

/**
 * The storage behind the VMM's AIO: a FIFO server with {@code depth} parallel slots (the
 * device's queue depth) and a per-request service time, constant or exponential. Completion is
 * an engine event; the device decides what the host does with it.
 */
final class StorageBackend implements EventHandler {
  private final Simulation sim;
  private final int depth;
  private final long serviceNs;
  private final boolean exponential;
  private final SplittableRandom random;
  private final Consumer<Object> onDone;
  private final ArrayDeque<Object> waiting = new ArrayDeque<>();
  private final Object[] slots;
  private final int[] freeSlots;
  private int freeCount;
  private long served;
  private long busyNsStart;
  private long busySlotNs;

  StorageBackend(Simulation sim, String streamName, int depth, long serviceNs, boolean exponential,
      Consumer<Object> onDone) {
    checkArgument(depth > 0, "backend depth must be positive: %s", depth);
    checkArgument(serviceNs >= 0, "backend service time must not be negative: %s", serviceNs);
    this.sim = sim;
    this.depth = depth;
    this.serviceNs = serviceNs;
    this.exponential = exponential;
    this.random = sim.streams().get(streamName);
    this.onDone = onDone;
    this.slots = new Object[depth];
    this.freeSlots = new int[depth];
    for (int i = 0; i < depth; i++) {
      freeSlots[i] = depth - 1 - i;
    }
    this.freeCount = depth;
  }

  void submit(Object request) {
    if (freeCount > 0) {
      start(request);
    } else {
      waiting.add(request);
    }
  }

  private void start(Object request) {
    int slot = freeSlots[--freeCount];
    slots[slot] = request;
    long d = exponential ? RandomStreams.exponential(random, serviceNs) : serviceNs;
    busySlotNs -= sim.now();
    sim.schedule(d, this, 0, slot);
  }

  @Override
  public void onEvent(int kind, long arg) {
    int slot = (int) arg;
    Object r = slots[slot];
    slots[slot] = null;
    freeSlots[freeCount++] = slot;
    busySlotNs += sim.now();
    served++;
    if (!waiting.isEmpty()) {
      start(waiting.poll());
    }
    onDone.accept(r);
  }

  int inService() {
    return depth - freeCount;
  }

  int queued() {
    return waiting.size();
  }

  long served() {
    return served;
  }

  /** Average busy slots since the last reset. */
  double utilisation(long sinceNs) {
    long span = sim.now() - sinceNs;
    if (span <= 0) {
      return 0;
    }
    return (double) (busySlotNs + (long) inService() * sim.now()) / span / depth;
  }

  void resetStats() {
    served = 0;
    busySlotNs = -(long) inService() * sim.now();
  }
}
