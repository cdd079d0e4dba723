package org.lockvisor.examples.backoff;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.model.ExperimentYaml;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.experiment.runner.ExperimentRunner;

/**
 * Whose fault the starving backoff lock of issue 35 was: neither the lock's nor a lost poke, but a
 * run shorter than CFS needs to run 16 writers on 4 vCPUs. Under locktorture (16 writers, a 4-vCPU
 * guest with scheduler {@code cfs}), 20 ms is about one CFS period at four tasks per CPU (the
 * scaled latency, 6 ms x (1 + ilog2(4)) = 18 ms, acted on at 4 ms ticks in a non-preemptible
 * guest): the last writer of each guest CPU has not run yet, with the built-in {@code ticket} and
 * {@code tas} as with {@code backoff-ticket}. In 200 ms every writer acquires with every lock, and
 * with the guest scheduler {@code round-robin} (500 us slices) in 20 ms already. The writers are
 * kthreads created and woken as {@code kthread_run} does ({@code Kernel.spawnKthread}), so the last
 * created wait, not the first: spawned at one instant with a fork's START_DEBIT, the first task of
 * each runqueue waited instead.
 */
class CfsSpawnStarvationTest {

  private static List<Long> writerAcquisitions(String scheduler, String lock, String duration) {
    String yaml = """
        name: spawn-probe
        arch: x86_64-kvm
        seed: 42
        warmup: 0ms
        duration: DURATION
        host: {cpus: 4, scheduler: cfs}
        vms:
          - name: vm0
            vcpus: 4
            pinning: [0, 1, 2, 3]
            scheduler: SCHEDULER
            locks: {spinlock: LOCK}
            workloads:
              - name: torture
                type: locktorture
                options: {nwriters: 16, hold-ns: 2us, think-ns: 1us, think-jitter-ns: 2us}
        """.replace("SCHEDULER", scheduler).replace("LOCK", lock)
        .replace("DURATION", duration);
    ExperimentRunner runner = new ExperimentRunner(ExperimentPlugins.discover(CfsSpawnStarvationTest.class.getClassLoader()));
    ExperimentResult r = runner.runAll("spawn-probe", ExperimentYaml.read("spawn-probe", yaml)).get(0);
    List<?> counts = (List<?>) r.workload("vm0", "torture").nativeReport().get("writer_acquisitions");
    return counts.stream().map(c -> ((Number) c).longValue()).toList();
  }

  @Test
  void cfsGuest_20ms_theLastWriterOfEachCpuHasNotRun_withEveryLock() {
    for (String lock : List.of("ticket", "tas", "backoff-ticket")) {
      List<Long> counts = writerAcquisitions("cfs", lock, "20ms");
      assertThat(counts).as("cfs guest, %s", lock).hasSize(16);
      assertThat(counts.subList(0, 12)).as("cfs guest, %s: %s", lock, counts).allMatch(c -> c > 0);
      assertThat(counts.subList(12, 16)).as("cfs guest, %s: %s", lock, counts).containsOnly(0L);
    }
  }

  @Test
  void cfsGuest_200ms_everyWriterAcquires_withEveryLock() {
    for (String lock : List.of("ticket", "tas", "backoff-ticket")) {
      List<Long> counts = writerAcquisitions("cfs", lock, "200ms");
      assertThat(counts).as("cfs guest, %s", lock).hasSize(16).allMatch(c -> c > 0);
    }
  }

  @Test
  void roundRobinGuest_20ms_everyWriterAcquires_withEveryLock() {
    for (String lock : List.of("ticket", "tas", "backoff-ticket")) {
      List<Long> counts = writerAcquisitions("round-robin", lock, "20ms");
      assertThat(counts).as("round-robin guest, %s", lock).hasSize(16).allMatch(c -> c > 0);
    }
  }
}
