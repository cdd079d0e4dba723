package org.lockvisor.machine;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * The CPU topology a kernel sees, from which its scheduling domains are built (kernel/sched/core.c
 * {@code build_sched_domains} over the arch's {@code sched_domain_topology}): SMT siblings of a
 * core, the CPUs sharing the last-level cache ({@code sd_llc}: the highest domain with {@code
 * SD_SHARE_PKG_RESOURCES}) and the CPUs of one die/package; above that, the whole machine (NUMA
 * or a second package). CPU numbers are dense: SMT siblings adjacent, then cores of an LLC, then
 * LLCs of a die.
 *
 * <p>The era's rules, applied by {@code Platforms}: x86 (3.x–4.x {@code default_topology}: SMT,
 * MC = {@code cpu_coregroup_mask} = the socket's LLC, DIE): the LLC is the socket; powerpc before
 * POWER9 (4.8 arch/powerpc/kernel/smp.c {@code powerpc_topology} = {SMT, DIE}, SMT with {@code
 * SD_SHARE_PKG_RESOURCES}): the LLC is a core's SMT threads, so with one thread per virtual
 * processor every CPU is its own LLC; arm64 (4.x: SMT, MC = cluster, DIE) and s390 (SMT, MC =
 * chip, BOOK, DIE): the MC level.
 *
 * @param threadsPerCore CPUs per core (the SMT domain)
 * @param coresPerLlc cores per last-level cache (the LLC domain spans {@code threadsPerCore ×
 *     coresPerLlc} CPUs)
 * @param llcsPerDie LLCs per die or package (the DIE domain); the level above spans every CPU
 */
public record CpuTopology(int threadsPerCore, int coresPerLlc, int llcsPerDie) {
  public CpuTopology {
    checkArgument(threadsPerCore > 0, "threadsPerCore must be positive: [%s]", threadsPerCore);
    checkArgument(coresPerLlc > 0, "coresPerLlc must be positive: [%s]", coresPerLlc);
    checkArgument(llcsPerDie > 0, "llcsPerDie must be positive: [%s]", llcsPerDie);
  }

  /** One LLC of {@code llcCpus} single-threaded cores, one die. */
  public static CpuTopology flat(int llcCpus) {
    return new CpuTopology(1, Math.max(1, llcCpus), 1);
  }

  /** CPUs per LLC domain. */
  public int llcCpus() {
    return threadsPerCore * coresPerLlc;
  }

  /** CPUs per die. */
  public int dieCpus() {
    return llcCpus() * llcsPerDie;
  }
}
