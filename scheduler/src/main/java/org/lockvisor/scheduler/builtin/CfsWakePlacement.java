package org.lockvisor.scheduler.builtin;

import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.Cpu;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.MigrationCause;
import org.lockvisor.machine.SchedStats;
import org.lockvisor.machine.Task;

/**
 * Where {@link CfsScheduler} runs a waking or new task: {@code select_task_rq_fair} of
 * kernel/sched/fair.c (Linux 3.0–4.8) with {@code SD_BALANCE_WAKE} off, as in both eras.
 *
 * <ul>
 *   <li>Wakeup: {@code record_wakee}/{@code wake_wide} (3.12+, era 4.8 only), then {@code
 *       wake_affine} on the lowest domain spanning the waker's and the wakee's previous CPU, then
 *       {@code select_idle_sibling} bounded by the LLC domain ({@code sd_llc}): 3.0 takes the
 *       first idle CPU of the LLC in CPU order; 3.10–4.8 a wholly idle group (core) of the LLC,
 *       then an idle SMT sibling, else the target. Pinning wins.
 *   <li>Fork ({@code SD_BALANCE_FORK}; {@code SD_BALANCE_EXEC} is the same path):
 *       {@code find_idlest_group}/{@code find_idlest_cpu} from the highest domain down, staying
 *       local unless a group is lighter by half the imbalance percentage.
 * </ul>
 *
 * <p>Loads are read as {@link CfsRq#cpuLoad} and {@link CfsEntity#load} have them (PELT in era
 * 4.8, runnable weight in 3.0). One per {@link CfsScheduler}, created when it joins its kernel;
 * allocates nothing per wakeup.
 *
 * <p>Split out of {@link CfsScheduler}: entities and domains come from {@link CfsRunqueues}, never the scheduler.
 */
final class CfsWakePlacement {
  /** record_wakee halves the flips once a second (HZ jiffies). */
  private static final long WAKEE_FLIP_DECAY_NS = 1_000_000_000L;

  private final CfsRunqueues cfs;
  private final Kernel kernel;
  private final Simulation sim;
  private final CfsRq[] rqs;
  private final SchedStats stats;
  private final CfsEra era;
  private final boolean pelt;
  private final boolean wakeAffine;
  private final boolean balancing;

  CfsWakePlacement(CfsRunqueues cfs, Kernel kernel, CfsRq[] rqs, CfsEra era, boolean pelt,
      boolean wakeAffine, boolean balancing) {
    this.cfs = cfs;
    this.kernel = kernel;
    this.sim = kernel.machine().sim();
    this.rqs = rqs;
    this.stats = kernel.schedStats();
    this.era = era;
    this.pelt = pelt;
    this.wakeAffine = wakeAffine;
    this.balancing = balancing;
  }

  /** select_task_rq_fair for a wakeup ({@code wakerCpu} may be null or on another kernel) or a fork. */
  Cpu selectCpu(Task task, Cpu wakerCpu) {
    if (task.pinnedCpu() >= 0) {
      return kernel.cpu(task.pinnedCpu());
    }
    Cpu prev = task.cpu();
    if (prev == null || prev.kernel() != kernel || !cfs.entity(task).placed) {
      Cpu start = wakerCpu != null && wakerCpu.kernel() == kernel ? wakerCpu : kernel.cpu(0);
      Cpu c = balancing ? findIdlest(start, task) : idlest(wakerCpu);
      if (c != start && stats != null && balancing) {
        stats.migrated(MigrationCause.FORK);
      }
      return c;
    }
    Cpu target = prev;
    if (wakeAffine && wakerCpu != null && wakerCpu.kernel() == kernel) {
      Task waker = wakerCpu.current();
      boolean wantAffine = true;
      if (era == CfsEra.LINUX_4_8 && waker != null && waker != wakerCpu.idleTask()
          && waker.kernel() == kernel) {
        recordWakee(cfs.entity(waker), task);
        wantAffine = !wakeWide(cfs.entity(waker), cfs.entity(task));
      }
      if (wantAffine && wakerCpu != prev) {
        SchedDomains d = cfs.domains();
        int level = d.lowestCommon(wakerCpu.index(), prev.index());
        int pct = level < 0 ? 125 : d.level(level).imbalancePct();
        if (affine(wakerCpu, prev, task, pct)) {
          target = wakerCpu;
        }
      }
    }
    Cpu chosen = selectIdleSibling(task, prev, target);
    if (chosen != prev) {
      stats.migrated(MigrationCause.WAKE);
    }
    return chosen;
  }

  /**
   * select_idle_sibling(p, prev, target): target if idle; prev if it shares the LLC and is idle;
   * else within sd_llc: era 3.0 the first idle CPU in CPU order; era 4.8 (3.10+) a group of the
   * LLC level that is wholly idle, then level by level down to an idle SMT sibling; else target.
   */
  private Cpu selectIdleSibling(Task p, Cpu prev, Cpu target) {
    if (availableIdle(target)) {
      return target;
    }
    if (target != prev && kernel.sharesCache(prev, target) && availableIdle(prev)) {
      return prev;
    }
    SchedDomains d = cfs.domains();
    int llc = d.llcLevel();
    if (llc < 0) {
      return target;
    }
    int t = target.index();
    if (era == CfsEra.LINUX_3_0) {
      for (int i = d.spanStart(llc, t); i < d.spanEnd(llc, t); i++) {
        if (availableIdle(kernel.cpu(i))) {
          return kernel.cpu(i);
        }
      }
      return target;
    }
    for (int l = llc; l >= 0; l--) {
      int start = d.spanStart(l, t);
      int end = d.spanEnd(l, t);
      int g = d.level(l).groupSize();
      int groups = (end - start + g - 1) / g;
      int local = (t - start) / g;
      for (int k = 1; k < groups; k++) {
        int gs = start + ((local + k) % groups) * g;
        int ge = Math.min(end, gs + g);
        boolean idle = true;
        for (int i = gs; i < ge && idle; i++) {
          idle = availableIdle(kernel.cpu(i));
        }
        if (idle) {
          return kernel.cpu(gs);
        }
      }
    }
    return target;
  }

  /** record_wakee: the waker's wakee flips count switches of wakee, halved every second. */
  private void recordWakee(CfsEntity waker, Task wakee) {
    long now = sim.now();
    if (now - waker.wakeeFlipDecayTs > WAKEE_FLIP_DECAY_NS) {
      waker.wakeeFlips >>= 1;
      waker.wakeeFlipDecayTs = now;
    }
    if (waker.lastWakee != wakee) {
      waker.lastWakee = wakee;
      waker.wakeeFlips++;
    }
  }

  /** wake_wide (4.8): both fan out to at least an LLC's worth of partners, one by that factor more. */
  private boolean wakeWide(CfsEntity waker, CfsEntity wakee) {
    int factor = Math.max(1, Math.min(kernel.cpuCount(), kernel.topology().llcCpus()));
    int master = Math.max(waker.wakeeFlips, wakee.wakeeFlips);
    int slave = Math.min(waker.wakeeFlips, wakee.wakeeFlips);
    return slave >= factor && master >= (long) slave * factor;
  }

  /**
   * wake_affine (3.x–4.8, root task group, equal capacities, not sync): {@code 100 × (this_load +
   * w) <= (100 + (imbalance_pct - 100) / 2) × prev_load}, or an empty waker runqueue (4.8). The
   * wakee is asleep, so only the waker's side adds its weight ({@code effective_load} of the root
   * group returns its argument).
   */
  private boolean affine(Cpu thisCpu, Cpu prevCpu, Task p, int imbalancePct) {
    long thisLoad = rqs[thisCpu.index()].cpuLoad();
    long prevLoad = rqs[prevCpu.index()].cpuLoad();
    if (thisLoad <= 0) {
      return true;
    }
    long w = cfs.entity(p).load(pelt); // 4.8: p->se.avg.load_avg, as last updated
    return 100 * (thisLoad + w) <= (100 + (imbalancePct - 100) / 2) * prevLoad;
  }

  /** An idle CPU with nothing queued and nothing current ({@code available_idle_cpu}). */
  boolean availableIdle(Cpu c) {
    CfsRq rq = rqs[c.index()];
    return c.isIdle() && rq.size == 0 && rq.curr == null;
  }

  /**
   * SD_BALANCE_FORK placement (select_task_rq_fair's slow path): from the highest domain of
   * {@code start} down, find_idlest_group (the group with the lowest per-CPU load, taken only if
   * {@code 100 × local < (100 + (imbalance_pct - 100) / 2) × idlest}, else the level below), then
   * find_idlest_cpu in it (an idle CPU first, else the least loaded), and on from that CPU one
   * level lower.
   */
  private Cpu findIdlest(Cpu start, Task p) {
    SchedDomains d = cfs.domains();
    int cpu = start.index();
    for (int l = d.count() - 1; l >= 0; l--) {
      SchedDomains.Level level = d.level(l);
      int s0 = d.spanStart(l, cpu);
      int e0 = d.spanEnd(l, cpu);
      int g = level.groupSize();
      int localStart = s0 + (cpu - s0) / g * g;
      long localLoad = 0;
      int localCpus = 0;
      int idlestStart = -1;
      long idlestLoad = 0;
      int idlestCpus = 1;
      int groups = (e0 - s0 + g - 1) / g;
      int localIdx = (cpu - s0) / g;
      for (int k = 0; k < groups; k++) {
        int gs = s0 + ((localIdx + k) % groups) * g;
        int ge = Math.min(e0, gs + g);
        long load = 0;
        for (int i = gs; i < ge; i++) {
          load += rqs[i].cpuLoad();
        }
        if (gs == localStart) {
          localLoad = load;
          localCpus = ge - gs;
        } else if (idlestStart < 0 || load * idlestCpus < idlestLoad * (ge - gs)) {
          idlestStart = gs;
          idlestLoad = load;
          idlestCpus = ge - gs;
        }
      }
      int imbalance = 100 + (level.imbalancePct() - 100) / 2;
      if (idlestStart < 0 || 100 * localLoad * idlestCpus < (long) imbalance * idlestLoad * localCpus) {
        continue; // stay in the local group, one level down
      }
      int best = -1;
      long bestLoad = Long.MAX_VALUE;
      for (int i = idlestStart; i < Math.min(e0, idlestStart + g); i++) {
        if (availableIdle(kernel.cpu(i))) {
          best = i;
          break;
        }
        long load = rqs[i].cpuLoad();
        if (load < bestLoad) {
          best = i;
          bestLoad = load;
        }
      }
      cpu = best;
    }
    return kernel.cpu(cpu);
  }

  /** find_idlest_cpu, reduced: the first idle CPU, else the one with the fewest runnable tasks. */
  private Cpu idlest(Cpu wakerCpu) {
    Cpu best = null;
    for (int i = 0; i < rqs.length; i++) {
      Cpu c = kernel.cpu(i);
      if (availableIdle(c)) {
        return c;
      }
      if (best == null || rqs[i].nrRunning() < rqs[best.index()].nrRunning()) {
        best = c;
      }
    }
    return best;
  }
}
