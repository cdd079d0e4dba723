package org.lockvisor.reproductions.virtioblk;

import java.util.LinkedHashMap;
import java.util.Map;
import org.lockvisor.experiment.runner.ExperimentResult;

/**
 * The figures of one run of virtio-blk-notify, read from its {@link ExperimentResult}: the fio
 * workload's IOPS and completion latency, and the virtio-blk device's statistics (notify exits,
 * EVENT_IDX suppression, guest spin on {@code vq_lock}, the VMM lock, the main loop), per second of
 * the run's measurement window.
 */
record NotifyFigures(double iops, double clatP50Us, double exitsPerS, double meanExitUs, long kicks,
    long kicksSuppressed,
    double kicksSuppressedShare, long interrupts, long interruptsSuppressed, double spinMsPerS,
    double spinDuringExitMsPerS, double exitUnderLockShare, long vmmLockContentions, long tagWaits,
    long interruptExits, double exitP50Us, double exitP90Us, double exitP99Us, double exitMaxUs,
    long bqlHeldIterations, long mmioRegisterExits, long mainLoopIterations) {

  /** The figures of {@code r}: fio's and virtio-blk's, per second of its measurement window. */
  static NotifyFigures of(ExperimentResult r) {
    Map<String, Number> device = r.devices().get(0).stats();
    Map<String, Number> fio = r.workload(VirtioBlkNotifyReproduction.VM, VirtioBlkNotifyReproduction.FIO).figures();
    double seconds = r.simulatedNs() / 1e9;
    long exits = stat(device, "notify_exits");
    long kicks = stat(device, "vq.kicks");
    long suppressed = stat(device, "vq.kicks_suppressed");
    Number clat = fio.get("clat_p50_ns");
    return new NotifyFigures(fio.get("iops").doubleValue(), clat == null ? 0 : clat.doubleValue() / 1e3,
        exits / seconds, exits == 0 ? 0 : stat(device, "notify_exit_ns") / 1e3 / exits, kicks, suppressed,
        kicks + suppressed == 0 ? 0 : (double) suppressed / (kicks + suppressed), stat(device, "vq.interrupts"),
        stat(device, "vq.interrupts_suppressed"),
        (stat(device, "vq_lock_spin_ns.virtio_queue_rq") + stat(device, "vq_lock_spin_ns.virtblk_done")) / 1e6
            / seconds,
        stat(device, "vq_lock_spin_ns.during_notify_exit") / 1e6 / seconds,
        exits == 0 ? 0 : (double) stat(device, "notify_exits_under_vq_lock") / exits,
        stat(device, "vmm_lock.contentions"), stat(device, "tag_waits"), stat(device, "interrupt_exits"),
        stat(device, "notify_exit_p50_ns") / 1e3, stat(device, "notify_exit_p90_ns") / 1e3,
        stat(device, "notify_exit_p99_ns") / 1e3, stat(device, "notify_exit_max_ns") / 1e3,
        stat(device, "main_loop.bql_held_iterations"), stat(device, "mmio_register_exits"),
        stat(device, "main_loop.iterations"));
  }

  private static long stat(Map<String, Number> stats, String key) {
    Number n = stats.get(key);
    return n == null ? 0 : n.longValue();
  }

  Map<String, Object> json() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("iops", Math.round(iops));
    m.put("clat_p50_us", VirtioBlkNotifyReproduction.round1(clatP50Us));
    m.put("notify_exits_per_s", Math.round(exitsPerS));
    m.put("notify_exit_mean_us", VirtioBlkNotifyReproduction.round1(meanExitUs));
    m.put("notify_exit_p50_us", VirtioBlkNotifyReproduction.round1(exitP50Us));
    m.put("notify_exit_p90_us", VirtioBlkNotifyReproduction.round1(exitP90Us));
    m.put("notify_exit_p99_us", VirtioBlkNotifyReproduction.round1(exitP99Us));
    m.put("notify_exit_max_us", VirtioBlkNotifyReproduction.round1(exitMaxUs));
    m.put("main_loop_iterations", mainLoopIterations);
    m.put("main_loop_bql_held_iterations", bqlHeldIterations);
    m.put("mmio_register_exits", mmioRegisterExits);
    m.put("notify_exits_under_vq_lock_share", VirtioBlkNotifyReproduction.round3(exitUnderLockShare));
    m.put("kicks", kicks);
    m.put("kicks_suppressed_by_event_idx", kicksSuppressed);
    m.put("kicks_suppressed_share", VirtioBlkNotifyReproduction.round3(kicksSuppressedShare));
    m.put("interrupts", interrupts);
    m.put("interrupts_suppressed_by_event_idx", interruptsSuppressed);
    m.put("interrupt_exits", interruptExits);
    m.put("vq_lock_spin_ms_per_s", VirtioBlkNotifyReproduction.round1(spinMsPerS));
    m.put("vq_lock_spin_during_notify_exit_ms_per_s", VirtioBlkNotifyReproduction.round1(spinDuringExitMsPerS));
    m.put("vmm_lock_contentions", vmmLockContentions);
    m.put("blk_mq_tag_waits", tagWaits);
    return m;
  }
}
