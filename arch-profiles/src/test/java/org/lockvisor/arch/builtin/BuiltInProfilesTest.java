package org.lockvisor.arch.builtin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.Cost;
import org.lockvisor.arch.spi.CostKey;
import org.lockvisor.arch.spi.CostTable;
import org.lockvisor.arch.spi.HypervisorBehaviour.NotifyPath;
import org.lockvisor.arch.spi.HypervisorBehaviour.SpinTrap;
import org.lockvisor.arch.spi.HypervisorBehaviour.VcpuPreemptedSemantics;

/**
 * Property: every built-in profile prices every key with a source (estimates with a range), its
 * costs are ordered the way the hardware orders them, and each architecture's defining behaviour
 * (notify path, preemption check, spin trapping, dispatch window) is the one the kernel model says.
 */
class BuiltInProfilesTest {

  /** An estimate states its range, e.g. "(500-1500)" or "estimate 1000 (500-3000)". */
  private static final Pattern RANGE = Pattern.compile("\\d+(\\.\\d+)?-\\d+");

  static Stream<ArchProfile> profiles() {
    return Stream.of(new X86KvmArchProfile(), new Arm64KvmArchProfile(), new Ppc64PowerVmArchProfile(),
        new S390xKvmArchProfile()).map(f -> f.create());
  }

  @ParameterizedTest
  @MethodSource("profiles")
  void everyKey_hasCostWithSource(ArchProfile p) {
    List<Cost> costs = p.costs().costs();
    assertThat(costs).extracting(Cost::key).containsExactly(CostKey.values());
    assertThat(costs).allSatisfy(c -> assertThat(c.source().reference()).isNotBlank());
  }

  @ParameterizedTest
  @MethodSource("profiles")
  void estimates_stateTheirRange(ArchProfile p) {
    assertThat(p.costs().costs())
        .filteredOn(c -> c.source().confidence() == Cost.Confidence.E)
        .allSatisfy(c -> assertThat(RANGE.matcher(c.source().reference()).find())
            .as("%s %s estimate needs a range: %s", p.name(), c.key(), c.source().reference()).isTrue());
  }

  @ParameterizedTest
  @MethodSource("profiles")
  void estimates_haveAStructuredRangeHoldingTheirValue(ArchProfile p) {
    assertThat(p.costs().costs())
        .filteredOn(c -> c.source().confidence() == Cost.Confidence.E)
        .allSatisfy(c -> assertThat(c.range())
            .as("%s %s estimate needs a range holding %s: %s", p.name(), c.key(), c.value(), c.source().reference())
            .hasValueSatisfying(r -> assertThat(r.contains(c.value())).isTrue()));
    assertThat(p.costs().costs())
        .filteredOn(c -> c.source().confidence() != Cost.Confidence.E)
        .allSatisfy(c -> assertThat(c.range()).isEmpty());
  }

  @ParameterizedTest
  @MethodSource("profiles")
  void cacheLineTransfer_growsWithDistance(ArchProfile p) {
    CostTable c = p.costs();
    assertThat(c.ns(CostKey.L1_ACCESS)).isLessThan(c.ns(CostKey.CACHELINE_XFER_SOCKET));
    assertThat(c.ns(CostKey.CACHELINE_XFER_SMT)).isLessThan(c.ns(CostKey.CACHELINE_XFER_SOCKET));
    assertThat(c.ns(CostKey.CACHELINE_XFER_SOCKET)).isLessThan(c.ns(CostKey.CACHELINE_XFER_REMOTE));
    assertThat(c.ns(CostKey.ATOMIC_RMW)).isLessThan(c.ns(CostKey.CACHELINE_XFER_SOCKET));
  }

  @ParameterizedTest
  @MethodSource("profiles")
  void exitToUserspace_costsMoreThanInKernelExit(ArchProfile p) {
    assertThat(p.ns(CostKey.EXIT_USERSPACE)).isGreaterThan(p.ns(CostKey.EXIT_IO_KERNEL));
    assertThat(p.ns(CostKey.EXIT_IO_KERNEL)).isGreaterThan(p.ns(CostKey.VMEXIT_ROUNDTRIP));
  }

  @ParameterizedTest
  @MethodSource("profiles")
  void wakeupClasses_orderedFastExitOnRqFull(ArchProfile p) {
    assertThat(p.ns(CostKey.TTWU_RUNNING)).isLessThan(p.ns(CostKey.TTWU_ON_RQ));
    assertThat(p.ns(CostKey.TTWU_ON_RQ)).isLessThan(p.ns(CostKey.TTWU_FULL));
    assertThat(p.ns(CostKey.IPI_SEND_GUEST)).isGreaterThan(p.ns(CostKey.IPI_SEND));
  }

  @ParameterizedTest
  @MethodSource("profiles")
  void spinTrap_enabledIffWindowPriced(ArchProfile p) {
    Cost window = p.costs().cost(CostKey.PLE_WINDOW);
    SpinTrap trap = p.hypervisor().spinTrap();
    assertThat(window.isNotApplicable()).isEqualTo(!trap.enabled());
    assertThat(p.spinTrapWindowNs() > 0).isEqualTo(trap.enabled());
  }

  @ParameterizedTest
  @MethodSource("profiles")
  void powerVmHcalls_pricedOnlyOnPowerVm(ArchProfile p) {
    boolean powerVm = p.hypervisor().dispatchWindowNs() > 0;
    for (CostKey k : List.of(CostKey.H_CEDE, CostKey.H_CONFER, CostKey.H_PROD)) {
      assertThat(p.costs().cost(k).isNotApplicable()).as("%s %s", p.name(), k).isEqualTo(!powerVm);
    }
  }

  @Test
  void x86_notifyInKernel_pleWithDirectedYield_2016Preempted() {
    ArchProfile x86 = new X86KvmArchProfile().create();
    assertThat(x86.hypervisor().notifyPath()).isEqualTo(NotifyPath.IOEVENTFD_IN_KERNEL);
    assertThat(x86.hypervisor().vcpuPreempted()).isEqualTo(VcpuPreemptedSemantics.X86_STEAL_TIME_ANY_PUT);
    assertThat(x86.hypervisor().spinTrap().trigger()).isEqualTo(SpinTrap.Trigger.PAUSE_LOOP);
    assertThat(x86.costs().value(CostKey.SPIN_THRESHOLD_LOOPS)).isEqualTo(1 << 15);
    assertThat(x86.costs().value(CostKey.QSPINLOCK_PENDING_LOOPS)).isEqualTo(512);
    // 2,000 cycles at 2.93 GHz (SplitX) is the KERNEL-MODEL ~700 ns.
    assertThat(x86.ns(CostKey.VMEXIT_ROUNDTRIP)).isBetween(500L, 1000L);
  }

  @Test
  void arm64_notifyToUserspaceVmm_noPreemptedCheck_wfeTrap() {
    ArchProfile arm = new Arm64KvmArchProfile().create();
    assertThat(arm.hypervisor().notifyPath()).isEqualTo(NotifyPath.USERSPACE_VMM_UNDER_GLOBAL_LOCK);
    assertThat(arm.hypervisor().vcpuPreempted()).isEqualTo(VcpuPreemptedSemantics.NONE);
    assertThat(arm.hypervisor().spinTrap().trigger()).isEqualTo(SpinTrap.Trigger.WFE);
    assertThat(arm.hypervisor().spinTrap().directedYield()).isTrue();
  }

  @Test
  void eras_firstIsTheProfilesOwn_eachSemanticsListed() {
    for (var f : List.of(new X86KvmArchProfile(), new Arm64KvmArchProfile(), new Ppc64PowerVmArchProfile(),
        new S390xKvmArchProfile())) {
      if (!f.kernelEras().isEmpty()) {
        assertThat(f.kernelEras().get(0).vcpuPreempted()).as(f.name()).isEqualTo(f.create().hypervisor().vcpuPreempted());
      }
      f.kernelEras().forEach(era -> assertThat(f.vcpuPreemptedSemantics()).as(f.name() + " " + era.name())
          .contains(era.vcpuPreempted()));
    }
    // arm64: mainline never gained the check; only openEuler's series reads one
    assertThat(new Arm64KvmArchProfile().kernelEras()).extracting(era -> era.name() + "=" + era.vcpuPreempted())
        .containsExactly("3.15=NONE", "5.10=NONE", "5.10-openeuler=ARM64_PV_SCHED");
  }

  @Test
  void arm64_hypercall_severalTimesX86() {
    CostTable arm = new Arm64KvmArchProfile().create().costs();
    CostTable x86 = new X86KvmArchProfile().create().costs();
    assertThat(arm.value(CostKey.HYPERCALL)).isGreaterThan(3 * x86.value(CostKey.HYPERCALL));
    assertThat(arm.ns(CostKey.HYPERCALL)).isGreaterThan(x86.ns(CostKey.HYPERCALL));
  }

  @Test
  void ppc64_dispatchWindow_yieldCount_hz100() {
    ArchProfile ppc = new Ppc64PowerVmArchProfile().create();
    assertThat(ppc.hypervisor().vcpuPreempted()).isEqualTo(VcpuPreemptedSemantics.PPC_YIELD_COUNT);
    assertThat(ppc.hypervisor().dispatchWindowNs()).isEqualTo(10_000_000L);
    assertThat(ppc.hypervisor().guestHz()).isEqualTo(100);
    assertThat(ppc.hypervisor().entitlement()).isLessThan(1.0);
    assertThat(ppc.hypervisor().spinTrap().enabled()).isFalse();
  }

  @Test
  void s390_senseRunning_noTrap_ioeventfd() {
    ArchProfile s390 = new S390xKvmArchProfile().create();
    assertThat(s390.hypervisor().vcpuPreempted()).isEqualTo(VcpuPreemptedSemantics.S390);
    assertThat(s390.hypervisor().spinTrap().enabled()).isFalse();
    assertThat(s390.hypervisor().notifyPath()).isEqualTo(NotifyPath.IOEVENTFD_IN_KERNEL);
  }
}
