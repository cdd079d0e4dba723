package org.lockvisor.reproductions.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.reproductions.api.ReproductionResult;

class RunMeterTest {

  private static Simulation ticking(long seed, int events) {
    Simulation sim = new Simulation(seed);
    for (int i = 1; i <= events; i++) {
      sim.schedule(i * 10L, (kind, arg) -> { }, 0, 0);
    }
    sim.runUntil(events * 10L + 1);
    return sim;
  }

  @Test
  void measure_recordsEventsAndSimulatedTime_sortedByLabel() {
    RunMeter meter = new RunMeter();
    Simulation b = meter.measure("b", () -> ticking(1, 30), Simulation::eventsProcessed, Simulation::now);
    meter.measure("a", () -> ticking(2, 12), Simulation::eventsProcessed, Simulation::now);

    assertThat(b.eventsProcessed()).isEqualTo(30);
    assertThat(meter.runs()).extracting(RunMeter.Run::label).containsExactly("a", "b");
    assertThat(meter.runs()).extracting(RunMeter.Run::events).containsExactly(12L, 30L);
    assertThat(meter.runs().get(1).simulatedNs()).isEqualTo(301);
    assertThat(meter.runs()).allSatisfy(r -> assertThat(r.wallNs()).isPositive());
    assertThat(meter.events()).isEqualTo(42);
  }

  @Test
  @SuppressWarnings("unchecked")
  void attach_addsRunsAndSummary_keepsTheVerdict() {
    RunMeter meter = new RunMeter();
    meter.add(new RunMeter.Run("x", 2_000_000, 5, 1_000_000_000L, 500_000_000L));
    meter.add(new RunMeter.Run("y", 1_000_000, 5, 1_000_000_000L, 0));
    ReproductionResult r = ReproductionResult.of("demo", true, "fine", List.of("table"), Map.of("m", 1.0),
        Map.of("rows", List.of()));

    ReproductionResult with = meter.attach(r);

    assertThat(with.reproduced()).isTrue();
    assertThat(with.metrics()).isEqualTo(r.metrics());
    assertThat(with.data()).containsKeys("rows", "runs", "simulator");
    List<Map<String, Object>> runs = (List<Map<String, Object>>) with.data().get("runs");
    assertThat(runs.get(0)).containsEntry("events", 2_000_000L).containsEntry("events_per_s", 2_000_000L)
        .containsEntry("events_per_cpu_s", 4_000_000L);
    Map<String, Object> sim = (Map<String, Object>) with.data().get("simulator");
    assertThat(sim).containsEntry("events", 3_000_000L).containsEntry("events_per_s", 1_500_000L)
        .containsEntry("min_events_per_s", 1_000_000L);
    assertThat(with.report()).hasSize(2);
    assertThat(with.report().get(1)).contains("2 machine runs").contains("1.50 M events/s overall");
  }
}
