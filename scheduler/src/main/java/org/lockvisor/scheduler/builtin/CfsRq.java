package org.lockvisor.scheduler.builtin;

import static com.google.common.base.Preconditions.checkState;

import java.util.Arrays;
import org.lockvisor.core.sim.EventQueue;

/**
 * One CPU's {@code struct cfs_rq} for {@link CfsScheduler} (Linux 2.6.38–6.5
 * kernel/sched/fair.c): the timeline of queued entities — an indexed binary min-heap ordered by
 * (vruntime, enqueue sequence), equal keys behind earlier arrivals as {@code __enqueue_entity}'s
 * rbtree insert puts them right — the current entity outside it ({@code cfs_rq->curr}), the next
 * and skip buddies, {@code min_vruntime} ({@code update_min_vruntime}), the runqueue's PELT
 * {@code runnable_load_avg} ({@code enqueue_entity_load_avg}/{@code dequeue_entity_load_avg},
 * era 4.8) and the per-CPU balancing state ({@code idle_stamp}, {@code avg_idle}, per-domain
 * {@code last_balance}/{@code balance_interval}/{@code nr_balance_failed}, the active-balance
 * request). Allocates nothing per event; the heap doubles when it is full.
 *
 * <p>Load: era 3.0 (no PELT before 3.8) the runqueue's runnable weight at that instant, standing
 * in for {@code cpu_load[idx]}; era 4.8 PELT as Linux 4.8 kernel/sched/fair.c has it ({@link
 * Pelt}: {@code __update_load_avg} with the kernel's decay tables; {@code
 * init_entity_runnable_average}: a new task starts at its full weight; {@code
 * enqueue_entity_load_avg}/{@code dequeue_entity_load_avg}: a task decays over its blocked time
 * and its load joins or leaves the runqueue's {@code runnable_load_avg}; {@code entity_tick}
 * updates the running task and its runqueue). {@code find_idlest_group}/{@code find_idlest_cpu}
 * ({@code forkexec_idx} 0), {@code wake_affine} ({@code wake_idx} 0 and the wakee's {@code
 * se.avg.load_avg}) and {@code load_balance} ({@code weighted_cpuload}, {@code task_h_load}) read
 * the values as last updated. Blocked load is not counted ({@code weighted_cpuload} is {@code
 * runnable_load_avg} in 4.8); left out are {@code util_avg}, frequency/capacity scaling and the
 * {@code cpu_load[]} history of {@code busy_idx}/{@code idle_idx}.
 *
 * <p>Split out of {@link CfsScheduler}.
 */
final class CfsRq {
  final int index;
  /** PELT load tracking (era 4.8): loads read runnable_load_avg. */
  final boolean pelt;
  CfsEntity[] heap = new CfsEntity[8];
  int size;
  long queuedLoad;
  CfsEntity curr;
  /** Buddies: next (yield_to target), skip (the yielder). */
  CfsEntity next;
  CfsEntity skip;
  long minVruntime;
  long hrtickHandle = EventQueue.NO_EVENT;
  long migrationsIn;
  /** idle_stamp (-1: not idle) and avg_idle, starting at twice the migration cost (sched_init). */
  long idleStamp = -1;
  long avgIdle = 2 * CfsLoadBalancer.MIGRATION_COST_NS;
  long nextBalance;
  long[] lastBalance;
  long[] balanceInterval;
  int[] nrBalanceFailed;
  int activeBalanceTarget = -1;
  /** The entity put back last (the stopper's victim for active balance). */
  CfsEntity lastPut;
  /** PELT runnable_load_sum / runnable_load_avg of the cfs_rq (era 4.8). */
  final Pelt avg = new Pelt();

  CfsRq(int index, boolean pelt) {
    this.index = index;
    this.pelt = pelt;
  }

  /** The per-domain balancing state, once the domains are built ({@code sd->balance_interval} at its minimum). */
  void initBalance(SchedDomains domains) {
    lastBalance = new long[domains.count()];
    balanceInterval = new long[domains.count()];
    nrBalanceFailed = new int[domains.count()];
    for (int l = 0; l < domains.count(); l++) {
      balanceInterval[l] = domains.level(l).minIntervalMs();
    }
  }

  /** {@code rq->nr_running}: queued entities plus the current one. */
  int nrRunning() {
    return size + (curr != null ? 1 : 0);
  }

  /** {@code cfs_rq->load.weight}: the runnable weight, current entity included. */
  long load() {
    return queuedLoad + (curr != null ? curr.task.weight : 0);
  }

  /**
   * weighted_cpuload / source_load / target_load at index 0: era 4.8 the PELT {@code
   * runnable_load_avg} of the cfs_rq as last updated (a remote runqueue is read, not updated, as
   * the kernel does); era 3.0 the runqueue's runnable weight ({@code rq->load.weight}).
   */
  long cpuLoad() {
    return pelt ? avg.avg : load();
  }

  /** update_min_vruntime: the monotonic floor of curr's and the leftmost entity's vruntime. */
  void updateMinVruntime() {
    boolean any = false;
    long v = 0;
    if (curr != null) {
      v = curr.vruntime;
      any = true;
    }
    if (size > 0) {
      long left = heap[0].vruntime;
      v = any ? Math.min(v, left) : left;
      any = true;
    }
    if (any && v > minVruntime) {
      minVruntime = v;
    }
  }

  /**
   * enqueue_entity_load_avg (4.8): the entity decays over the time it was blocked (weight 0; a new
   * task starts with its full weight, {@code init_entity_runnable_average}), the cfs_rq is brought
   * up to date with the weight it had, and the entity's load joins {@code runnable_load_avg}.
   */
  void peltEnqueue(CfsEntity se, long now) {
    if (!pelt) {
      return;
    }
    if (se.avg.last == Long.MIN_VALUE) {
      se.avg.last = now; // attach_entity_load_avg of post_init_entity_util_avg: synced to now
    } else {
      se.avg.update(now, 0);
    }
    avg.update(now, load());
    avg.avg += se.avg.avg;
    avg.sum += se.avg.sum;
  }

  /**
   * dequeue_entity_load_avg (4.8): entity and cfs_rq brought up to date while still runnable, then
   * the entity's load leaves {@code runnable_load_avg} (clamped at zero, as the kernel's max_t).
   */
  void peltDequeue(CfsEntity se, long now) {
    if (!pelt) {
      return;
    }
    se.avg.update(now, se.task.weight);
    avg.update(now, load());
    avg.avg = Math.max(0, avg.avg - se.avg.avg);
    avg.sum = Math.max(0, avg.sum - se.avg.sum);
  }

  // ---------------------------------------------------------------------------------------
  // The timeline: an indexed binary min-heap ordered by (vruntime, enqueue sequence).

  void insert(CfsEntity se, long seq, long now) {
    checkState(se.heapIndex < 0, "%s is queued already", se.task);
    se.seq = seq;
    se.waitStart = now;
    se.rqIndex = index;
    if (size == heap.length) {
      heap = Arrays.copyOf(heap, heap.length * 2);
    }
    heap[size] = se;
    se.heapIndex = size;
    size++;
    queuedLoad += se.task.weight;
    siftUp(se.heapIndex);
  }

  void remove(CfsEntity se) {
    if (next == se) {
      next = null;
    }
    if (skip == se) {
      skip = null;
    }
    int i = se.heapIndex;
    checkState(i >= 0 && i < size && heap[i] == se, "%s is not in runqueue %s", se.task, index);
    size--;
    queuedLoad -= se.task.weight;
    se.heapIndex = -1;
    if (i != size) {
      CfsEntity last = heap[size];
      heap[i] = last;
      last.heapIndex = i;
      siftDown(i);
      siftUp(last.heapIndex);
    }
    heap[size] = null;
  }

  /** The second entity in vruntime order: the smaller child of the heap's root. */
  CfsEntity secondLeftmost() {
    if (size < 2) {
      return null;
    }
    if (size == 2 || CfsEntity.before(heap[1], heap[2])) {
      return heap[1];
    }
    return heap[2];
  }

  private void siftUp(int i) {
    CfsEntity[] h = heap;
    CfsEntity x = h[i];
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      CfsEntity p = h[parent];
      if (!CfsEntity.before(x, p)) {
        break;
      }
      h[i] = p;
      p.heapIndex = i;
      i = parent;
    }
    h[i] = x;
    x.heapIndex = i;
  }

  private void siftDown(int i) {
    CfsEntity[] h = heap;
    int n = size;
    CfsEntity x = h[i];
    while (true) {
      int child = 2 * i + 1;
      if (child >= n) {
        break;
      }
      if (child + 1 < n && CfsEntity.before(h[child + 1], h[child])) {
        child++;
      }
      if (!CfsEntity.before(h[child], x)) {
        break;
      }
      h[i] = h[child];
      h[i].heapIndex = i;
      i = child;
    }
    h[i] = x;
    x.heapIndex = i;
  }
}
