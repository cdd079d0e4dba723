package org.lockvisor.examples.broken;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.plugin.PluginOption;
import org.lockvisor.experiment.SimulationFailedException;
import org.lockvisor.experiment.check.Perturbation;
import org.lockvisor.experiment.check.RunChecks;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.model.ExperimentYaml;
import org.lockvisor.experiment.runner.ExperimentRunner;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockFactory.LockKind;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.WaitQueue;
import org.lockvisor.workloads.spi.Workload;
import org.lockvisor.workloads.spi.WorkloadContext;
import org.lockvisor.workloads.spi.WorkloadContext;
import org.lockvisor.workloads.spi.WorkloadFactory;

/**
 * The explorer's contract on a known bug: the broken worker passes its unperturbed run, is
 * caught as a lost wakeup within 100 perturbed runs, and the caught run replays to the same
 * violation; the fixed worker passes the same 100 schedules. A lock-order inversion is reported
 * as a waits-for cycle.
 */
class ExplorerFindsBrokenWorkerTest {

  private static final ExperimentPlugins PLUGINS =
      ExperimentPlugins.discover(ExplorerFindsBrokenWorkerTest.class.getClassLoader());
  private static final int RUNS = 100;

  private static Experiment brokenWorker(ExperimentRunner runner) throws IOException {
    Path file = Path.of("experiments/broken-worker.yaml");
    return runner.validateTree(file.toString(), ExperimentYaml.parse(file.toString(), Files.readAllBytes(file)));
  }

  private static RunChecks explore(long perturb) {
    return RunChecks.NONE.withInvariants(true).withPerturbation(perturb, RunChecks.DEFAULT_JITTER_PERCENT);
  }

  /** The message of the first violation in runs 0..RUNS-1 of exploration seed 1, or null. */
  private static String firstViolation(ExperimentRunner runner, Experiment e, String variant, List<Long> seedUsed) {
    for (int i = 0; i < RUNS; i++) {
      long p = Perturbation.seedOfRun(1, i);
      try {
        runner.run(e, variant, explore(p));
      } catch (SimulationFailedException ex) {
        seedUsed.add(p);
        return ex.getMessage();
      }
    }
    return null;
  }

  @Test
  void brokenWorker_passesUnperturbed_isCaughtWithin100Runs_andReplays() throws IOException {
    ExperimentRunner runner = new ExperimentRunner(PLUGINS);
    Experiment e = brokenWorker(runner);
    runner.run(e, "base", RunChecks.NONE.withInvariants(true)); // the unperturbed schedule misses the window

    List<Long> seeds = new ArrayList<>();
    String violation = firstViolation(runner, e, "base", seeds);

    assertThat(violation).as("a lost wakeup within %d runs", RUNS).isNotNull()
        .contains("lost wakeup: vhost/worker (vm0) has slept on wait queue [vhost.worker_wait]")
        .contains("no wakeup is in flight")
        .contains("waits-for: vm0/vhost/worker -> wait queue [vhost.worker_wait] -> no waker");
    assertThatThrownBy(() -> runner.run(e, "base", explore(seeds.get(0))))
        .isInstanceOf(SimulationFailedException.class).hasMessage(violation);
  }

  @Test
  void fixedWorker_passesTheSameSchedules() throws IOException {
    ExperimentRunner runner = new ExperimentRunner(PLUGINS);
    Experiment fixed = ExperimentYaml.variant(brokenWorker(runner), "fixed");

    assertThat(firstViolation(runner, fixed, "fixed", new ArrayList<>())).isNull();
  }

  @Test
  void lockOrderInversion_isReportedAsAWaitsForCycle() {
    Map<String, WorkloadFactory> workloads = new HashMap<>(PLUGINS.workloads());
    workloads.put("ab-ba", new TestWorkload("ab-ba", ctx -> {
      var guest = ctx.vm().guest();
      KernelLock a = ctx.locks().create(guest, "A", LockKind.SPINLOCK);
      KernelLock b = ctx.locks().create(guest, "B", LockKind.SPINLOCK);
      guest.spawn("ab", takeBoth(a, b), 0);
      guest.spawn("ba", takeBoth(b, a), 1);
    }));
    ExperimentRunner runner = new ExperimentRunner(new ExperimentPlugins(PLUGINS.arches(), PLUGINS.schedulers(),
        PLUGINS.locks(), PLUGINS.devices(), workloads));
    Experiment e = Experiment.builder("abba").warmupNs(0).durationNs(2_000_000).host(2, "cfs")
        .vm("vm0", vm -> vm.vcpus(2).pinning(0, 1).workload("abba", "ab-ba", Map.of()))
        .build();

    assertThatThrownBy(() -> runner.run(e, "base", RunChecks.NONE.withInvariants(true)))
        .isInstanceOf(SimulationFailedException.class)
        .hasMessageContaining("deadlock: waits-for cycle")
        .hasMessageMatching("(?s).*vm0/(ab|ba) -> lock \\[(A|B)\\] \\(\\S+\\) -> held by vm0/(ab|ba) -> lock "
            + "\\[(A|B)\\] \\(\\S+\\) -> held by vm0/(ab|ba) \\(cycle\\).*");
  }

  @Test
  void sleepUntilWithoutWake_isReportedAsALostWakeup() {
    Map<String, WorkloadFactory> workloads = new HashMap<>(PLUGINS.workloads());
    workloads.put("no-wake", new TestWorkload("no-wake", ctx -> {
      var guest = ctx.vm().guest();
      WaitQueue wq = new WaitQueue("done_wait");
      boolean[] done = {false};
      guest.spawn("waiter", Program.named("wait_for_done").op(Ops.sleepUntil(wq, t -> done[0])).build(), 0);
      // Sets the condition and never calls wake_up: the waiter's wakeup is lost.
      guest.spawn("setter", Program.named("set_done").work(10_000, "prepare").run(t -> done[0] = true)
          .userWork(50_000_000, "spin_forever").build(), 1);
    }));
    ExperimentRunner runner = new ExperimentRunner(new ExperimentPlugins(PLUGINS.arches(), PLUGINS.schedulers(),
        PLUGINS.locks(), PLUGINS.devices(), workloads));
    Experiment e = Experiment.builder("nowake").warmupNs(0).durationNs(10_000_000).host(2, "cfs")
        .vm("vm0", vm -> vm.vcpus(2).pinning(0, 1).workload("w", "no-wake", Map.of()))
        .build();

    assertThatThrownBy(() -> runner.run(e, "base", RunChecks.NONE.withInvariants(true)))
        .isInstanceOf(SimulationFailedException.class)
        .hasMessageContaining("lost wakeup: waiter (vm0) has slept on wait queue [done_wait]")
        .hasMessageContaining("waits-for: vm0/waiter -> wait queue [done_wait] -> no waker");
    // Unchecked, the same run completes: the detector, not the machine, caught it.
    assertThat(runner.run(e, "base", RunChecks.NONE).events()).isPositive();
  }

  /** A workload whose start is {@code starter}. */
  private record TestWorkload(String type, java.util.function.Consumer<WorkloadContext> starter)
      implements WorkloadFactory {
    @Override
    public String name() {
      return type;
    }

    @Override
    public String summary() {
      return "test double";
    }

    @Override
    public Set<String> capabilities() {
      return Set.of();
    }

    @Override
    public List<PluginOption> options() {
      return List.of();
    }

    @Override
    public Workload create(WorkloadContext context) {
      String instanceName = context.name();
      return new Workload() {
        @Override
        public String name() {
          return instanceName;
        }

        @Override
        public String model() {
          return type;
        }

        @Override
        public void start(WorkloadContext ctx) {
          starter.accept(ctx);
        }

        @Override
        public void resetStats() {}

        @Override
        public com.google.common.collect.ImmutableMap<String, Number> figures() {
          return com.google.common.collect.ImmutableMap.of();
        }
      };
    }
  }

  /** A kthread taking {@code first}, then {@code second}, in a loop (A-B vs B-A: lock-order inversion). */
  private static Program takeBoth(KernelLock first, KernelLock second) {
    Program body = Program.named("take_both").op(first.lock(LockMode.PLAIN)).work(3_000, "between")
        .op(second.lock(LockMode.PLAIN)).work(500, "both").op(second.unlock(LockMode.PLAIN))
        .op(first.unlock(LockMode.PLAIN)).work(1_000, "think").build();
    return Program.named("abba").loopWhile(t -> true, body).build();
  }
}
