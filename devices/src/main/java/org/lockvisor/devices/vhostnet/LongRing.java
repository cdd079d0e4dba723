package org.lockvisor.devices.vhostnet;

/** A growable FIFO of longs (allocation-free once grown). */
final class LongRing {
  private long[] a = new long[64];
  private int head;
  private int size;

  void add(long v) {
    if (size == a.length) {
      long[] b = new long[a.length * 2];
      for (int i = 0; i < size; i++) {
        b[i] = a[(head + i) % a.length];
      }
      a = b;
      head = 0;
    }
    a[(head + size) % a.length] = v;
    size++;
  }

  long poll() {
    long v = a[head];
    head = (head + 1) % a.length;
    size--;
    return v;
  }

  long peek() {
    return a[head];
  }

  boolean isEmpty() {
    return size == 0;
  }

  int size() {
    return size;
  }
}
