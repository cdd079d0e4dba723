package org.lockvisor.workloads.fio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.lockvisor.devices.testing.TestMachines.MS;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.workloads.spi.WorkloadContext;
import org.lockvisor.locking.spi.KernelLocks;
import org.lockvisor.core.plugin.OptionBinder;
import org.lockvisor.devices.testing.TestMachines;
import org.lockvisor.devices.virtioblk.VirtioBlkConfig;
import org.lockvisor.devices.virtioblk.VirtioBlkCosts;

/**
 * fio on virtio-blk: every I/O a job issued is either reaped or in flight, checked after every
 * event; psync latency is bounded below by the backend's service time; the report has fio's
 * JSON shape; options are strict.
 */
class FioWorkloadTest {

  @Test
  void libaio_fourJobsIodepth8OnFourVcpus_completesAndConservesIos() {
    FioScenario s = new FioScenario(7, 4, 4, VirtioBlkConfig.defaults(), VirtioBlkCosts.from(TestMachines.X86_COSTS),
        FioConfig.libaio(4, "randread", 8));
    s.machine.sim().setObserver((time, kind, arg) -> {
      long issued = s.fio.issued();
      long reaped = s.fio.completed();
      long inFlight = s.fio.inFlight();
      if (issued != reaped + inFlight || inFlight > 32 || inFlight < 0) {
        throw new AssertionError("at " + time + ": issued " + issued + " != reaped " + reaped + " + in flight " + inFlight);
      }
      if (s.device.submitted() != s.device.completed() + s.device.inFlight()) {
        throw new AssertionError("at " + time + ": device lost a request: " + s.device.stats());
      }
    });
    s.machine.sim().runUntil(20 * MS);

    assertThat(s.fio.completed()).isGreaterThan(500);
    assertThat(s.fio.issued()).isEqualTo(s.fio.completed() + s.fio.inFlight());
    assertThat(s.device.submitted()).isEqualTo(s.fio.issued());
    // completed by the device but not yet reaped by fio
    assertThat(s.device.completed()).isGreaterThanOrEqualTo(s.fio.completed());
    assertThat(s.fio.figures().get("clat_p50_ns").longValue()).isPositive();
  }

  @Test
  void numberIos_eachJobCompletesExactlyThatMany_thenTheWorkloadHasFinished() {
    for (String engine : List.of("libaio", "psync")) {
      FioConfig c = FioFactory.config(Map.of("numjobs", "3", "iodepth", "4", "iodepth-batch", "3",
          "ioengine", engine, "number-ios", "50"));
      FioScenario s = new FioScenario(11, 2, 2, VirtioBlkConfig.defaults(), VirtioBlkCosts.from(TestMachines.X86_COSTS),
          c);
      assertThat(s.fio.finishes()).isTrue();
      s.machine.sim().runUntil(1_000 * TestMachines.MS);

      assertThat(s.fio.finished()).as(engine).isTrue();
      assertThat(s.fio.completed()).as(engine).isEqualTo(3 * 50);
      assertThat(s.fio.issued()).as(engine).isEqualTo(3 * 50);
      assertThat(s.fio.inFlight()).isZero();
      assertThat(s.device.completed()).isEqualTo(3 * 50);
      long finished = s.fio.finishedNs();
      assertThat(finished).isPositive().isLessThan(1_000 * TestMachines.MS);
      // fio's runtime ends with its last job, not with the simulation
      assertThat(s.fio.figures().get("runtime_ns").longValue()).isEqualTo(finished);
    }
    assertThat(new FioFactory().create(WorkloadContext.of("fio", OptionBinder.bind(new FioFactory(), Map.of()),
        TestMachines.X86_COSTS, KernelLocks.NONE, null, Map.of())).finishes()).as("time-based by default").isFalse();
  }

  @Test
  void psync_oneJob_latencyAtLeastBackendServiceTime() {
    long service = 50_000;
    FioScenario s = new FioScenario(8, 2, 1,
        VirtioBlkConfig.defaults().withBackend(1, service, false), VirtioBlkCosts.from(TestMachines.X86_COSTS), FioConfig.psync(1, "randread"))
        .run(2, 20);
    assertThat(s.fio.figures().get("clat_p50_ns").longValue()).isGreaterThan(service);
    // one I/O at a time: at most one per service time
    assertThat(s.iops()).isLessThan(1e9 / service).isGreaterThan(1e9 / service / 2);
  }

  @Test
  void nativeReport_randread_hasFioJsonShape() {
    FioScenario s = new FioScenario(9, 4, 4, VirtioBlkConfig.defaults(), VirtioBlkCosts.from(TestMachines.X86_COSTS),
        FioConfig.libaio(2, "randread", 4)).run(1, 5);
    Map<String, Object> report = s.fio.nativeReport().orElseThrow();
    List<?> jobs = (List<?>) report.get("jobs");
    assertThat(jobs).hasSize(2);
    Map<?, ?> read = (Map<?, ?>) ((Map<?, ?>) jobs.get(0)).get("read");
    Map<?, ?> write = (Map<?, ?>) ((Map<?, ?>) jobs.get(0)).get("write");
    assertThat((Double) read.get("iops")).isPositive();
    assertThat((Long) read.get("bw")).isPositive();
    assertThat((Double) write.get("iops")).isZero();
    Map<?, ?> percentiles = (Map<?, ?>) ((Map<?, ?>) read.get("clat_ns")).get("percentile");
    assertThat(percentiles.keySet()).map(Object::toString).contains("50.000000", "99.000000", "99.990000");
    assertThat((Long) percentiles.get("99.000000")).isGreaterThanOrEqualTo((Long) percentiles.get("50.000000"));
  }

  @Test
  void factory_badOptions_allReportedAtOnce() {
    assertThatThrownBy(() -> FioFactory.config(Map.of("iodpeth", "8", "rw", "randrw")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown option [iodpeth]; known: [").hasMessageContaining("did you mean [iodepth]?")
        .hasMessageContaining("option [rw] [randrw] is not one of [randread, read, randwrite, write]");
  }

  @Test
  void factory_options_bindToConfig() {
    FioConfig c = FioFactory.config(Map.of("numjobs", "4", "iodepth", "64", "ioengine", "libaio", "bs", "8192"));
    assertThat(c.numjobs()).isEqualTo(4);
    assertThat(c.iodepth()).isEqualTo(64);
    assertThat(c.bs()).isEqualTo(8192);
    assertThat(c.completeMax()).isEqualTo(64);
  }
}
