package org.lockvisor.experiment.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.model.ExperimentYaml;

/**
 * QEMU 2.8's virtio-blk handler ({@code virtio_blk_handle_vq}, hw/block/virtio-blk.c: {@code do {
 * virtio_queue_set_notification(vq, 0); pop all; virtio_queue_set_notification(vq, 1); } while
 * (!virtio_queue_empty(vq))}) with EVENT_IDX on. hw/virtio/virtio.c 2.8's {@code
 * vring_set_avail_event} writes nothing while {@code vq->notification} is off, so during a pass
 * {@code avail_event} stays where the last enable put it: the driver's adds cross it at most once,
 * where the plain {@code last_avail_idx} pop lets every add that finds the device caught up kick
 * again. With several fio jobs at iodepth > 1 the guest adds while the device processes, so
 * there are fewer kicks; with one job at iodepth 1 it never does, so nothing changes.
 */
class SuppressWhileProcessingTest {
  private static final ExperimentPlugins PLUGINS = ExperimentPlugins.discover(
      SuppressWhileProcessingTest.class.getClassLoader());

  private static Map<String, Number> run(String policy, int jobs, int iodepth) {
    String text = """
        name: suppress-while-processing
        arch: x86_64-kvm
        seed: 3
        warmup: 200us
        duration: 10ms
        host: {cpus: 5}
        vms:
          - name: vm0
            vcpus: 4
            pinning: [0, 1, 2, 3]
            devices:
              - name: vda
                type: virtio-blk
                options: {notify: outside-lock, backend-service-ns: 10us, vmm-cpu: 4, event-idx: true,
                          queue-policy: %s}
            workloads:
              - {name: fio, type: fio, options: {numjobs: %d, iodepth: %d, iodepth-batch: 1}}
        """.formatted(policy, jobs, iodepth);
    Experiment e = ExperimentYaml.read("test", text);
    ExperimentRunner runner = new ExperimentRunner(PLUGINS);
    runner.validate("test", e);
    return runner.runAll("test", e).get(0).devices().get(0).stats();
  }

  @Test
  void eventIdx_severalJobsDeepQueue_fewerKicksThanTheLastAvailIdxPop() {
    Map<String, Number> plain = run("last-avail-idx", 4, 2);
    Map<String, Number> suppress = run("suppress-while-processing", 4, 2);

    assertThat(suppress.get("vq.kicks").longValue()).isLessThan(plain.get("vq.kicks").longValue());
    assertThat(suppress.get("vq.kicks_suppressed").longValue())
        .isGreaterThan(plain.get("vq.kicks_suppressed").longValue());
  }

  @Test
  void eventIdx_oneJobIodepth1_nothingToSuppress() {
    Map<String, Number> plain = run("last-avail-idx", 1, 1);
    Map<String, Number> suppress = run("suppress-while-processing", 1, 1);

    assertThat(suppress.get("vq.kicks_suppressed").longValue()).isZero();
    assertThat(suppress.get("vq.kicks")).isEqualTo(plain.get("vq.kicks"));
  }
}
