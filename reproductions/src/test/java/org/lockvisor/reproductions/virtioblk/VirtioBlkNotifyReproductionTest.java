package org.lockvisor.reproductions.virtioblk;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.lockvisor.experiment.ReproductionOptions;
import org.lockvisor.experiment.ReproductionResult;

/**
 * The quick variant of R2 checks the directions and the bands the model meets with the shared
 * profiles, and that the report explains itself. Two bands of issue 6 are honest misses (arm64
 * baseline level, x86 numjobs=2 ratio; see docs/reproductions/virtio-blk-notify.md): they are
 * checked here to stay reported as misses with their measured direction, not asserted met.
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
  void arm64_notifyOutsideTheLock_raisesIopsTwoToThreeFold() {
    assertThat(m("arm64.nj4.ratio")).isBetween(2.0, 3.0);
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
  void x86_moreJobs_noObviousDifference() {
    for (int nj : new int[] {4, 8, 12}) {
      assertThat(m("x86.nj" + nj + ".ratio")).as("numjobs=%s", nj).isBetween(0.93, 1.10);
    }
  }

  @Test
  void x86_numjobs2_baselineNearThePublishedLevel_ratioAnHonestMiss() {
    assertThat(m("x86.nj2.baseline.iops")).isBetween(0.7 * 104_000, 1.3 * 104_000);
    // the patch never hurts, but the VMM's main loop is the bottleneck and the in-kernel ioeventfd
    // exit is short, so the model does not produce the published 1.35x (documented miss)
    assertThat(m("x86.nj2.ratio")).isBetween(0.95, 1.2);
  }

  @Test
  void arm64_baselineLevel_anHonestMissAboveThePublishedFigure() {
    // with the profile's estimated exit and emulation costs the serialized exits are ~20 us, not
    // the "hundreds of microseconds" of the seed mail: the baseline is above the 14K +-30% band
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

  @Test
  void sameSeed_sameResult() {
    var arm = org.lockvisor.arch.catalog.ArchProfiles.byName("arm64-kvm");
    var costs = org.lockvisor.devices.spi.CostSource.of(arm);
    var fio = org.lockvisor.workloads.fio.FioConfig.libaio(4, "randread", 64);
    var mode = org.lockvisor.devices.virtioblk.VirtioBlkConfig.NotifyMode.INSIDE_LOCK;
    NotifyScenario a = new NotifyScenario(arm, costs, 4, mode, fio, 7).run(2, 5);
    NotifyScenario b = new NotifyScenario(arm, costs, 4, mode, fio, 7).run(2, 5);
    assertThat(a.device.stats()).isEqualTo(b.device.stats());
    assertThat(a.fio.figures()).isEqualTo(b.fio.figures());
  }

  @Test
  void registeredForServiceLoader() {
    assertThat(java.util.ServiceLoader.load(org.lockvisor.experiment.Reproduction.class).stream()
        .map(p -> p.get().name())).contains(VirtioBlkNotifyReproduction.NAME);
  }

  @Test
  void report_explainsItself() {
    String text = String.join("\n", result.report());
    assertThat(text).contains("spin behind exit ms/s", "exits/s", "kicks suppressed", "14K -> 34K", "104K -> 140K");
  }
}
