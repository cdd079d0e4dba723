package org.lockvisor.experiment.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.arch.spi.ArchCosts;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.experiment.runner.ExperimentRunner;
import org.lockvisor.experiment.runner.RunObserver;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.config.TtwuQueueMode;

/**
 * The {@code kernel:} sections (host and guest wakeup path, reschedule IPIs, steal-time
 * accounting): both front doors, strict validation, and the settings reaching the machine; and a
 * sleeping lock's wait_lock following its kernel's spinlock choice.
 */
class KernelSettingsTest {

  static final String YAML = """
      name: kernels
      arch: x86_64-kvm
      seed: 3
      warmup: 0
      duration: 2ms
      host:
        cpus: 2
        locks: {spinlock: ticket}
        kernel: {ttwu-queue: any-remote, ttwu-waits-on-cpu: true}
      vms:
        - name: vm0
          vcpus: 2
          locks: {spinlock: ticket, mutex: mutex-count}
          kernel: {ttwu-queue: never, ttwu-waits-on-cpu: true, resched-ipi: true, steal-time-accounting: false}
          workloads:
            - name: hb
              type: sched-messaging
              options: {groups: 1, fds: 2, loops: 2}
      """;

  static Experiment built() {
    return Experiment.builder("kernels").arch("x86_64-kvm").seed(3).warmupNs(0).durationNs(2_000_000)
        .host(2, "cfs")
        .hostLocks(LockChoices.defaults().withSpinlock("ticket"))
        .hostKernel(KernelSpec.defaults().withTtwuQueue("any-remote").withTtwuWaitsOnCpu(true))
        .vm("vm0", vm -> vm.vcpus(2).spinlock("ticket").mutex("mutex-count").ttwuQueue("never")
            .ttwuWaitsOnCpu(true).reschedIpi(true).stealTimeAccounting(false)
            .workload("hb", "sched-messaging", Map.of("groups", "1", "fds", "2", "loops", "2")))
        .build();
  }

  private final ExperimentPlugins plugins = ExperimentPlugins.discover(getClass().getClassLoader());

  private List<Problem> problems(String yaml) {
    try {
      new ExperimentRunner(plugins).validateTree("t.yaml", ExperimentYaml.parse("t.yaml", yaml));
      return List.of();
    } catch (InvalidExperimentException e) {
      return e.problems();
    }
  }

  @Test
  void builderAndYaml_bindToEqualModels_andRoundTrip() {
    Experiment e = built();
    assertThat(ExperimentYaml.read("kernels.yaml", YAML)).isEqualTo(e);
    assertThat(ExperimentYaml.read("again", ExperimentYaml.write(e))).isEqualTo(e);
    assertThat(e.vms().get(0).kernel()).isEqualTo(new KernelSpec("never", true, true, false));
  }

  @Test
  void omittedSection_isTodaysKernel_andStealTimeFollowsTheProfile() {
    Experiment e = ExperimentYaml.read("t", "vms: [{name: vm0}]");
    assertThat(e.host().kernel()).isEqualTo(KernelSpec.defaults());
    assertThat(e.vms().get(0).kernel().stealTimeAccounting()).isNull();
    assertThat(ExperimentYaml.read("again", ExperimentYaml.write(e))).isEqualTo(e);
  }

  @Test
  void settingsReachTheKernels_andWaitLockIsTheKernelsSpinlock() {
    Map<String, String> waitLocks = new HashMap<>();
    Map<String, LockFactory> locks = new HashMap<>(plugins.locks());
    LockFactory mutex = plugins.locks().get("mutex-count");
    locks.put("mutex-count", new RecordingLockFactory(mutex, waitLocks));
    ExperimentRunner runner = new ExperimentRunner(new ExperimentPlugins(plugins.arches(), plugins.schedulers(),
        locks, plugins.devices(), plugins.workloads()));
    List<Object> seen = new ArrayList<>();
    RunObserver observer = new RunObserver() {
      @Override
      public void measurementStarted(Machine machine) {
        Kernel guest = machine.vms().get(0).guest();
        seen.add(machine.host().config().ttwuQueue());
        seen.add(guest.config().ttwuQueue());
        seen.add(guest.stealTimeAccounting());
      }
    };

    ExperimentResult r = runner.run(built(), "base", observer);

    assertThat(seen).containsExactly(TtwuQueueMode.ANY_REMOTE, TtwuQueueMode.NEVER, false);
    assertThat(waitLocks).isNotEmpty().allSatisfy((name, waitLock) -> assertThat(waitLock).isEqualTo("ticket"));
    assertThat(r.events()).isPositive();

    // The profile's default: x86_64-kvm publishes steal time, so the guest clock excludes it.
    seen.clear();
    Experiment plain = ExperimentYaml.read("t", YAML.replace(", steal-time-accounting: false", ""));
    runner.run(plain, "base", observer);
    assertThat(seen.get(2)).isEqualTo(true);
  }

  @Test
  void irqTimeAccounting_reachesTheHostKernel_offByDefault() {
    List<Boolean> seen = new ArrayList<>();
    RunObserver observer = new RunObserver() {
      @Override
      public void measurementStarted(Machine machine) {
        seen.add(machine.host().irqTimeAccounting());
      }
    };
    ExperimentRunner runner = new ExperimentRunner(plugins);
    Experiment on = ExperimentYaml.read("t", YAML.replace("ttwu-waits-on-cpu: true}", "ttwu-waits-on-cpu: true,"
        + " irq-time-accounting: true}"));
    assertThat(on.host().kernel().irqTimeAccounting()).isTrue();
    assertThat(ExperimentYaml.read("again", ExperimentYaml.write(on))).isEqualTo(on);

    runner.run(on, "base", observer);
    runner.run(built(), "base", observer);

    assertThat(seen).containsExactly(true, false);
  }

  @Test
  void irqTimeAccounting_onAGuest_isRefused() {
    assertThat(problems("""
        host: {cpus: 2}
        vms: [{name: vm0, kernel: {irq-time-accounting: true}}]
        """)).singleElement().satisfies(p -> assertThat(p.path()).isEqualTo("vms[0].kernel.irq-time-accounting"));
    Experiment.Builder b = Experiment.builder("h").host(2, "cfs")
        .vm("vm0", vm -> vm.vcpus(1).kernel(KernelSpec.defaults().withIrqTimeAccounting(true)));
    assertThatThrownBy(b::build).isInstanceOfSatisfying(InvalidExperimentException.class,
        ex -> assertThat(ex.problems()).extracting(Problem::path)
            .containsExactly("vms[0].kernel.irq-time-accounting"));
  }

  @Test
  void badValues_reportedWithPathAllowedValuesAndSuggestion() {
    List<Problem> problems = problems("""
        host:
          cpus: 2
          kernel: {ttwu-queue: any_remote, resched-ipi: true}
        vms:
          - name: vm0
            kernel: {ttwu-waits-on-cpu: sometimes, steal-time-acounting: false}
        """);

    assertThat(problems).extracting(Problem::path).containsExactlyInAnyOrder("host.kernel.resched-ipi",
        "vms[0].kernel.ttwu-waits-on-cpu", "vms[0].kernel.steal-time-acounting");
    assertThat(problems).filteredOn(p -> p.path().equals("vms[0].kernel.steal-time-acounting")).singleElement()
        .extracting(Problem::message).asString().contains("did you mean [steal-time-accounting]?");

    assertThat(problems("""
        host: {cpus: 2, kernel: {ttwu-queue: any_remote}}
        vms: [{name: vm0}]
        """)).singleElement().satisfies(p -> {
          assertThat(p.path()).isEqualTo("host.kernel.ttwu-queue");
          assertThat(p.message()).contains("[any_remote]", "[any-remote, cross-llc, never]",
              "did you mean [any-remote]?");
        });
  }

  @Test
  void stealTimeAccounting_onAProfileWithoutStealTime_isAContradiction() {
    assertThat(problems("""
        arch: arm64-kvm
        host: {cpus: 2}
        vms: [{name: vm0, kernel: {steal-time-accounting: true}}]
        """)).singleElement().satisfies(p -> {
          assertThat(p.path()).isEqualTo("vms[0].kernel.steal-time-accounting");
          assertThat(p.message()).contains("[arm64-kvm]", "no steal time");
        });
    assertThat(problems("""
        arch: arm64-kvm
        host: {cpus: 2}
        vms: [{name: vm0, kernel: {steal-time-accounting: false}}]
        """)).isEmpty();
  }

  @Test
  void builder_refusesGuestOnlySettingsOnTheHost() {
    Experiment.Builder b = Experiment.builder("h").host(2, "cfs")
        .hostKernel(KernelSpec.defaults().withReschedIpi(true).withStealTimeAccounting(false))
        .vm("vm0", vm -> vm.vcpus(1));
    assertThatThrownBy(b::build).isInstanceOfSatisfying(InvalidExperimentException.class,
        ex -> assertThat(ex.problems()).extracting(Problem::path)
            .containsExactlyInAnyOrder("host.kernel.resched-ipi", "host.kernel.steal-time-accounting"));
  }

  /** mutex-count as it is, recording the wait_lock each instance is created with. */
  private record RecordingLockFactory(LockFactory delegate, Map<String, String> waitLocks) implements LockFactory {
    @Override
    public String name() {
      return delegate.name();
    }

    @Override
    public String summary() {
      return delegate.summary();
    }

    @Override
    public List<org.lockvisor.core.plugin.PluginOption> options() {
      return delegate.options();
    }

    @Override
    public LockKind lockKind() {
      return delegate.lockKind();
    }

    @Override
    public KernelLock create(LockContext context) {
      waitLocks.put(context.name(), context.options().given().getOrDefault("wait-lock", "(plugin default)"));
      return delegate.create(context);
    }
  }
}
