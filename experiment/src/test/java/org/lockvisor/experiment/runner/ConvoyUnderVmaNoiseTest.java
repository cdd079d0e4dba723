package org.lockvisor.experiment.runner;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.model.ExperimentYaml;
import org.lockvisor.locking.spi.LockStats.SpinEnd;

/**
 * The fork/exit convoy is not an artefact of identical, step-locked walks: with order-preserving
 * noise on every per-VMA step (sched-messaging's what-if {@code vma-cost-jitter}), perf 4.8's
 * mappings still convoy on an overcommitted PowerVM LPAR — a fork/exit rwsem with many waiters,
 * OSQ hand-offs to successors whose VP is not dispatched, queued spinners that leave only at
 * {@code need_resched} — and the same noisy run on a pool with a processor per VP does not.
 * Small scale (4 groups of 5, ~0.2 M events): whether a run convoys depends on the seed
 * (docs/reproductions/vcpu-preempted.md, issue 37 item 2), so the test pins seed 5, which convoys
 * under noise.
 */
class ConvoyUnderVmaNoiseTest {

  static final String YAML = """
      name: convoy-noise
      arch: ppc64-powervm
      seed: 5
      warmup: 0
      duration: until-done
      max-duration: 10s
      done-check-interval: 20ms
      host:
        cpus: 4
        scheduler: powervm-dispatch
        scheduler-options: {window: 10ms, entitlement: 4, capped: false}
      vms:
        - name: lpar
          vcpus: 8
          scheduler: cfs
          scheduler-options: {era: "4.8"}
          locks: {spinlock: ppc-splpar, mutex: mutex-count, rwsem: rwsem-xadd, rwlock: ppc-splpar-rwlock,
            vcpu-is-preempted: false}
          kernel: {resched-ipi: true, steal-time-accounting: false, hz: 100}
          workloads:
            - name: sched-messaging
              type: sched-messaging
              options: {groups: 4, fds: 5, page-size: 65536, vma-cost-jitter: 0.5,
                copy-symbol: __copy_tofrom_user_power7, copy-page-symbol: copypage_power7}
      """;

  private final ExperimentRunner runner = new ExperimentRunner(ExperimentPlugins.discover(getClass().getClassLoader()));

  private ExperimentResult run(String... overrides) {
    ObjectNode tree = (ObjectNode) ExperimentYaml.parse("t.yaml", YAML);
    for (int i = 0; i < overrides.length; i += 2) {
      assertThat(ExperimentYaml.set(tree, overrides[i], overrides[i + 1])).isNull();
    }
    Experiment e = runner.validateTree("t.yaml", tree);
    return runner.run(e, "base");
  }

  /** The fork/exit rwsems (i_mmap or root anon_vma) that had a spin episode or an OSQ hand-off. */
  private static List<LockConvoy> mappingLocks(List<LockConvoy> convoys) {
    return convoys.stream().filter(c -> c.lock().endsWith(".i_mmap_rwsem") || c.lock().endsWith(".anon_vma.rwsem"))
        .toList();
  }

  @Test
  void noisyWalk_overcommittedLpar_convoys_onePoolProcessorPerVp_doesNot() {
    LockConvoy convoy = mappingLocks(run().convoys()).stream().max(Comparator.comparingDouble(LockConvoy::meanWaiters))
        .orElseThrow();
    assertThat(convoy.meanWaiters()).as(convoy.lock()).isGreaterThan(5);
    assertThat(convoy.osqHandoffsToUndispatched()).as(convoy.lock()).isPositive();
    assertThat(convoy.episodes(SpinEnd.NEED_RESCHED)).as(convoy.lock()).isPositive();

    // the same noise with every VP dispatched (8 processors, entitled 8): nothing stalls an OSQ
    List<LockConvoy> calm = mappingLocks(run("host.cpus", "8", "host.scheduler-options.entitlement", "8").convoys());
    assertThat(calm).allSatisfy(c -> {
      assertThat(c.meanWaiters()).as(c.lock()).isLessThan(1);
      assertThat(c.osqHandoffsToUndispatched()).as(c.lock()).isZero();
    });
  }
}
