package org.lockvisor.reproductions.virtioblk;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.reproductions.api.ReproductionOptions;
import org.lockvisor.reproductions.api.ReproductionResult;
import org.lockvisor.reproductions.support.ShippedExperiment;
import org.lockvisor.studies.envelope.Band;

/**
 * The quick variant of R2 checks the directions the model produces with the shared profiles and
 * the seed's most likely setup (x86 x-data-plane, arm64 main-loop device with a level virtio-mmio
 * interrupt), and that the report explains itself. Bands the model misses (see
 * docs/reproductions/virtio-blk-notify.md: both levels, x86 numjobs=2 ratio just under 1.2, x86
 * numjobs=4) are checked to stay reported as misses with their measured direction, not asserted
 * met; the seed's notify timings are checks beside the bands, outside the verdict.
 */
class VirtioBlkNotifyReproductionTest {
  private static ReproductionResult result;

  @BeforeAll
  static void runQuick() {
    result = new VirtioBlkNotifyReproduction().run(new ReproductionOptions(true, Optional.empty()));
  }

  private static double m(String key) {
    assertThat(result.metrics()).containsKey(key);
    return result.metrics().get(key);
  }

  @Test
  void bands_structured_baselineLevelsAreTheOnlyCalibrationTargets() {
    assertThat(result.bands()).extracting(Band::key).containsExactly("arm64.nj4.ratio", "arm64.nj4.baseline.iops",
        "x86.nj2.ratio", "x86.nj2.baseline.iops", "x86.nj4.ratio", "x86.nj8.ratio", "x86.nj12.ratio");
    assertThat(result.bands()).extracting(Band::key)
        .containsExactlyElementsOf(new VirtioBlkNotifyReproduction().bandKeys());
    assertThat(result.bands()).filteredOn(Band::baselineOnly).extracting(Band::key)
        .containsExactly("arm64.nj4.baseline.iops", "x86.nj2.baseline.iops");
    assertThat(result.bands()).allSatisfy(b -> assertThat(b.simulated())
        .isEqualTo(result.metrics().get(b.key())));
    assertThat(result.reproduced()).isEqualTo(result.bands().stream().allMatch(Band::met));
  }

  @Test
  void arm64_notifyOutsideTheLock_raisesIopsAboutTwofold() {
    assertThat(m("arm64.nj4.ratio")).isBetween(1.6, 3.0);
    // the baseline's other vCPUs spin on vq_lock for the holder's notify exits; the patch never does
    // (with WFE trapping, part of that wait is spent in WFx exits rather than in guest spin)
    assertThat(m("arm64.nj4.baseline.spin_during_exit_ms_per_s")).isGreaterThan(20.0);
    // every baseline request exits (the exit processes the queue synchronously, so avail_event is
    // always caught up): no kick is suppressed. After the patch, QEMU 2.0's pop publishes the
    // current avail->idx, so adds during another vCPU's exit still kick, but adds with no pop in
    // between are suppressed: fewer exits per request than the baseline's one
    assertThat(m("arm64.nj4.baseline.kicks_suppressed_share")).isLessThan(0.01);
    assertThat(m("arm64.nj4.patched.kicks_suppressed_share")).isGreaterThan(0.2);
  }

  @Test
  void arm64_patchedNotifyExits_queueOnTheBqlForHundredsOfMicroseconds() {
    // the baseline's exits are serialised by vq_lock; the patched ones queue on the BQL behind each
    // other and behind the main loop: a longer tail. (The seed's "may take hundreds of microseconds"
    // is about the baseline, and is checked there by the timing checks, not asserted here.)
    assertThat(m("arm64.nj4.patched.exit_p99_us")).isGreaterThan(100.0);
    assertThat(m("arm64.nj4.patched.exit_p50_us")).isGreaterThan(m("arm64.nj4.baseline.exit_p50_us"));
    assertThat(m("arm64.nj4.baseline.exit_p99_us")).isLessThan(m("arm64.nj4.patched.exit_p99_us"));
  }

  @Test
  void x86_numjobs2_patchGains_moreJobsTheGainFades() {
    double two = m("x86.nj2.ratio");
    assertThat(two).as("numjobs=2").isBetween(1.05, 1.5);
    for (int nj : new int[] {8, 12}) {
      assertThat(m("x86.nj" + nj + ".ratio")).as("numjobs=%s", nj).isBetween(0.85, 1.10).isLessThan(two);
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void seedTimings_printedBesideTheBands_neverPartOfTheVerdict() {
    // the seed mail's "several microseconds" (x86) and "may take hundreds of microseconds" (arm64)
    // describe the unpatched mechanism: checks of the baseline's exit times, not bands
    List<Map<String, Object>> checks = (List<Map<String, Object>>) result.data().get("timing_checks");
    assertThat(checks).extracting(c -> c.get("key"))
        .containsExactly("arm64.nj4.baseline.notify_p99_us", "x86.nj2.baseline.notify_p50_us");
    assertThat(checks.get(0)).containsEntry("low_us", 100.0).containsEntry("high_us", null);
    assertThat(checks.get(1)).containsEntry("low_us", 2.0).containsEntry("high_us", 10.0);
    assertThat(result.bands()).extracting(Band::key).noneMatch(k -> k.contains("notify"));
    assertThat(m("checks.arm64.nj4.baseline.notify_p99_us")).isEqualTo(m("arm64.nj4.baseline.exit_p99_us"));
    assertThat(m("checks.x86.nj2.baseline.notify_p50_us")).isEqualTo(m("x86.nj2.baseline.exit_p50_us"));
    assertThat(String.join("\n", result.report())).contains("Seed timings", "several microseconds",
        "may take hundreds of microseconds");
  }

  @Test
  void x86_dataplaneLevel_anHonestMissAboveThePublishedFigure() {
    // x-data-plane's per-request work (composed from the profile's ring and host aio keys) does not
    // cap two jobs near 104K: the level band is missed upwards (documented)
    assertThat(m("x86.nj2.baseline.iops")).isGreaterThan(1.3 * 104_000);
  }

  @Test
  void arm64_baselineLevel_anHonestMissAboveThePublishedFigure() {
    // with the profiles' sourced costs the serialized baseline exits last tens of us, not the
    // "hundreds of microseconds" of the seed mail: the baseline is above the 14K +-30% band
    assertThat(m("arm64.nj4.baseline.iops")).isGreaterThan(1.3 * 14_000);
    assertThat(result.reproduced()).isFalse();
  }

  @Test
  @SuppressWarnings("unchecked")
  void json_rowsHaveTheIssueShape() {
    List<Map<String, Object>> rows = (List<Map<String, Object>>) result.data().get("rows");
    assertThat(rows).hasSize(5);
    Map<String, Object> arm = rows.get(0);
    assertThat(arm).containsEntry("arch", "arm64-kvm").containsEntry("numjobs", 4);
    assertThat((Map<String, Object>) arm.get("baseline")).containsKeys("iops", "notify_exits_per_s",
        "kicks_suppressed_by_event_idx", "vq_lock_spin_during_notify_exit_ms_per_s");
    assertThat((Map<String, Object>) arm.get("published")).containsKeys("baseline", "patched");
    assertThat(rows.get(1)).containsEntry("arch", "x86_64-kvm").containsEntry("numjobs", 2);
    assertThat(rows.get(2).get("published")).isNull();
  }

  /** The arm64 file at a tiny scale, seed 7, with {@code path=value} settings. */
  private static ExperimentResult armRun(String variant, String... settings) {
    ReproductionOptions options = new ReproductionOptions(true, Optional.empty());
    ShippedExperiment e = VirtioBlkNotifyReproduction.experiment(VirtioBlkNotifyReproduction.ARM_FILE, 4,
        new VirtioBlkNotifyReproduction.Plan(2, 5, false), options).with("seed", "7");
    for (int i = 0; i < settings.length; i += 2) {
      e = e.with(settings[i], settings[i + 1]);
    }
    return e.run(options, VirtioBlkNotifyReproduction.NAME, variant, "test-" + variant, null);
  }

  @Test
  void sameSeed_sameResult() {
    ExperimentResult a = armRun("base");
    ExperimentResult b = armRun("base");
    assertThat(a.fingerprint()).isEqualTo(b.fingerprint());
    assertThat(a.devices().get(0).stats()).isEqualTo(b.devices().get(0).stats());
    assertThat(a.workload("vm0", "fio").figures()).isEqualTo(b.workload("vm0", "fio").figures());
    assertThat(armRun("patched").fingerprint()).isNotEqualTo(a.fingerprint());
  }

  @Test
  void registeredForServiceLoader() {
    assertThat(java.util.ServiceLoader.load(org.lockvisor.reproductions.api.Reproduction.class).stream()
        .map(p -> p.get().name())).contains(VirtioBlkNotifyReproduction.NAME);
  }

  @Test
  void report_explainsItself() {
    String text = String.join("\n", result.report());
    assertThat(text).contains("spin behind exit ms/s", "exits/s", "kicks suppressed", "14K -> 34K", "104K -> 140K",
        "Notify exit durations", "p99", "Setup: x86 qemu-2.0-dataplane", "mmio-level");
  }

  @Test
  void arm64File_levelInterrupt_readsAndAcksThroughQemu_msiDoesNot() {
    // KVM/ARM 3.15: no irqfd, QEMU 2.0's virt board: virtio-mmio only; vm_interrupt's status read
    // and ACK write are exits to QEMU, an MSI completion has none
    assertThat(armRun("base").devices().get(0).stats().get("mmio_register_exits").longValue()).isPositive();
    assertThat(armRun("base", "vms[0].devices[0].options.interrupt-transport", "msi").devices().get(0).stats()
        .get("mmio_register_exits").longValue()).isZero();
  }

  @Test
  void parameters_declareTheSeedsSetup() {
    assertThat(new VirtioBlkNotifyReproduction().parameters()).extracting(p -> p.name())
        .contains("seed", "x86-vmm", "arm64-interrupt-transport", "queue-policy", "backend-service-us");
    assertThat(VirtioBlkNotifyReproduction.X86_VMM_PARAMETER.parse("qemu-2.0-main-loop"))
        .isEqualTo(org.lockvisor.devices.virtioblk.VirtioBlkConfig.Vmm.QEMU_2_0_MAIN_LOOP);
    org.assertj.core.api.Assertions.assertThatThrownBy(
        () -> VirtioBlkNotifyReproduction.QUEUE_POLICY_PARAMETER.parse("qemu-9"))
        .hasMessageContaining("queue-policy");
  }

  @Test
  void shippedFiles_sayTheDeclaredDefaults_parametersAreTheirPaths() {
    var arm = ShippedExperiment.load(new VirtioBlkNotifyReproduction(), VirtioBlkNotifyReproduction.ARM_FILE).tree();
    var x86 = ShippedExperiment.load(new VirtioBlkNotifyReproduction(), VirtioBlkNotifyReproduction.X86_FILE).tree();
    String device = "/vms/0/devices/0/options/";
    assertThat(x86.at(device + "vmm").asText())
        .isEqualTo(VirtioBlkNotifyReproduction.X86_VMM_PARAMETER.defaultValue().orElseThrow());
    assertThat(arm.at(device + "interrupt-transport").asText())
        .isEqualTo(VirtioBlkNotifyReproduction.ARM_TRANSPORT_PARAMETER.defaultValue().orElseThrow());
    for (var file : List.of(arm, x86)) {
      assertThat(file.path("seed").asLong()).isEqualTo(VirtioBlkNotifyReproduction.SEED);
      assertThat(file.at(device + "backend-service-ns").asText()).isEqualTo(VirtioBlkNotifyReproduction
          .BACKEND_PARAMETER.pathValue(VirtioBlkNotifyReproduction.BACKEND_PARAMETER.defaultValue().orElseThrow()));
    }
    assertThat(arm.at("/vms/0/vcpus").asInt()).isEqualTo(VirtioBlkNotifyReproduction.ARM_VCPUS);
    assertThat(x86.at("/vms/0/vcpus").asInt()).isEqualTo(VirtioBlkNotifyReproduction.X86_VCPUS);
    assertThat(VirtioBlkNotifyReproduction.BACKEND_PARAMETER.path()).contains("vms[0].devices[0].options.backend-service-ns");
    assertThat(VirtioBlkNotifyReproduction.SEED_PARAMETER.path()).contains("seed");
  }
}
