package org.lockvisor.scheduler.builtin;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.List;
import org.lockvisor.machine.CpuTopology;

/**
 * The scheduling domains of one kernel, built as {@code build_sched_domains} does from the
 * topology levels (SMT, MC, DIE, and the whole machine above the die), with degenerate levels
 * (spanning one CPU, or the same CPUs as the level below: {@code sd_degenerate}/{@code
 * sd_parent_degenerate}) removed. Every level spans aligned blocks of consecutive CPUs; its
 * groups are the spans of the level below (single CPUs at the lowest level).
 *
 * <p>Parameters by era:
 *
 * <ul>
 *   <li>{@link CfsEra#LINUX_3_0} (include/linux/topology.h 3.0–3.9 {@code
 *       SD_SIBLING_INIT} / {@code SD_MC_INIT} / {@code SD_CPU_INIT}): intervals 1–2 ms (SMT), 1–4
 *       ms (MC, CPU), {@code busy_factor} 64, {@code imbalance_pct} 110 (SMT) / 125, {@code
 *       cache_nice_tries} 0 (SMT) / 1.
 *   <li>{@link CfsEra#LINUX_4_8} (kernel/sched/core.c 4.8 {@code sd_init}): {@code
 *       min_interval} = span weight ms, {@code max_interval} twice that, {@code busy_factor} 32,
 *       {@code imbalance_pct} 110 (SMT, {@code SD_SHARE_CPUCAPACITY}) / 117 (the LLC, {@code
 *       SD_SHARE_PKG_RESOURCES}) / 125, {@code cache_nice_tries} 0 / 1 / 1.
 * </ul>
 *
 * <p>{@code sd_llc} is the highest level sharing the LLC (none when a CPU is its own LLC).
 */
final class SchedDomains {

  /** One domain level. */
  record Level(String name, int span, int groupSize, boolean smtGroups, int imbalancePct, long minIntervalMs,
      long maxIntervalMs, int busyFactor, int cacheNiceTries, boolean sharesLlc) {}

  private final ImmutableList<Level> levels;
  private final int cpus;
  private final int llcLevel;

  SchedDomains(CpuTopology topology, int cpus, CfsEra era) {
    this.cpus = cpus;
    int smt = Math.min(cpus, topology.threadsPerCore());
    int llc = Math.min(cpus, topology.llcCpus());
    int die = Math.min(cpus, topology.dieCpus());
    List<Level> out = new ArrayList<>();
    int below = 1;
    int[] spans = {smt, llc, die, cpus};
    String[] names = {"SMT", "MC", "DIE", "NUMA"};
    for (int i = 0; i < spans.length; i++) {
      int span = spans[i];
      if (span <= below) {
        continue; // degenerate: one CPU, or the level below again
      }
      boolean smtLevel = i == 0;
      boolean sharesLlc = span <= llc;
      boolean smtGroups = below > 1 && below <= smt;
      out.add(level(names[i], span, below, smtGroups, smtLevel, sharesLlc, era));
      below = span;
    }
    this.levels = ImmutableList.copyOf(out);
    int l = -1;
    for (int i = 0; i < levels.size(); i++) {
      if (levels.get(i).sharesLlc()) {
        l = i;
      }
    }
    this.llcLevel = l;
  }

  private static Level level(String name, int span, int groupSize, boolean smtGroups, boolean smtLevel,
      boolean sharesLlc, CfsEra era) {
    if (era == CfsEra.LINUX_3_0) {
      return smtLevel
          ? new Level(name, span, groupSize, smtGroups, 110, 1, 2, 64, 0, sharesLlc)
          : new Level(name, span, groupSize, smtGroups, 125, 1, 4, 64, 1, sharesLlc);
    }
    int pct = smtLevel ? 110 : sharesLlc ? 117 : 125;
    return new Level(name, span, groupSize, smtGroups, pct, span, 2L * span, 32, smtLevel ? 0 : 1, sharesLlc);
  }

  ImmutableList<Level> levels() {
    return levels;
  }

  int count() {
    return levels.size();
  }

  Level level(int i) {
    return levels.get(i);
  }

  /** Index of sd_llc, or -1 when each CPU is its own LLC. */
  int llcLevel() {
    return llcLevel;
  }

  /** First CPU of {@code cpu}'s domain at level {@code l}. */
  int spanStart(int l, int cpu) {
    int span = levels.get(l).span();
    return cpu / span * span;
  }

  /** One past the last CPU of {@code cpu}'s domain at level {@code l}. */
  int spanEnd(int l, int cpu) {
    return Math.min(cpus, spanStart(l, cpu) + levels.get(l).span());
  }

  /** Lowest level whose span holds both CPUs, or -1 (only when there is no level). */
  int lowestCommon(int a, int b) {
    for (int l = 0; l < levels.size(); l++) {
      int span = levels.get(l).span();
      if (a / span == b / span) {
        return l;
      }
    }
    return -1;
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder();
    for (Level l : levels) {
      b.append(b.length() == 0 ? "" : " ").append(l.name()).append('/').append(l.span());
    }
    return b.toString();
  }
}
