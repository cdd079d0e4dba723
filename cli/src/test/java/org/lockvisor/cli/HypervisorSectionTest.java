package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.cli.CliFixture.Run;

/**
 * The experiment's {@code hypervisor:} section takes effect: every accepted setting changes the
 * run (its event fingerprint), so none is a silent no-op. arm64's paravirtual
 * {@code vcpu_is_preempted} (arm64-pv-sched) makes the guest's {@code vcpu-is-preempted} switch
 * matter, which on the profile's default semantics ({@code none}) is refused. The refusals
 * themselves are files under {@code bad-experiments/} (80 to 91). The settings the arch profile
 * does not hold — the {@code kvm_vcpu_on_spin} variant, {@code ple-shrink}, the host background —
 * reach the machine's hypervisor configuration and change the run too.
 */
class HypervisorSectionTest {

  private static final ObjectMapper MAPPER = new ObjectMapper();

  @TempDir
  Path temp;

  /** 4 vCPUs on 2 CPUs, locktorture on spinlocks and mutexes: holders get preempted. */
  private static String experiment(String arch, String hypervisor, boolean vcpuIsPreempted, String torture) {
    return """
        name: hv
        arch: %s
        seed: 7
        warmup: 200us
        duration: 2ms
        host: {cpus: 2}
        %s
        vms:
          - name: vm0
            vcpus: 4
            pinning: [0, 1, 0, 1]
            locks: {vcpu-is-preempted: %s}
            workloads:
              - {name: t, type: locktorture, options: {torture-type: %s, nwriters: 6, hold-ns: 2us, think-ns: 1us}}
        """.formatted(arch, hypervisor, vcpuIsPreempted, torture);
  }

  /** 6 vCPUs on 2 CPUs, mutex holders preempted mid-section: owner spinning meets vcpu_is_preempted. */
  private static String ownerSpinning(String arch, String hypervisor, boolean vcpuIsPreempted) {
    return """
        name: hv
        arch: %s
        seed: 7
        warmup: 200us
        duration: 5ms
        host: {cpus: 2}
        %s
        vms:
          - name: vm0
            vcpus: 6
            pinning: [0, 1, 0, 1, 0, 1]
            locks: {vcpu-is-preempted: %s}
            workloads:
              - {name: t, type: locktorture, options: {torture-type: mutex_lock, nwriters: 6, hold-ns: 20us,\
         think-ns: 5us}}
        """.formatted(arch, hypervisor, vcpuIsPreempted);
  }

  /**
   * One writer on 2 vCPUs, one per CPU: the other vCPU has nothing to run and halts, so halt
   * polling runs. (Overcommitted vCPUs are no good here: with the host CFS's 3.x slices a vCPU
   * thread that is not running at the start may not run at all in a 2 ms window, and never halts.)
   */
  private static String idling(String hypervisor) {
    return experiment("x86_64-kvm", hypervisor, false, "mutex_lock").replace("nwriters: 6", "nwriters: 1")
        .replace("think-ns: 1us", "think-ns: 50us").replace("vcpus: 4", "vcpus: 2")
        .replace("pinning: [0, 1, 0, 1]", "pinning: [0, 1]");
  }

  private String fingerprint(String yaml) throws IOException {
    Path file = Files.writeString(Files.createTempFile(temp, "hv", ".yaml"), yaml);
    Run run = CliFixture.run("run", file.toString(), "--format", "json");
    assertThat(run.exitCode()).as("stderr: %s", run.err()).isZero();
    JsonNode result = MAPPER.readTree(run.out());
    return result.get("runs").get(0).get("fingerprint").asText();
  }

  @Test
  void ple_off_changesTheRun() throws IOException {
    String on = fingerprint(experiment("x86_64-kvm", "", false, "spin_lock"));
    String off = fingerprint(experiment("x86_64-kvm", "hypervisor: {ple: false}", false, "spin_lock"));

    assertThat(off).isNotEqualTo(on);
  }

  @Test
  void pleWindow_changesTheRun() throws IOException {
    String base = fingerprint(experiment("x86_64-kvm", "", false, "spin_lock"));
    String small = fingerprint(experiment("x86_64-kvm", "hypervisor: {ple-window: 512}", false, "spin_lock"));

    assertThat(small).isNotEqualTo(base);
  }

  @Test
  void haltPoll_changesTheRun() throws IOException {
    String base = fingerprint(idling(""));
    String polling = fingerprint(idling("hypervisor: {halt-poll: 200us}"));

    assertThat(polling).isNotEqualTo(base);
  }

  @Test
  void arm64PvSched_vcpuIsPreemptedSwitch_changesTheRun() throws IOException {
    String hypervisor = "hypervisor: {vcpu-is-preempted: arm64-pv-sched}";
    String off = fingerprint(ownerSpinning("arm64-kvm", hypervisor, false));
    String on = fingerprint(ownerSpinning("arm64-kvm", hypervisor, true));

    assertThat(on).isNotEqualTo(off);
  }

  /** 6 vCPUs on 2 CPUs spinning on spinlocks: PLE traps find vCPUs preempted while runnable. */
  private static String overcommittedSpin(String hypervisor) {
    return experiment("x86_64-kvm", hypervisor, false, "spin_lock").replace("vcpus: 4", "vcpus: 6")
        .replace("pinning: [0, 1, 0, 1]", "pinning: [0, 1, 0, 1, 0, 1]").replace("duration: 2ms", "duration: 4ms");
  }

  @Test
  void directedYield_eachVariant_changesTheRun() throws IOException {
    String base = fingerprint(overcommittedSpin(""));
    String alias = fingerprint(overcommittedSpin("hypervisor: {directed-yield: true}"));
    String v38 = fingerprint(overcommittedSpin("hypervisor: {directed-yield: v3.8}"));
    String v32 = fingerprint(overcommittedSpin("hypervisor: {directed-yield: v3.2}"));
    String v310 = fingerprint(overcommittedSpin("hypervisor: {directed-yield: v3.10}"));
    String none = fingerprint(overcommittedSpin("hypervisor: {directed-yield: none}"));
    String ready = fingerprint(overcommittedSpin("hypervisor: {directed-yield: ready}"));

    // the profile's variant is 3.8: naming it, or true, is the default run
    assertThat(v38).isEqualTo(base).isEqualTo(alias);
    assertThat(java.util.Set.copyOf(java.util.List.of(base, v32, v310, none))).hasSize(4);
    // busy vCPUs never halt here, so no vCPU is woken and ready is preempted: the 3.10 run
    assertThat(ready).isEqualTo(v310);
  }

  /** As {@link #overcommittedSpin} on pv-qspinlock with 300 us holds: waiters halt and are kicked. */
  private static String overcommittedPv(String hypervisor) {
    return overcommittedSpin(hypervisor).replace("locks: {vcpu-is-preempted: false}",
        "locks: {vcpu-is-preempted: false, spinlock: pv-qspinlock}").replace("hold-ns: 2us", "hold-ns: 300us");
  }

  @Test
  void pvKickYield_changesAPvLockRun() throws IOException {
    // (the ready filter alone changes runs where woken vCPUs wait for a CPU while others spin:
    // DirectedYieldTest; here the kicked waiters are boosted by the kick itself)
    String ready = fingerprint(overcommittedPv("hypervisor: {directed-yield: ready}"));
    String kick = fingerprint(overcommittedPv("hypervisor: {directed-yield: ready, pv-kick-yield: true}"));

    assertThat(kick).isNotEqualTo(ready);
  }

  @Test
  void pleShrink_changesTheRun() throws IOException {
    // the x86 profile's window is fixed (3.x, before 3.18's dynamic window): shrinking needs growth
    String base = fingerprint(overcommittedSpin("hypervisor: {ple-grow: 8}").replace("duration: 4ms", "duration: 10ms"));
    String shrink = fingerprint(overcommittedSpin("hypervisor: {ple-grow: 8, ple-shrink: 2}")
        .replace("duration: 4ms", "duration: 10ms"));

    assertThat(shrink).isNotEqualTo(base);
  }

  @Test
  void hostBackground_eachKey_changesTheRun() throws IOException {
    String base = fingerprint(experiment("x86_64-kvm", "", false, "spin_lock"));
    for (String setting : java.util.List.of("host-tick: skewed", "host-softirq-rate: 0",
        "host-softirq-time: 30us", "host-kworker-rate: 5000")) {
      String changed = fingerprint(experiment("x86_64-kvm", "hypervisor: {" + setting + "}", false, "spin_lock"));
      assertThat(changed).as(setting).isNotEqualTo(base);
    }
    // at the default 100 kworker wakeups/s a 2 ms run may see none: time them where they happen
    String often = fingerprint(experiment("x86_64-kvm", "hypervisor: {host-kworker-rate: 5000}", false, "spin_lock"));
    String longer = fingerprint(experiment("x86_64-kvm", "hypervisor: {host-kworker-rate: 5000,"
        + " host-kworker-time: 100us}", false, "spin_lock"));
    assertThat(longer).isNotEqualTo(often);
  }

  @Test
  void arm64OpenEulerEra_vcpuIsPreemptedSwitch_changesTheRunAsTheSemanticsDoes() throws IOException {
    String era = "hypervisor: {kernel-era: 5.10-openeuler}";
    String off = fingerprint(ownerSpinning("arm64-kvm", era, false));
    String on = fingerprint(ownerSpinning("arm64-kvm", era, true));

    assertThat(on).isNotEqualTo(off)
        .isEqualTo(fingerprint(ownerSpinning("arm64-kvm", "hypervisor: {vcpu-is-preempted: arm64-pv-sched}", true)));
    // the profile's own era is the default run
    assertThat(fingerprint(ownerSpinning("arm64-kvm", "hypervisor: {kernel-era: \"3.15\"}", false)))
        .isEqualTo(fingerprint(ownerSpinning("arm64-kvm", "", false)));
  }

  @Test
  void variant_setsAHypervisorKey() throws IOException {
    String yaml = experiment("x86_64-kvm", "", false, "spin_lock") + """
        variants:
          no-ple:
            hypervisor.ple: false
        """;
    Path file = Files.writeString(temp.resolve("variant.yaml"), yaml);

    Run run = CliFixture.run("run", file.toString(), "--format", "json");

    assertThat(run.exitCode()).as("stderr: %s", run.err()).isZero();
    JsonNode runs = MAPPER.readTree(run.out()).get("runs");
    assertThat(runs.get(1).get("fingerprint").asText())
        .isEqualTo(fingerprint(experiment("x86_64-kvm", "hypervisor: {ple: false}", false, "spin_lock")))
        .isNotEqualTo(runs.get(0).get("fingerprint").asText());
  }
}
