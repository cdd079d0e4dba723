package org.lockvisor.experiment.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.arch.builtin.Arm64KvmArchProfile;
import org.lockvisor.arch.builtin.Ppc64PowerVmArchProfile;
import org.lockvisor.arch.builtin.X86KvmArchProfile;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.devices.virtioblk.VirtioBlkFactory;

/**
 * The two device options the arch profile decides are derived from it when the experiment leaves
 * them out: {@code notify-path} from the profile's notify path and {@code posted-interrupts} from
 * its {@code postedInterrupts}; a value the experiment gives wins, and a notify path the device
 * does not model (PowerVM's hcall to the I/O server) leaves the device's own default. Every
 * built-in profile has posted interrupts off (the 2011-2016 hosts of the seeds), so a changed
 * profile shows the derivation is real.
 */
class DeviceProfileOptionsTest {
  private static final VirtioBlkFactory BLK = new VirtioBlkFactory();

  @Test
  void leftOut_takenFromTheProfile() {
    assertThat(MachineAssembler.profileDefaults(BLK, Map.of(), new Arm64KvmArchProfile().create()))
        .containsEntry("notify-path", "userspace").containsEntry("posted-interrupts", "false");
    assertThat(MachineAssembler.profileDefaults(BLK, Map.of(), new X86KvmArchProfile().create()))
        .containsEntry("notify-path", "ioeventfd");
  }

  @Test
  void postedInterruptsProfile_derivesTrue_experimentValueWins() {
    ArchProfile x86 = new X86KvmArchProfile().create();
    ArchProfile posted = x86.withHypervisor(x86.hypervisor().toBuilder().postedInterrupts(true).build());

    assertThat(MachineAssembler.profileDefaults(BLK, Map.of(), posted)).containsEntry("posted-interrupts", "true");
    assertThat(MachineAssembler.profileDefaults(BLK, Map.of("posted-interrupts", "false"), posted))
        .containsEntry("posted-interrupts", "false");
    assertThat(MachineAssembler.profileDefaults(BLK, Map.of("notify-path", "userspace"), x86))
        .containsEntry("notify-path", "userspace");
  }

  @Test
  void powerVmHcallNotify_notModelledByVirtioBlk_leavesTheDeviceDefault() {
    assertThat(MachineAssembler.profileDefaults(BLK, Map.of(), new Ppc64PowerVmArchProfile().create()))
        .doesNotContainKey("notify-path");
  }
}
