package org.lockvisor.devices.spi;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

/**
 * A virtio split ring (virtio 0.9.5/1.0 "vring") as both sides use it: the guest driver's
 * {@code drivers/virtio/virtio_ring.c} (3.x) and the device's side as QEMU's
 * {@code hw/virtio/virtio.c} (2014) implements it. It holds no simulated time; the device model
 * prices each call with the program that makes it.
 *
 * <p>Indexes are free-running u16 counters (kept as ints masked to 16 bits) and wrap at 65536;
 * ring slots are {@code idx & (num - 1)}. Notification suppression:
 * <ul>
 *   <li>Without EVENT_IDX the driver kicks unless the device set {@code VRING_USED_F_NO_NOTIFY},
 *       and the device interrupts unless the driver set {@code VRING_AVAIL_F_NO_INTERRUPT}.
 *   <li>With EVENT_IDX the driver kicks only if the new avail entries cross the device's
 *       {@code avail_event}, and the device interrupts only if the new used entries cross the
 *       driver's {@code used_event}: {@link #vringNeedEvent}.
 * </ul>
 * Device side as in QEMU 1.5–2.0 {@code hw/virtio/virtio.c} {@code virtqueue_pop} [V]: every pop
 * publishes {@code vring_avail_event(vq, vring_avail_idx(vq))}, i.e. {@code avail_event} = the
 * driver's <em>current</em> {@code avail->idx} re-read at the pop, not {@code last_avail_idx}. So
 * after any pop the driver's next added entry crosses {@code avail_event} and kicks, even while
 * the device still has a backlog to pop; the device never sets NO_NOTIFY while it processes
 * (virtio-blk outside dataplane never calls {@code virtio_queue_set_notification}).
 *
 * <p>Not thread-safe by design: the driver side is serialised by the driver's lock (vq_lock)
 * and the device side by the VMM's, exactly as in the kernel and QEMU.
 *
 * <p>Above 30 methods on purpose: one vring serves both sides, the driver's API of
 * drivers/virtio/virtio_ring.c ({@code add}, {@code kickPrepare}, {@code getBuf}, {@code
 * disableCb}, {@code enableCb}) and the device's of QEMU's hw/virtio ({@code pop}, {@code
 * pushUsed}, {@code needInterrupt}, notification control), one method per kernel and QEMU
 * function, over the same indices and event-idx fields; splitting the two sides would copy the
 * index arithmetic ({@link #vringNeedEvent}) into both and change the SPI device plugins use.
 */
public final class Virtqueue {
  /** {@code VRING_AVAIL_F_NO_INTERRUPT}: driver asks the device not to interrupt. */
  public static final int VRING_AVAIL_F_NO_INTERRUPT = 1;
  /** {@code VRING_USED_F_NO_NOTIFY}: device asks the driver not to kick. */
  public static final int VRING_USED_F_NO_NOTIFY = 1;

  private static final int U16 = 0xffff;

  private final String name;
  private final int num;
  private final boolean eventIdx;

  // descriptor table: per head, the driver's token and the number of descriptors it uses
  private final Object[] tokens;
  private final int[] descriptorsOf;
  private final int[] freeHeads;
  private int freeHeadCount;
  private int numFree;

  // avail ring: written by the driver
  private final int[] availRing;
  private int availIdx;
  private int availFlags;
  private int usedEvent; // vring_used_event(): lives in the avail ring

  // used ring: written by the device
  private final int[] usedRing;
  private int usedIdx;
  private int usedFlags;
  private int availEvent; // vring_avail_event(): lives in the used ring
  /** QEMU's {@code vq->notification} (true from {@code virtio_init}): see {@link #setNotification}. */
  private boolean notification = true;

  // driver-private (struct vring_virtqueue)
  private int numAdded;
  private int lastUsedIdx;

  // device-private (QEMU VirtQueue)
  private int lastAvailIdx;
  /** vhost's {@code vq->avail_idx}: the driver's avail index as the device last read it ({@link #readAvail}). */
  private int seenAvailIdx;
  private int signalledUsed;
  private boolean signalledUsedValid;

  // statistics
  private long adds;
  private long addsRingFull;
  private long kicks;
  private long kicksSuppressed;
  private long interrupts;
  private long interruptsSuppressed;

  /** A ring of {@code num} descriptors (a power of two) with EVENT_IDX negotiated or not. */
  public Virtqueue(String name, int num, boolean eventIdx) {
    this(name, num, eventIdx, 0);
  }

  /**
   * As {@link #Virtqueue(String, int, boolean)}, with every index starting at
   * {@code initialIdx} instead of 0 — for tests of u16 wraparound (a ring that has run for a
   * while looks exactly like this).
   */
  public Virtqueue(String name, int num, boolean eventIdx, int initialIdx) {
    checkArgument(num > 0 && num <= 32768 && Integer.bitCount(num) == 1,
        "virtqueue size must be a power of two in [1, 32768]: %s", num);
    checkArgument(initialIdx >= 0 && initialIdx <= U16, "initial index must be a u16: %s", initialIdx);
    this.name = name;
    this.num = num;
    this.eventIdx = eventIdx;
    this.tokens = new Object[num];
    this.descriptorsOf = new int[num];
    this.freeHeads = new int[num];
    for (int i = 0; i < num; i++) {
      freeHeads[i] = num - 1 - i;
    }
    this.freeHeadCount = num;
    this.numFree = num;
    this.availRing = new int[num];
    this.usedRing = new int[num];
    this.availIdx = initialIdx;
    this.lastAvailIdx = initialIdx;
    this.seenAvailIdx = initialIdx;
    this.usedIdx = initialIdx;
    this.lastUsedIdx = initialIdx;
    this.usedEvent = initialIdx;
    this.availEvent = initialIdx;
    this.signalledUsed = initialIdx;
  }

  /**
   * {@code vring_need_event(event_idx, new_idx, old)} from {@code include/uapi/linux/virtio_ring.h}:
   * {@code (__u16)(new_idx - event_idx - 1) < (__u16)(new_idx - old)}, i.e. whether the entries
   * {@code [old, new_idx)} just published include {@code event_idx}, in u16 arithmetic.
   */
  public static boolean vringNeedEvent(int eventIdx, int newIdx, int old) {
    return ((newIdx - eventIdx - 1) & U16) < ((newIdx - old) & U16);
  }

  public String name() {
    return name;
  }

  public int size() {
    return num;
  }

  public boolean eventIdx() {
    return eventIdx;
  }

  // -----------------------------------------------------------------------------------------
  // Driver side (guest, under vq_lock).

  /**
   * {@code virtqueue_add_sgs}: takes {@code descriptors} descriptors (1 with indirect
   * descriptors), publishes the head in the avail ring and bumps {@code avail->idx}. Returns the
   * head, or -1 when the ring has too few free descriptors ({@code -ENOSPC}).
   */
  public int add(Object token, int descriptors) {
    checkArgument(token != null, "token must not be null");
    checkArgument(descriptors > 0 && descriptors <= num, "descriptors out of range: %s", descriptors);
    if (numFree < descriptors || freeHeadCount == 0) {
      addsRingFull++;
      return -1;
    }
    int head = freeHeads[--freeHeadCount];
    tokens[head] = token;
    descriptorsOf[head] = descriptors;
    numFree -= descriptors;
    availRing[availIdx & (num - 1)] = head;
    availIdx = (availIdx + 1) & U16; // after the write barrier
    numAdded++;
    adds++;
    return head;
  }

  /**
   * {@code virtqueue_kick_prepare}: whether the device must be notified of the entries added
   * since the last call. Must be serialised with {@link #add} (the driver holds vq_lock).
   */
  public boolean kickPrepare() {
    int newIdx = availIdx;
    int old = (availIdx - numAdded) & U16;
    int added = numAdded;
    numAdded = 0;
    boolean needKick;
    if (eventIdx) {
      needKick = vringNeedEvent(availEvent, newIdx, old);
    } else {
      needKick = (usedFlags & VRING_USED_F_NO_NOTIFY) == 0;
    }
    if (added > 0) {
      if (needKick) {
        kicks++;
      } else {
        kicksSuppressed++;
      }
    } else if (needKick) {
      kicks++; // a flag-based kick with nothing new (the error path of virtio_queue_rq)
    }
    return needKick;
  }

  /** Whether the used ring holds entries the driver has not taken ({@code more_used}). */
  public boolean moreUsed() {
    return lastUsedIdx != usedIdx;
  }

  /**
   * {@code virtqueue_get_buf}: the token of the next used entry (its descriptors freed), or null.
   * Unless callbacks are disabled it also publishes {@code used_event = last_used_idx}.
   */
  public Object getBuf() {
    if (!moreUsed()) {
      return null;
    }
    int head = usedRing[lastUsedIdx & (num - 1)];
    lastUsedIdx = (lastUsedIdx + 1) & U16;
    Object token = tokens[head];
    checkState(token != null, "%s: used entry %s has no token", name, head);
    tokens[head] = null;
    numFree += descriptorsOf[head];
    freeHeads[freeHeadCount++] = head;
    if ((availFlags & VRING_AVAIL_F_NO_INTERRUPT) == 0) {
      usedEvent = lastUsedIdx;
    }
    return token;
  }

  /** {@code virtqueue_disable_cb}: sets VRING_AVAIL_F_NO_INTERRUPT (used_event is left alone). */
  public void disableCb() {
    availFlags |= VRING_AVAIL_F_NO_INTERRUPT;
  }

  /**
   * {@code virtqueue_enable_cb}: clears NO_INTERRUPT, publishes {@code used_event =
   * last_used_idx}, and returns false if more used entries arrived meanwhile (the caller must
   * drain again), true otherwise.
   */
  public boolean enableCb() {
    availFlags &= ~VRING_AVAIL_F_NO_INTERRUPT;
    usedEvent = lastUsedIdx;
    return !moreUsed();
  }

  public int numFree() {
    return numFree;
  }

  public int numAdded() {
    return numAdded;
  }

  // -----------------------------------------------------------------------------------------
  // Device side (host VMM).

  /** How many avail entries the device has not popped (vhost {@code get_rx_bufs} needs a packet's headcount). */
  public int availCount() {
    return (availIdx - lastAvailIdx) & U16;
  }

  /** Whether the avail ring holds entries the device has not popped. */
  public boolean hasAvail() {
    return lastAvailIdx != availIdx;
  }

  /**
   * QEMU's {@code virtqueue_pop} (hw/virtio/virtio.c, 1.5–2.0): the next avail head, or -1. Under
   * EVENT_IDX it then publishes {@code avail_event = vring_avail_idx(vq)}: the driver's avail
   * index as the device reads it now, which is ahead of {@code last_avail_idx} whenever the
   * device has a backlog. The driver's next add after this pop therefore asks for a kick.
   */
  public int pop() {
    if (!hasAvail()) {
      return -1;
    }
    int head = availRing[lastAvailIdx & (num - 1)];
    lastAvailIdx = (lastAvailIdx + 1) & U16;
    if (eventIdx) {
      setAvailEvent(availIdx);
    }
    return head;
  }

  /**
   * Later QEMU's {@code virtqueue_pop} (hw/virtio/virtio.c; read in the 2.4–2.6 sources, and
   * {@code virtqueue_split_pop} since): the next avail head, or -1; under EVENT_IDX it then
   * publishes {@code avail_event = last_avail_idx}, i.e. only the entries the device has popped.
   * While the device has a backlog the driver's next add does not cross it and is not kicked.
   */
  public int popLastAvail() {
    int head = popQuiet();
    if (head >= 0 && eventIdx) {
      setAvailEvent(lastAvailIdx);
    }
    return head;
  }

  /**
   * QEMU's {@code virtio_queue_set_notification(vq, enable)} (hw/virtio/virtio.c, read in 2.8.1):
   * {@code vq->notification = enable}, then under EVENT_IDX {@code vring_set_avail_event(vq,
   * vring_avail_idx(vq))}, which writes nothing while notifications are disabled ({@code if
   * (!vq->notification) return;}): disabling leaves {@code avail_event} where the last write put
   * it, enabling publishes the driver's current index. Without EVENT_IDX it clears or sets
   * {@code VRING_USED_F_NO_NOTIFY}. The pops ({@link #pop}, {@link #popLastAvail}) write through
   * the same guard, so while the device processes with notifications off the driver kicks at most
   * once, when its adds first cross the stale {@code avail_event}.
   */
  public void setNotification(boolean enable) {
    notification = enable;
    if (eventIdx) {
      setAvailEvent(availIdx);
    } else {
      setNoNotify(!enable);
    }
  }

  /** QEMU's {@code vring_set_avail_event} (2.8): no write while {@code vq->notification} is off. */
  private void setAvailEvent(int value) {
    if (notification) {
      availEvent = value;
    }
  }

  /**
   * vhost's {@code vhost_get_vq_desc} (drivers/vhost/vhost.c, 3.x): the next avail head, or -1,
   * <em>without</em> publishing avail_event. vhost writes avail_event only in
   * {@link #enableNotify()}, so while the worker processes, the driver's kicks are suppressed
   * once the stale event index has been crossed.
   */
  public int popQuiet() {
    if (!hasAvail()) {
      return -1;
    }
    int head = availRing[lastAvailIdx & (num - 1)];
    lastAvailIdx = (lastAvailIdx + 1) & U16;
    return head;
  }

  /**
   * vhost's {@code vhost_enable_notify} (3.x): under EVENT_IDX publishes
   * {@code avail_event = last_avail_idx}, else clears VRING_USED_F_NO_NOTIFY; then re-reads
   * {@code avail->idx} and returns true if entries arrived meanwhile (the caller disables again
   * and goes on processing).
   */
  public boolean enableNotify() {
    if (eventIdx) {
      availEvent = lastAvailIdx;
    } else {
      usedFlags &= ~VRING_USED_F_NO_NOTIFY;
    }
    return hasAvail();
  }

  /**
   * vhost's read of {@code avail->idx} into {@code vq->avail_idx} ({@code vhost_get_vq_desc},
   * drivers/vhost/vhost.c 3.0.27), as {@code get_rx_bufs} does while it gathers a packet's
   * buffers: records the index the device has seen and returns the entries it may pop.
   */
  public int readAvail() {
    seenAvailIdx = availIdx;
    return availCount();
  }

  /**
   * vhost's {@code vhost_enable_notify} exactly as 3.0.27 writes it (drivers/vhost/vhost.c):
   * under EVENT_IDX publishes {@code avail_event = vq->avail_idx} (the index the device last read,
   * {@link #readAvail}), else clears VRING_USED_F_NO_NOTIFY; returns {@code avail->idx !=
   * vq->avail_idx}: true only if the driver added entries since that read. With an empty ring it
   * equals {@link #enableNotify()}; it differs when {@code handle_rx} found some buffers but fewer
   * than a packet's headcount: then nothing new means false (wait for the driver's kick, which
   * the published index asks for), not a retry.
   */
  public boolean enableNotifySinceRead() {
    if (eventIdx) {
      availEvent = seenAvailIdx;
    } else {
      usedFlags &= ~VRING_USED_F_NO_NOTIFY;
    }
    return availIdx != seenAvailIdx;
  }

  /**
   * vhost's {@code vhost_disable_notify} (3.x): sets VRING_USED_F_NO_NOTIFY without EVENT_IDX;
   * under EVENT_IDX it writes nothing (the stale avail_event does the suppressing).
   */
  public void disableNotify() {
    if (!eventIdx) {
      usedFlags |= VRING_USED_F_NO_NOTIFY;
    }
  }

  /** The driver token of a head (what the device reads from the descriptors). */
  public Object token(int head) {
    return tokens[head];
  }

  /** {@code virtqueue_push} (fill + flush): publishes one used entry. */
  public void pushUsed(int head) {
    checkArgument(head >= 0 && head < num && tokens[head] != null, "%s: bad used head %s", name, head);
    usedRing[usedIdx & (num - 1)] = head;
    usedIdx = (usedIdx + 1) & U16;
  }

  /**
   * QEMU {@code vring_notify} (behind {@code virtio_notify}): whether to interrupt the driver
   * for the used entries published since the last call.
   */
  public boolean needInterrupt() {
    boolean need;
    if (!eventIdx) {
      need = (availFlags & VRING_AVAIL_F_NO_INTERRUPT) == 0;
    } else {
      int old = signalledUsed;
      boolean valid = signalledUsedValid;
      signalledUsed = usedIdx;
      signalledUsedValid = true;
      need = !valid || vringNeedEvent(usedEvent, usedIdx, old);
    }
    if (need) {
      interrupts++;
    } else {
      interruptsSuppressed++;
    }
    return need;
  }

  /** Device sets or clears VRING_USED_F_NO_NOTIFY (only consulted without EVENT_IDX). */
  public void setNoNotify(boolean on) {
    usedFlags = on ? usedFlags | VRING_USED_F_NO_NOTIFY : usedFlags & ~VRING_USED_F_NO_NOTIFY;
  }

  // -----------------------------------------------------------------------------------------
  // Indexes (read-only views for tests and traces).

  public int availIdx() {
    return availIdx;
  }

  public int usedIdx() {
    return usedIdx;
  }

  public int lastUsedIdx() {
    return lastUsedIdx;
  }

  public int lastAvailIdx() {
    return lastAvailIdx;
  }

  public int availEvent() {
    return availEvent;
  }

  public int usedEvent() {
    return usedEvent;
  }

  /** Entries published by the driver and not yet returned to it. */
  public int outstanding() {
    return num - freeHeadCount;
  }

  // -----------------------------------------------------------------------------------------
  // Statistics.

  public long adds() {
    return adds;
  }

  public long addsRingFull() {
    return addsRingFull;
  }

  /** kick_prepare calls that asked for a notify. */
  public long kicks() {
    return kicks;
  }

  /** kick_prepare calls with new entries that EVENT_IDX or NO_NOTIFY suppressed. */
  public long kicksSuppressed() {
    return kicksSuppressed;
  }

  public long interrupts() {
    return interrupts;
  }

  public long interruptsSuppressed() {
    return interruptsSuppressed;
  }

  public void resetStats() {
    adds = addsRingFull = kicks = kicksSuppressed = interrupts = interruptsSuppressed = 0;
  }

  @Override
  public String toString() {
    return name + "[avail=" + availIdx + " used=" + usedIdx + " lastUsed=" + lastUsedIdx
        + " lastAvail=" + lastAvailIdx + " availEvent=" + availEvent + " usedEvent=" + usedEvent + "]";
  }
}
