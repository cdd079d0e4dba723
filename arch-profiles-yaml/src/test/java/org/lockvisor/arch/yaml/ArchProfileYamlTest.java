package org.lockvisor.arch.yaml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.common.collect.ImmutableSortedMap;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;
import org.lockvisor.arch.builtin.Arm64KvmArchProfile;
import org.lockvisor.arch.catalog.ProfileException;
import org.lockvisor.arch.builtin.X86KvmArchProfile;
import org.lockvisor.arch.catalog.ProfileException.Problem;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.Cost;
import org.lockvisor.arch.spi.CostKey;
import org.lockvisor.arch.spi.HypervisorBehaviour.NotifyPath;
import org.lockvisor.arch.spi.HypervisorBehaviour.VcpuPreemptedSemantics;
import org.lockvisor.arch.spi.Topology;

/**
 * Property: a YAML profile overrides exactly what it names and inherits everything else with its
 * source; every mistake in a file (unknown key, wrong type, out-of-range value, unknown base) is
 * reported at once with its YAML path, the bad value and a suggestion, never as a parser trace.
 */
class ArchProfileYamlTest {

  private static final ArchProfile X86 = new X86KvmArchProfile().create();
  private static final ArchProfile ARM = new Arm64KvmArchProfile().create();
  private static final SortedMap<String, ArchProfile> BASES = ImmutableSortedMap.of(X86.name(), X86, ARM.name(), ARM);

  private static Path resource(String name) throws URISyntaxException {
    return Path.of(ArchProfileYamlTest.class.getResource("/profiles/" + name).toURI());
  }

  private static ProfileException failure(String yaml) {
    return catchThrowableOfType(ProfileException.class, () -> ArchProfileYaml.parse(yaml, "test.yaml", BASES));
  }

  @Test
  void example_overridesNamedFields_inheritsRestWithSources() throws Exception {
    ArchProfile p = ArchProfileYaml.load(resource("my-arm64-server.yaml"));

    assertThat(p.name()).isEqualTo("my-arm64-server");
    assertThat(p.topology()).isEqualTo(new Topology(2, 32, 1));
    assertThat(p.costs().value(CostKey.CACHELINE_XFER_REMOTE)).isEqualTo(250);
    assertThat(p.costs().cost(CostKey.CACHELINE_XFER_REMOTE).source().reference()).startsWith("estimate 200-400");
    assertThat(p.costs().cost(CostKey.ATOMIC_RMW).source().confidence()).isEqualTo(Cost.Confidence.E);
    assertThat(p.costs().cost(CostKey.ATOMIC_RMW).source().reference()).contains("my-arm64-server.yaml");
    // Cycle-priced keys follow the overridden clock.
    assertThat(p.ns(CostKey.HYPERCALL)).isEqualTo(Math.round(6500 * 0.3333));
    assertThat(p.hypervisor().notifyPath()).isEqualTo(NotifyPath.IOEVENTFD_IN_KERNEL);
    assertThat(p.hypervisor().stealTime()).isTrue();
    // Not named in the file: inherited unchanged, source included.
    assertThat(p.costs().cost(CostKey.TTWU_FULL)).isEqualTo(ARM.costs().cost(CostKey.TTWU_FULL));
    assertThat(p.hypervisor().vcpuPreempted()).isEqualTo(ARM.hypervisor().vcpuPreempted());
    assertThat(p.hypervisor().spinTrap()).isEqualTo(ARM.hypervisor().spinTrap());
  }

  @Test
  void x86_preemptedSemantics_configurableToInvoluntary() throws Exception {
    ArchProfile p = ArchProfileYaml.parse("""
        name: x86-modern
        extends: x86_64-kvm
        hypervisor: {vcpuPreempted: X86_STEAL_TIME_INVOLUNTARY, postedInterrupts: true}
        costs: {PAUSE: {value: 50, confidence: M, source: "Skylake+ PAUSE ~140 cycles"}}
        """, "test.yaml", BASES);

    assertThat(p.hypervisor().vcpuPreempted()).isEqualTo(VcpuPreemptedSemantics.X86_STEAL_TIME_INVOLUNTARY);
    assertThat(p.hypervisor().postedInterrupts()).isTrue();
    assertThat(p.ns(CostKey.PAUSE)).isEqualTo(50);
    assertThat(p.costs().costs()).filteredOn(c -> c.key() != CostKey.PAUSE)
        .containsExactlyElementsOf(X86.costs().costs().stream().filter(c -> c.key() != CostKey.PAUSE).toList());
  }

  @Test
  void brokenFile_everyProblemReportedAtOnceWithPath() throws Exception {
    ProfileException e = catchThrowableOfType(ProfileException.class,
        () -> ArchProfileYaml.load(resource("broken.yaml"), BASES));

    assertThat(e.problems()).extracting(Problem::path).containsExactlyInAnyOrder(
        "topolgy", "topology.sockets", "topology.threadsPerCore", "costs.ATOMIC_RWM", "costs.PAUSE",
        "costs.SYSCALL.confidence", "costs.HYPERCALL.unit", "hypervisor.vcpuPreempted", "hypervisor.hostHz",
        "hypervisor.spinTrap.enabled");
    assertThat(e.getMessage()).startsWith("arch profile ").contains("has 10 problems:")
        .doesNotContain("com.fasterxml").doesNotContain("Exception");
  }

  @Test
  void unknownKey_didYouMean() {
    ProfileException e = failure("""
        name: t
        extends: x86_64-kvm
        topolgy: {sockets: 1}
        costs: {ATOMIC_RWM: 6}
        hypervisor: {guestHZ: 100}
        """);

    assertThat(e.problems()).extracting(Problem::toString).containsExactly(
        "topolgy: unknown key [topolgy]; did you mean [topology]?; known: "
            + "[name, summary, description, extends, topology, costs, hypervisor]",
        "costs.ATOMIC_RWM: unknown cost key [ATOMIC_RWM]; did you mean [ATOMIC_RMW]?; see docs/plugins for the keys "
            + "and their units",
        "hypervisor.guestHZ: unknown key [guestHZ]; did you mean [guestHz]?; known: [vcpuPreempted, "
            + "spinTrap, stealTime, notifyPath, guestIpiExits, postedInterrupts, hostHz, guestHz, "
            + "dispatchWindowNs, entitlement]");
  }

  @Test
  void wrongTypes_reportedWithValueAndExpectation() {
    ProfileException e = failure("""
        name: t
        extends: x86_64-kvm
        topology: {sockets: "2"}
        costs: {PAUSE: "4ns"}
        hypervisor: {stealTime: 1, notifyPath: [IOEVENTFD_IN_KERNEL]}
        """);

    assertThat(e.problems()).extracting(Problem::toString).containsExactly(
        "topology.sockets: expected a whole number, got text [2]",
        "costs.PAUSE: expected a number or {value, confidence, source}, got text [4ns]",
        "hypervisor.notifyPath: expected one of [IOEVENTFD_IN_KERNEL, USERSPACE_VMM_UNDER_GLOBAL_LOCK, "
            + "HCALL_TO_IO_SERVER], got list",
        "hypervisor.stealTime: expected true or false, got number [1]");
  }

  @Test
  void negativeAndOutOfRange_reportedWithValue() {
    ProfileException e = failure("""
        name: t
        extends: x86_64-kvm
        topology: {coresPerSocket: 0}
        costs: {PAUSE: -4, SPIN_THRESHOLD_LOOPS: 1.5}
        hypervisor: {entitlement: 0.5}
        """);

    assertThat(e.problems()).extracting(Problem::toString).containsExactly(
        "topology.coresPerSocket: out of range [0]; allowed 1..65536",
        "costs.PAUSE: PAUSE must be a finite non-negative number: [-4.0]",
        "costs.SPIN_THRESHOLD_LOOPS: SPIN_THRESHOLD_LOOPS is a count and must be whole: [1.5]",
        "hypervisor: entitlement [0.5] below 1 needs a dispatch window (a PowerVM-style hypervisor)");
  }

  @Test
  void missingExtendsTarget_listsKnownAndSuggests() {
    ProfileException e = failure("""
        name: t
        extends: arm64_kvm
        costs: {PAUSE: -1}
        """);

    assertThat(e.problems()).extracting(Problem::toString).containsExactly(
        "extends: unknown arch profile [arm64_kvm]; known: [arm64-kvm, x86_64-kvm]; did you mean [arm64-kvm]?",
        "costs.PAUSE: PAUSE must be a finite non-negative number: [-1.0]");
  }

  @Test
  void missingNameAndExtends_bothReported() {
    ProfileException e = failure("summary: nothing else\n");

    assertThat(e.problems()).extracting(Problem::path).containsExactly("name", "extends");
  }

  @Test
  void costWithoutSource_rejected() {
    ProfileException e = failure("""
        name: t
        extends: x86_64-kvm
        costs: {PAUSE: {value: 50}}
        """);

    assertThat(e.problems()).extracting(Problem::message).containsExactly(
        "missing [confidence]; allowed: [V, B, M, E]",
        "missing [source] (a file, URL, paper, or \"estimate <range>\")");
  }

  @Test
  void invalidYaml_oneProblemWithLineNoTrace() {
    ProfileException e = failure("name: t\nextends: [x86\n  costs: {\n");

    assertThat(e.problems()).hasSize(1);
    assertThat(e.problems().get(0).path()).startsWith("<file> line ");
    assertThat(e.getMessage()).contains("not valid YAML").doesNotContain("\tat ");
  }

  @Test
  void duplicateKey_rejected() {
    ProfileException e = failure("name: t\nextends: x86_64-kvm\nname: u\n");

    assertThat(e.getMessage()).contains("not valid YAML").contains("Duplicate field 'name'");
  }

  @Test
  void badProfileName_reportedAtName() {
    ProfileException e = failure("name: My Server\nextends: x86_64-kvm\n");

    assertThat(e.problems()).extracting(Problem::path).containsExactly("name");
    assertThat(e.problems().get(0).message()).contains("[My Server]");
  }

  @Test
  void missingFile_problemNotIoTrace() {
    assertThatThrownBy(() -> ArchProfileYaml.load(Path.of("does-not-exist.yaml"), BASES))
        .isInstanceOf(ProfileException.class)
        .hasMessageContaining("<file>: no such file [does-not-exist.yaml]");
  }
}
