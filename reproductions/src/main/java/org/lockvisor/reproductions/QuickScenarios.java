package org.lockvisor.reproductions;

import org.lockvisor.reproductions.support.QuickScenario;
import org.lockvisor.reproductions.vcpupreempted.SchedMessagingQuickScenario;
import org.lockvisor.reproductions.vhost.VhostQuickScenario;
import org.lockvisor.reproductions.virtioblk.NotifyQuickScenario;

/**
 * The public entry to each reproduction's quick scenario, one machine run per {@link
 * QuickScenario#run()}: what {@code benchmarks} times, without reaching into the reproductions'
 * packages.
 */
public final class QuickScenarios {

  private QuickScenarios() {}

  /** R1 vhost-wakeup: iperf with {@code streams} streams over vhost-net, baseline variant. */
  public static QuickScenario vhostWakeup(int streams) {
    return VhostQuickScenario.of(streams);
  }

  /** R2 virtio-blk-notify: fio randread on {@code arch} ({@code arm64-kvm} or {@code x86_64-kvm}), baseline. */
  public static QuickScenario virtioBlkNotify(String arch) {
    return NotifyQuickScenario.of(arch);
  }

  /** R3 vcpu-preempted: sched messaging on {@code platform} ({@code ppc64-powervm} or {@code x86_64-kvm}), baseline. */
  public static QuickScenario vcpuPreempted(String platform) {
    return SchedMessagingQuickScenario.of(platform);
  }
}
