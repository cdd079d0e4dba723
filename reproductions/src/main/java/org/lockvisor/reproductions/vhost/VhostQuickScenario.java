package org.lockvisor.reproductions.vhost;

import static com.google.common.base.Preconditions.checkArgument;

import org.lockvisor.devices.vhostnet.VhostNetConfig.WorkQueue;
import org.lockvisor.reproductions.support.QuickScenario;

/**
 * R1 vhost-wakeup's quick scenario for {@code QuickScenarios}: the 4-vCPU guest, iperf with the
 * given number of streams over vhost-net, the baseline variant (wake inside {@code work_lock}),
 * 150 ms warm-up and 60 ms measured, built from scratch as the reproduction does.
 */
public final class VhostQuickScenario implements QuickScenario {
  private final int streams;

  private VhostQuickScenario(int streams) {
    this.streams = streams;
  }

  public static VhostQuickScenario of(int streams) {
    checkArgument(streams > 0, "streams must be positive: %s", streams);
    return new VhostQuickScenario(streams);
  }

  @Override
  public Outcome run() {
    VhostScenario s = new VhostScenario(VhostWakeupReproduction.SEED, VhostWakeupReproduction.GUEST_VCPUS, streams,
        WorkQueue.WAKE_INSIDE_LOCK).run(150_000_000L, 60_000_000L);
    return new Outcome(s.machine.sim().eventsProcessed(), s.machine.sim().now(), s.machine.sim().fingerprint());
  }
}
