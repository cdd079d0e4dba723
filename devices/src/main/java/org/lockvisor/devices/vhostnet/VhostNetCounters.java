package org.lockvisor.devices.vhostnet;

import java.util.Arrays;

/**
 * The counters of one {@link VhostNet} that its parts bump as they run: the guest driver ({@link
 * VirtioNetDriver}), the host side ({@link VhostWorker}, {@link IrqfdSignal}) and the NIC ({@link
 * NicLink}). A leaf: it reads nothing, so every part can write it while {@link VhostNetStats},
 * which adds what is read from the parts themselves (CPU time, locks, the peer), depends on them
 * one way.
 *
 * <p>Split out of {@link VhostNetStats}.
 */
class VhostNetCounters {
  /** Indexes of the worker's lock counters: work_lock, tun->wq.wait.lock, sk_receive_queue.lock. */
  static final int L_WORK = 0;
  static final int L_WQ = 1;
  static final int L_RXQ = 2;
  static final String[] LOCK_LABELS = {"work_lock", "tun.wq.wait.lock", "sk_receive_queue.lock"};

  long xmits;
  long txRingFull;
  long txPackets;
  long deliveredBytes;
  long qdiscDrops;
  long acks;
  long rxPackets;
  long rxStarved;
  long txSignals;
  long rxSignals;
  long handleTxRuns;
  long handleRxRuns;
  long requeues;
  long wakesIssued;
  long wakesUnderWorkLock;
  long ttwuRemoteInTunRead;
  long secondWakes;
  long kworkerInjects;
  final long[] workerAcquisitions = new long[3];
  final long[] workerCollisions = new long[3];

  /** Zeroes every counter. */
  void resetCounters() {
    xmits = txRingFull = txPackets = deliveredBytes = qdiscDrops = acks = rxPackets = rxStarved = 0;
    txSignals = rxSignals = handleTxRuns = handleRxRuns = requeues = wakesIssued = wakesUnderWorkLock = 0;
    ttwuRemoteInTunRead = secondWakes = kworkerInjects = 0;
    Arrays.fill(workerAcquisitions, 0);
    Arrays.fill(workerCollisions, 0);
  }
}
