package org.lockvisor.devices.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.devices.spi.DeviceFactory;

/**
 * The contract every block device plugin keeps, run on a {@link DeviceTestbed}: every request
 * completes exactly once and is stamped when it completes; completions wake the submitter that
 * sleeps for them; no request is lost when vCPUs are preempted; and throughput obeys Little's law
 * for the depth in flight (IOPS x mean latency <= requests in flight), so a device cannot report
 * more I/O than its own latencies allow. A plugin's test extends this class and provides its
 * factory (and options).
 */
public abstract class BlockDeviceContractTest {

  /** Simulated time each scenario submits for. */
  protected static final long RUN_NS = 20_000_000L;
  /** Simulated time allowed, after submission stops, for every request to complete. */
  protected static final long DRAIN_NS = 200_000_000L;

  /** The device plugin under test. */
  protected abstract DeviceFactory factory();

  /** Options the device is created with (default: none, its defaults). */
  protected Map<String, String> options() {
    return Map.of();
  }

  /** The testbed each scenario starts from; override to adapt sizes. */
  protected DeviceTestbed.Builder testbed(long seed) {
    return DeviceTestbed.builder(factory()).options(options()).seed(seed);
  }

  private static void drain(DeviceTestbed bed) {
    bed.runUntil(RUN_NS);
    bed.stopSubmitting();
    bed.runUntil(RUN_NS + DRAIN_NS);
  }

  @Test
  void requests_completeExactlyOnce() {
    DeviceTestbed bed = testbed(1).build();

    drain(bed);

    assertThat(bed.completionErrors()).as("protocol errors; first: %s", bed.firstCompletionError()).isZero();
    assertThat(bed.submitted()).as("requests submitted in %s ns", RUN_NS).isPositive();
    assertThat(bed.completed()).as("completions after draining").isEqualTo(bed.submitted());
    assertThat(bed.unfinishedSlots()).as("slots with a submission never completed").isZero();
    assertThat(bed.device().inFlight()).as("device's own in-flight count after draining").isZero();
  }

  @Test
  void completions_wakeTheSubmitter() {
    DeviceTestbed bed = testbed(2).jobs(3).build();

    drain(bed);

    // A submitter sleeps after every batch until a completion arrives: one that is never woken
    // reaps nothing, one woken only once reaps at most one batch.
    assertThat(bed.reapedPerSubmitter()).as("completions reaped per submitter")
        .allSatisfy(reaped -> assertThat(reaped).isGreaterThan(10L));
    assertThat(bed.exitedSubmitters()).as("submitters that saw their last completion and exited").isEqualTo(3);
  }

  @Test
  void vcpuPreemption_noRequestLost() {
    DeviceTestbed bed = testbed(3).physicalCpus(2).vcpus(4).jobs(4).hostHogsPerCpu(1).build();

    drain(bed);

    assertThat(bed.completionErrors()).as("protocol errors; first: %s", bed.firstCompletionError()).isZero();
    assertThat(bed.submitted()).isPositive();
    assertThat(bed.completed()).as("completions after draining, vCPUs preempted by host hogs")
        .isEqualTo(bed.submitted());
    assertThat(bed.exitedSubmitters()).isEqualTo(4);
  }

  @Test
  void throughput_boundedByDepthOverLatency() {
    int jobs = 2;
    int depth = 4;
    DeviceTestbed bed = testbed(4).jobs(jobs).depth(depth).build();

    drain(bed);

    // Little's law: mean requests in flight = throughput x mean latency <= jobs x depth. Summed
    // over the run: sum of latencies <= jobs x depth x elapsed time.
    long elapsed = bed.machine().sim().now();
    assertThat(bed.completed()).isPositive();
    assertThat((double) bed.latencySumNs()).as("sum of completion latencies (ns)")
        .isLessThanOrEqualTo((double) jobs * depth * elapsed);
    assertThat(bed.latencySumNs()).as("latencies are positive: a device takes time").isPositive();
  }
}
