package org.lockvisor.reproductions.virtioblk;

import org.junit.jupiter.api.Test;
import org.lockvisor.arch.builtin.ArchProfiles;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.devices.spi.CostSource;
import org.lockvisor.devices.virtioblk.VirtioBlkConfig.NotifyMode;
import org.lockvisor.workloads.fio.FioConfig;

class ExploreTest {
  @Test
  void explore() {
    String[] archs = System.getProperty("archs", "arm64-kvm,x86_64-kvm").split(",");
    long measure = Long.getLong("measure", 50);
    for (String a : archs) {
      ArchProfile p = ArchProfiles.byName(a);
      int vcpus = a.startsWith("arm") ? 4 : 16;
      int[] jobs = a.startsWith("arm") ? new int[] {4} : new int[] {2, 4, 8, 12};
      for (int nj : jobs) {
        for (NotifyMode m : NotifyMode.values()) {
          long t0 = System.nanoTime();
          NotifyScenario s = new NotifyScenario(p, CostSource.of(p), vcpus, m, FioConfig.libaio(nj, "randread", 64), 1)
              .run(10, measure);
          System.out.printf("%s nj=%d %s iops=%.0f exits/s=%.0f meanExit=%.1fus supp=%.2f spin=%.1fms/s spinExit=%.1fms/s p50=%.0fus wall=%dms %s%n",
              a, nj, m, s.iops(), s.exitsPerSecond(), s.meanExitUs(), s.kickSuppressedShare(), s.spinMsPerSecond(),
              s.spinDuringExitMsPerSecond(), s.clatP50Us(), (System.nanoTime() - t0) / 1_000_000, s.device.stats());
        }
      }
    }
  }
}
