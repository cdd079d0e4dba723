package org.lockvisor.scheduler.builtin;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.lockvisor.machine.CpuTopology;

/**
 * Scheduling domains from topology (build_sched_domains with sd_degenerate): an x86 host gets SMT,
 * MC (the socket's LLC) and a level over both sockets; a PowerVM LPAR with one thread per VP has
 * only DIE (4.8 powerpc_topology = {SMT, DIE}), so no sd_llc; 4.8's sd_init parameters differ from
 * 3.0's SD_*_INIT.
 */
class SchedDomainsTest {

  @Test
  void x86Host_twoSocketsOfEightCoresWithSmt2_buildsSmtMcAndNuma() {
    SchedDomains d = new SchedDomains(new CpuTopology(2, 8, 1), 32, CfsEra.LINUX_3_0);

    assertThat(d.toString()).isEqualTo("SMT/2 MC/16 NUMA/32");
    assertThat(d.llcLevel()).isEqualTo(1);
    assertThat(d.level(1).groupSize()).isEqualTo(2);
    assertThat(d.level(1).smtGroups()).isTrue();
    assertThat(d.level(0).imbalancePct()).isEqualTo(110);
    assertThat(d.level(1).imbalancePct()).isEqualTo(125);
    assertThat(d.level(1).busyFactor()).isEqualTo(64);
    // CPUs 3 and 17 share only the top level; 4 and 5 are SMT siblings
    assertThat(d.lowestCommon(3, 17)).isEqualTo(2);
    assertThat(d.lowestCommon(4, 5)).isEqualTo(0);
  }

  @Test
  void powervmLpar_oneThreadPerVp_hasOnlyDieAndNoLlc() {
    SchedDomains d = new SchedDomains(new CpuTopology(1, 1, 32), 32, CfsEra.LINUX_4_8);

    assertThat(d.toString()).isEqualTo("DIE/32");
    assertThat(d.llcLevel()).isEqualTo(-1);
    assertThat(d.level(0).imbalancePct()).isEqualTo(125);
    // sd_init: min_interval = sd_weight ms, max_interval = 2 × sd_weight, busy_factor 32
    assertThat(d.level(0).minIntervalMs()).isEqualTo(32);
    assertThat(d.level(0).maxIntervalMs()).isEqualTo(64);
    assertThat(d.level(0).busyFactor()).isEqualTo(32);
  }

  @Test
  void powervmLpar_smt4_theLlcIsTheVpsThreads() {
    SchedDomains d = new SchedDomains(new CpuTopology(4, 1, 8), 32, CfsEra.LINUX_4_8);

    assertThat(d.toString()).isEqualTo("SMT/4 DIE/32");
    assertThat(d.llcLevel()).isEqualTo(0);
    assertThat(d.level(0).imbalancePct()).isEqualTo(110);
  }

  @Test
  void flatGuest_isOneMcLevelSharingTheLlc_with48Parameters() {
    SchedDomains d = new SchedDomains(CpuTopology.flat(8), 8, CfsEra.LINUX_4_8);

    assertThat(d.toString()).isEqualTo("MC/8");
    assertThat(d.llcLevel()).isZero();
    assertThat(d.level(0).imbalancePct()).isEqualTo(117);
    assertThat(d.level(0).cacheNiceTries()).isEqualTo(1);
  }

  @Test
  void singleCpu_hasNoDomains() {
    assertThat(new SchedDomains(CpuTopology.flat(1), 1, CfsEra.LINUX_3_0).count()).isZero();
  }
}
