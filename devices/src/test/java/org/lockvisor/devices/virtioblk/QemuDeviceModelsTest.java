package org.lockvisor.devices.virtioblk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.lockvisor.devices.testing.TestMachines.MS;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.plugin.BoundOptions;
import org.lockvisor.devices.spi.DeviceContext;
import org.lockvisor.devices.spi.Virtqueue;
import org.lockvisor.devices.testing.TestLocks;
import org.lockvisor.devices.testing.TestMachines;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Vm;

/**
 * The QEMU device models of virtio-blk against the 2014 sources they cite: QEMU 2.0's
 * x-data-plane {@code handle_notify} pops every available request before one {@code ioq_submit}
 * (hw/block/dataplane/virtio-blk.c); a virtio-mmio level interrupt costs the guest's {@code
 * vm_interrupt} two register exits to QEMU plus the 3.15 vGIC's EOI maintenance exit
 * (drivers/virtio/virtio_mmio.c, virt/kvm/arm/vgic.c); QEMU 2.0's main loop keeps the BQL while
 * bottom halves are pending (main-loop.c {@code os_host_main_loop_wait}); and the queue policies'
 * ring arithmetic (hw/virtio/virtio.c 2.0 and later).
 */
class QemuDeviceModelsTest {

  private static VirtioBlk attach(Machine m, Vm vm, VirtioBlkConfig config) {
    VirtioBlk d = new VirtioBlk("vda", config, VirtioBlkCosts.from(TestMachines.X86_COSTS));
    d.attach(DeviceContext.of("dev", BoundOptions.none("test device"), TestMachines.X86_COSTS, new TestLocks(60), vm));
    return d;
  }

  private static long stat(VirtioBlk d, String key) {
    return d.stats().get(key).longValue();
  }

  @Test
  void dataplane_onePlugOfEight_popsAllBeforeOneIoSubmit() {
    Machine m = TestMachines.machine(11, 4);
    Vm vm = TestMachines.vm(m, 2);
    // a backend slow enough that nothing completes in the window: one kick, one handle_notify
    VirtioBlk d = attach(m, vm, VirtioBlkConfig.defaults().withVmm(VirtioBlkConfig.Vmm.QEMU_2_0_DATAPLANE)
        .withBackend(64, 5 * MS, false));
    new VirtioBlkTest.Submitters(m, vm, d, 1, 8);
    m.sim().runUntil(MS);
    assertThat(d.notifies()).as("one plug, one kick").isEqualTo(1);
    assertThat(stat(d, "dataplane.ioq_submits")).as("one io_submit for the burst").isEqualTo(1);
    assertThat(stat(d, "dataplane.iocbs_submitted")).as("every available request").isEqualTo(8);
    assertThat(d.virtqueue().hasAvail()).isFalse();
  }

  @Test
  void dataplane_closedLoop_batchesSubmissionsAndNeverTakesTheBql() {
    Machine m = TestMachines.machine(12, 6);
    Vm vm = TestMachines.vm(m, 4);
    VirtioBlk d = attach(m, vm, VirtioBlkConfig.defaults().withVmm(VirtioBlkConfig.Vmm.QEMU_2_0_DATAPLANE));
    new VirtioBlkTest.Submitters(m, vm, d, 4, 8);
    m.sim().runUntil(20 * MS);
    assertThat(d.completed()).isGreaterThan(100);
    assertThat(stat(d, "dataplane.iocbs_submitted")).isGreaterThan(stat(d, "dataplane.ioq_submits"));
    assertThat(d.globalLock()).as("no BQL in the dataplane thread").isNull();
    assertThat(d.stats()).doesNotContainKey("vmm_lock.acquisitions");
    assertThat(d.queuePolicy().name()).isEqualTo("qemu-2.0-dataplane");
  }

  @Test
  void mmioLevelInterrupt_eachInterrupt_twoRegisterExitsThroughTheBqlAndOneEoiExit() {
    Machine m = TestMachines.machine(13, 6);
    Vm vm = TestMachines.vm(m, 2);
    VirtioBlk d = attach(m, vm, VirtioBlkConfig.defaults().withNotifyPath("userspace")
        .withInterruptTransport(VirtioBlkConfig.InterruptTransport.MMIO_LEVEL).withBackend(8, 20_000, false));
    new VirtioBlkTest.Submitters(m, vm, d, 1, 1); // one request at a time: every completion interrupts
    m.sim().runUntil(10 * MS);
    long eoi = stat(d, "eoi_maintenance_exits");
    assertThat(eoi).isGreaterThan(50);
    assertThat(stat(d, "mmio_register_exits")).as("status read + ACK write per interrupt").isEqualTo(2 * eoi);
    assertThat(stat(d, "virtblk_done_runs")).isEqualTo(eoi);
    // every register exit and every notify exit took the BQL, besides the main loop's own
    assertThat(stat(d, "vmm_lock.acquisitions")).isGreaterThanOrEqualTo(stat(d, "mmio_register_exits") + d.notifies());
  }

  @Test
  void msiInterrupt_closedLoop_noRegisterOrEoiExits() {
    Machine m = TestMachines.machine(13, 6);
    Vm vm = TestMachines.vm(m, 2);
    VirtioBlk d = attach(m, vm, VirtioBlkConfig.defaults().withNotifyPath("userspace").withBackend(8, 20_000, false));
    new VirtioBlkTest.Submitters(m, vm, d, 1, 1);
    m.sim().runUntil(10 * MS);
    assertThat(stat(d, "virtblk_done_runs")).isGreaterThan(50);
    assertThat(stat(d, "mmio_register_exits")).isZero();
    assertThat(stat(d, "eoi_maintenance_exits")).isZero();
  }

  @Test
  void mainLoop_bottomHalvesPending_keepsTheBql() {
    Machine m = TestMachines.machine(14, 6);
    Vm vm = TestMachines.vm(m, 4);
    VirtioBlk d = attach(m, vm, VirtioBlkConfig.defaults().withNotifyPath("userspace"));
    new VirtioBlkTest.Submitters(m, vm, d, 4, 8);
    long[] checked = {0};
    m.sim().setEventBudget(50_000_000);
    m.sim().setObserver((time, kind, arg) -> {
      if (d.pendingBottomHalves() > 0 && stat(d, "main_loop.forced_timeouts") == 0) {
        checked[0]++;
        assertThat(d.globalLock().owner()).as("BQL owner with bottom halves pending at %s", time)
            .isSameAs(d.mainLoopThread());
      }
    });
    m.sim().runUntil(10 * MS);
    assertThat(checked[0]).isPositive();
    assertThat(stat(d, "main_loop.bql_held_iterations")).as("zero-timeout iterations").isPositive();
    assertThat(stat(d, "vmm_lock.contentions")).as("vCPU exits queue behind the main loop").isPositive();
  }

  @Test
  void queuePolicy_qemu20Pop_publishesCurrentAvailIdx_nextAddKicks() {
    Virtqueue vq = ring();
    QueuePolicies.qemu20().pop(vq); // avail_event = 3 (the driver's current index), backlog 2
    vq.add("d", 1);
    assertThat(vq.kickPrepare()).isTrue();
  }

  @Test
  void queuePolicy_lastAvailIdx_withBacklog_nextAddSuppressed() {
    Virtqueue vq = ring();
    QueuePolicies.lastAvailIdx().pop(vq); // avail_event = 1, entries 1 and 2 not popped yet
    vq.add("d", 1);
    assertThat(vq.kickPrepare()).isFalse();
    assertThat(vq.availEvent()).isEqualTo(1);
  }

  @Test
  void queuePolicy_suppressWhileProcessing_reenablesAndReportsLateAdds() {
    // QEMU 2.8.1 hw/virtio/virtio.c: vring_set_avail_event returns while vq->notification is
    // off, so neither virtio_queue_set_notification(vq, 0) nor the pops write avail_event
    Virtqueue vq = ring(); // avail_event 0, three entries added (the first add crossed it)
    QueuePolicy p = QueuePolicies.suppressWhileProcessing();
    p.beforePopLoop(vq);
    assertThat(vq.availEvent()).as("disabling writes nothing").isZero();
    while (vq.hasAvail()) {
      p.pop(vq);
    }
    assertThat(vq.availEvent()).as("pops with notifications off write nothing").isZero();
    vq.add("late", 1);
    assertThat(vq.kickPrepare()).as("3 -> 4 does not cross the stale avail_event 0").isFalse();
    assertThat(vq.kicksSuppressed()).isEqualTo(1);
    assertThat(p.afterPopLoop(vq)).as("the late entry is popped in another pass").isTrue();
    assertThat(vq.availEvent()).as("enabling publishes the driver's index").isEqualTo(vq.availIdx());
    vq.add("after", 1);
    assertThat(vq.kickPrepare()).as("an add after re-enabling crosses it").isTrue();
  }

  @Test
  void queuePolicy_dataplane_enableAfterEmptyRing_falseWhenNothingNew() {
    Virtqueue vq = ring();
    QueuePolicy p = QueuePolicies.qemu20Dataplane();
    p.beforePopLoop(vq);
    while (vq.hasAvail()) {
      p.pop(vq);
    }
    assertThat(p.afterPopLoop(vq)).isFalse();
    assertThat(vq.availEvent()).isEqualTo(3);
  }

  @Test
  void customQueuePolicy_passedToTheDevice_isUsedForEveryPop() {
    int[] pops = {0};
    QueuePolicy counting = new QueuePolicy() {
      @Override
      public String name() {
        return "counting";
      }

      @Override
      public int pop(Virtqueue vq) {
        pops[0]++;
        return vq.pop();
      }
    };
    Machine m = TestMachines.machine(15, 4);
    Vm vm = TestMachines.vm(m, 2);
    VirtioBlk d = new VirtioBlk("vda", VirtioBlkConfig.defaults(), VirtioBlkCosts.from(TestMachines.X86_COSTS),
        counting);
    d.attach(DeviceContext.of("dev", BoundOptions.none("test device"), TestMachines.X86_COSTS, new TestLocks(60), vm));
    new VirtioBlkTest.Submitters(m, vm, d, 2, 4);
    m.sim().runUntil(5 * MS);
    assertThat(pops[0]).isPositive();
    assertThat(pops[0]).as("every pop, none behind its back").isEqualTo(d.virtqueue().lastAvailIdx());
  }

  @Test
  void factory_dataplaneWithUserspaceNotify_refused() {
    assertThatThrownBy(() -> VirtioBlkFactory.config(Map.of("vmm", "qemu-2.0-dataplane", "notify-path", "userspace")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ioeventfd");
    assertThatThrownBy(() -> VirtioBlkFactory.config(Map.of("vmm", "qemu-2.0-dataplane",
        "interrupt-transport", "mmio-level")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("irqfd");
  }

  @Test
  void factory_newOptions_bindToConfig() {
    VirtioBlkConfig c = VirtioBlkFactory.config(Map.of("vmm", "qemu-2.0-dataplane", "queue-policy",
        "suppress-while-processing", "interrupt-transport", "msi"));
    assertThat(c.vmm()).isEqualTo(VirtioBlkConfig.Vmm.QEMU_2_0_DATAPLANE);
    assertThat(c.resolveQueuePolicy().name()).isEqualTo("suppress-while-processing");
    assertThat(VirtioBlkConfig.defaults().resolveQueuePolicy().name()).isEqualTo("qemu-2.0");
    assertThatThrownBy(() -> VirtioBlkFactory.config(Map.of("queue-policy", "qemu-9")))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /** A ring whose driver published three entries (avail->idx 3) and whose device popped none. */
  private static Virtqueue ring() {
    Virtqueue vq = new Virtqueue("t", 8, true);
    vq.add("a", 1);
    vq.add("b", 1);
    vq.add("c", 1);
    vq.kickPrepare();
    return vq;
  }
}
