package org.lockvisor.reproductions.vhost;

import org.junit.jupiter.api.Test;
import org.lockvisor.devices.vhostnet.VhostNetConfig;

class ExploreTest {
  @Test
  void explore() {
    String[] ns = System.getProperty("streams", "1,8,64,256").split(",");
    for (String nn : ns) {
      int n = Integer.parseInt(nn);
      for (VhostNetConfig.WorkQueue w : new VhostNetConfig.WorkQueue[] {VhostNetConfig.WorkQueue.WAKE_INSIDE_LOCK, VhostNetConfig.WorkQueue.WAKE_OUTSIDE_LOCK}) {
        long t0 = System.nanoTime();
        VhostScenario s = new VhostScenario(42, 4, n, w).run(Long.getLong("warm", 50_000_000L), Long.getLong("meas", 100_000_000L));
        System.out.println(n + " " + w + " wall=" + (System.nanoTime() - t0) / 1_000_000 + "ms events=" + s.machine.sim().eventsProcessed());
        System.out.println("  iperf " + s.iperf.figures());
        System.out.println("  dev " + s.device.stats());
        System.out.println("  top " + s.iperf.hostTop().subList(0, Math.min(8, s.iperf.hostTop().size())));
        System.out.println("  worker " + s.device.worker().state() + " onRq=" + s.device.worker().onRq() + " act=" + s.device.worker().activity() + " cpu=" + s.device.worker().cpu() + " txq=" + s.device.txVirtqueue());
      }
    }
  }
}
