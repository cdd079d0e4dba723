package org.lockvisor.workloads.fio;

import static org.lockvisor.devices.testing.TestMachines.MS;

import com.google.common.collect.ImmutableMap;
import java.util.List;
import java.util.Map;
import org.lockvisor.locking.spi.KernelLocks;
import org.lockvisor.core.plugin.BoundOptions;
import org.lockvisor.devices.spi.DeviceContext;
import org.lockvisor.devices.testing.TestLocks;
import org.lockvisor.devices.testing.TestMachines;
import org.lockvisor.devices.virtioblk.VirtioBlk;
import org.lockvisor.devices.virtioblk.VirtioBlkConfig;
import org.lockvisor.devices.virtioblk.VirtioBlkCosts;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Vm;
import org.lockvisor.workloads.spi.WorkloadContext;

/** One fio-on-virtio-blk run on a small test machine (what the composition root will do). */
final class FioScenario {
  final Machine machine;
  final VirtioBlk device;
  final FioWorkload fio;

  FioScenario(long seed, int pcpus, int vcpus, VirtioBlkConfig deviceConfig, VirtioBlkCosts costs, FioConfig fioConfig) {
    this.machine = TestMachines.machine(seed, pcpus);
    Vm vm = TestMachines.vm(machine, vcpus);
    this.device = new VirtioBlk("vdb", deviceConfig, costs);
    device.attach(DeviceContext.of("dev", BoundOptions.none("test device"), TestMachines.X86_COSTS, new TestLocks(60), vm));
    this.fio = new FioWorkload("fio", fioConfig, FioCosts.from(TestMachines.X86_COSTS));
    fio.start(WorkloadContext.of("fio", BoundOptions.none("workload fio"), TestMachines.X86_COSTS, KernelLocks.NONE, vm,
        Map.of(device.name(), device)));
    machine.sim().setEventBudget(200_000_000);
  }

  /** Runs a warm-up, resets statistics, then runs the measurement window. */
  FioScenario run(long warmupMs, long measureMs) {
    machine.sim().runUntil(warmupMs * MS);
    fio.resetStats();
    device.resetStats();
    machine.sim().runUntil((warmupMs + measureMs) * MS);
    return this;
  }

  double iops() {
    return fio.figures().get("iops").doubleValue();
  }

  long deviceStat(String key) {
    return device.stats().get(key).longValue();
  }

  long vqLockSpinNs() {
    return device.vqLockSpinNsQueueRq() + device.vqLockSpinNsDone();
  }

  ImmutableMap<String, Number> summary() {
    return ImmutableMap.<String, Number>builder()
        .put("iops", Math.round(iops()))
        .put("clat_p50_ns", fio.figures().get("clat_p50_ns"))
        .put("notify_exits", deviceStat("notify_exits"))
        .put("kicks_suppressed", deviceStat("vq.kicks_suppressed"))
        .put("interrupts", deviceStat("vq.interrupts"))
        .put("notify_ns_under_vq_lock", deviceStat("notify_exit_ns_under_vq_lock"))
        .put("vq_lock_spin_ns.virtio_queue_rq", device.vqLockSpinNsQueueRq())
        .put("vq_lock_spin_ns.virtblk_done", device.vqLockSpinNsDone())
        .put("vq_lock_spin_ns.during_notify_exit", device.vqLockSpinNsDuringNotifyExit())
        .put("vmm_lock.contentions", deviceStat("vmm_lock.contentions"))
        .build();
  }
}
