package org.lockvisor.reproductions.virtioblk;

import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.devices.spi.CostSource;
import org.lockvisor.devices.virtioblk.VirtioBlkConfig.NotifyMode;
import org.lockvisor.experiment.model.PluginRegistry;
import org.lockvisor.reproductions.support.QuickScenario;
import org.lockvisor.workloads.fio.FioConfig;

/**
 * R2 virtio-blk-notify's quick scenario for {@code QuickScenarios}: fio randread on virtio-blk,
 * the baseline variant (notify inside {@code vq_lock}), the quick plan (5 ms warm-up, 25 ms
 * measured), on arm64-kvm (4 vCPUs, numjobs 4, exits to the VMM under its global lock) or
 * x86_64-kvm (16 vCPUs, numjobs 2, ioeventfd).
 */
public final class NotifyQuickScenario implements QuickScenario {
  private final ArchProfile profile;
  private final CostSource costs;
  private final int vcpus;
  private final FioConfig fio;

  private NotifyQuickScenario(ArchProfile profile, int vcpus, FioConfig fio) {
    this.profile = profile;
    this.costs = CostSource.of(profile);
    this.vcpus = vcpus;
    this.fio = fio;
  }

  /**
   * @param arch {@code arm64-kvm} or {@code x86_64-kvm}
   * @throws IllegalArgumentException for another profile
   */
  public static NotifyQuickScenario of(String arch) {
    boolean arm = "arm64-kvm".equals(arch);
    if (!arm && !"x86_64-kvm".equals(arch)) {
      throw new IllegalArgumentException("virtio-blk-notify has no quick scenario on [" + arch
          + "]; known: [arm64-kvm, x86_64-kvm]");
    }
    return new NotifyQuickScenario(PluginRegistry.classPath().archProfile(arch),
        arm ? VirtioBlkNotifyReproduction.ARM_VCPUS : VirtioBlkNotifyReproduction.X86_VCPUS,
        FioConfig.libaio(arm ? VirtioBlkNotifyReproduction.ARM_NUMJOBS : 2, "randread",
            VirtioBlkNotifyReproduction.IODEPTH));
  }

  @Override
  public Outcome run() {
    VirtioBlkNotifyReproduction.Plan plan = VirtioBlkNotifyReproduction.plan(true);
    NotifyScenario s = new NotifyScenario(profile, costs, vcpus, NotifyMode.INSIDE_LOCK, fio,
        VirtioBlkNotifyReproduction.SEED).run(plan.warmupMs(), plan.measureMs());
    return new Outcome(s.machine.sim().eventsProcessed(), s.machine.sim().now(), s.machine.sim().fingerprint());
  }
}
