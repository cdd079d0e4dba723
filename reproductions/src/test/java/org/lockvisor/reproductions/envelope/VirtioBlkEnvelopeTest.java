package org.lockvisor.reproductions.envelope;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.collect.ImmutableList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.arch.catalog.ArchProfiles;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.reproductions.study.ReproductionEnvelope;
import org.lockvisor.reproductions.virtioblk.VirtioBlkNotifyReproduction;
import org.lockvisor.studies.envelope.EnvelopeRunner;
import org.lockvisor.studies.envelope.EnvelopeSummary;

/**
 * A real reproduction's envelope, small enough for the test suite (3 samples x 2 seeds of
 * virtio-blk-notify --quick over one estimate, 6 runs; the 32 x 2 envelopes of the three seed
 * reproductions are measured with the CLI and recorded on their pages): every run judges the
 * reproduction's bands, and the arm64 baseline IOPS falls as the QEMU per-request emulation cost
 * rises (the mechanism: the main loop serves each request under the BQL), so its PRCC is negative.
 */
class VirtioBlkEnvelopeTest {

  @Test
  void emulationCost_envelope_baselineIopsFallsAsTheCostRises() {
    Map<String, ArchProfile> profiles = new LinkedHashMap<>();
    ArchProfiles.discover().forEach((name, f) -> profiles.put(name, f.create()));
    ReproductionEnvelope subject = new ReproductionEnvelope(new VirtioBlkNotifyReproduction(), profiles);
    var dims = subject.dimensions(List.of("cost.arm64-kvm.VMM_REQUEST_EMULATION"));
    EnvelopeRunner.Plan plan = new EnvelopeRunner.Plan("reproduction", "virtio-blk-notify", true, dims, 3,
        ImmutableList.of(1L, 2L), 1, "", ImmutableList.of());
    EnvelopeRunner.Outcome outcome = EnvelopeRunner.run(plan, subject.simulation(true, List.of()), null,
        new EnvelopeRunner.Options(2, 0, 1, false), line -> { });
    assertThat(outcome.failed()).isEmpty();
    EnvelopeSummary s = outcome.summary().orElseThrow();
    assertThat(s.bands()).extracting(b -> b.key()).contains("arm64.nj4.baseline.iops", "arm64.nj4.ratio");
    assertThat(s.prcc(s.column("arm64.nj4.baseline.iops")).get(0)).isLessThan(-0.5);
    assertThat(outcome.results()).hasSize(6).allSatisfy(r -> assertThat(r.bands()).hasSize(7));
  }
}
