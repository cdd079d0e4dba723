package org.lockvisor.reproductions.vcpupreempted;

import org.junit.jupiter.api.Test;
import org.lockvisor.workloads.schedmessaging.SchedMessagingConfig;

class ProbeTest {
  @Test
  void probe() {
    int groups = Integer.getInteger("probe.groups", 20);
    int pcpus = Integer.getInteger("probe.pcpus", 8);
    String profile = System.getProperty("probe.profile", "ppc64-powervm");
    for (boolean check : Boolean.getBoolean("probe.baselineOnly") ? new boolean[] {false} : new boolean[] {false, true}) {
      long t0 = System.nanoTime();
      var o = SchedMessagingRun.run(new SchedMessagingRun.Platform(profile, pcpus, Integer.getInteger("probe.vcpus", 2 * pcpus)), check,
          SchedMessagingConfig.perfDefaults().withGroups(groups), 1, Long.getLong("probe.limitMs", 60_000L) * 1_000_000L);
      long wall = System.nanoTime() - t0;
      System.out.printf("check=%s wall=%.1fs sim=%.3fs events=%d total=%.3fs %s %s%n", check, wall / 1e9,
          o.simulatedNs() / 1e9, o.events(), o.workload().totalTimeNs() / 1e9, o.workload().figures(), o.lockStats());
      Runtime rt = Runtime.getRuntime();
      System.gc();
      System.out.printf("heap used %.0f MB of max %.0f MB; exited %d%n", (rt.totalMemory() - rt.freeMemory()) / 1e6,
          rt.maxMemory() / 1e6, o.workload().exited());
      o.report().format(25).forEach(System.out::println);
    }
  }
}
