package org.lockvisor.reports;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.Vm;
import org.lockvisor.machine.WaitQueue;
import org.lockvisor.machine.config.HypervisorConfig;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.scheduler.builtin.CfsScheduler;

/** trace.json parses back as Chrome trace events: named tracks, non-overlapping run slices, spins, exits. */
class ChromeTraceTest {
  private static final long US = 1_000;
  private static final long MS = 1_000_000;

  private JsonNode record(int maxEvents, ChromeTrace[] out) throws Exception {
    Simulation sim = new Simulation(9);
    Machine machine = new Machine(sim);
    machine.createHost("host", 2, KernelConfig.zeroCost(MS), CfsScheduler.withDefaults());
    Vm vm = machine.createVm("vm0", 2, KernelConfig.zeroCost(4 * MS), CfsScheduler.withDefaults(),
        new HypervisorConfig(1 * US, 0, 0), 0, 1);
    ChromeTrace trace = ChromeTrace.attach(machine, maxEvents);
    out[0] = trace;
    boolean[] flag = {false};
    Task[] spinner = new Task[1];
    Program mmio = Program.named("handle_mmio").work(20 * US, "kvm_mmio").build();
    vm.guest().spawn("setter", Program.named("setter")
        .loopWhile(t -> true, Program.named("setter_loop")
            .work(300 * US, "compute")
            .op(Ops.vmExit("MMIO", mmio))
            .run(t -> {
              flag[0] = !flag[0];
              spinner[0].poke(0);
            })
            .build())
        .build(), 0);
    spinner[0] = vm.guest().spawn("spinner", Program.named("spinner")
        .loopWhile(t -> true, Program.named("spinner_loop")
            .op(Ops.spinUntil("wait_for_flag", t -> flag[0], 0))
            .work(50 * US, "consume")
            .op(Ops.spinUntil("wait_for_clear", t -> !flag[0], 0))
            .build())
        .build(), 1);
    sim.runUntil(20 * MS);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    trace.writeTo(bytes);
    return new ObjectMapper().readTree(bytes.toByteArray());
  }

  @Test
  void traceParses_tracksAreNamed_runSlicesDoNotOverlap_spinsAndExitsPresent() throws Exception {
    ChromeTrace[] trace = new ChromeTrace[1];
    JsonNode root = record(1_000_000, trace);

    assertThat(root.get("metadata").get("truncated").asBoolean()).isFalse();
    JsonNode events = root.get("traceEvents");
    assertThat(events.size()).isGreaterThan(50);
    List<String> processNames = new ArrayList<>();
    Map<String, List<double[]>> runSlices = new HashMap<>();
    int spins = 0;
    int exits = 0;
    for (JsonNode e : events) {
      String ph = e.get("ph").asText();
      assertThat(ph).isIn("M", "X", "i");
      if (ph.equals("M") && e.get("name").asText().equals("process_name")) {
        processNames.add(e.get("args").get("name").asText());
      }
      if (ph.equals("X")) {
        assertThat(e.get("ts").asDouble()).isGreaterThanOrEqualTo(0);
        assertThat(e.get("dur").asDouble()).isGreaterThanOrEqualTo(0);
        String cat = e.get("cat").asText();
        if (cat.equals("run")) {
          runSlices.computeIfAbsent(e.get("pid") + "/" + e.get("tid"), k -> new ArrayList<>())
              .add(new double[] {e.get("ts").asDouble(), e.get("dur").asDouble()});
        } else if (cat.equals("spin")) {
          spins++;
          assertThat(e.get("name").asText()).isIn("wait_for_flag", "wait_for_clear");
        } else if (cat.equals("vmexit")) {
          exits++;
          assertThat(e.get("name").asText()).isIn("exit MMIO", "exit HLT");
        }
      }
    }
    assertThat(processNames).containsExactly("host host", "vm vm0", "host host threads", "vm vm0 threads");
    assertThat(spins).isPositive();
    assertThat(exits).isPositive();
    assertThat(runSlices).isNotEmpty();
    runSlices.forEach((track, slices) -> {
      slices.sort(Comparator.comparingDouble(s -> s[0]));
      for (int i = 1; i < slices.size(); i++) {
        assertThat(slices.get(i)[0]).as(track).isGreaterThanOrEqualTo(slices.get(i - 1)[0] + slices.get(i - 1)[1] - 1e-9);
      }
    });
  }

  @Test
  void remoteWakeOfAnIdleCpu_sendsAnIpi_recordedOnTheTargetCpu() throws Exception {
    Simulation sim = new Simulation(4);
    Machine machine = new Machine(sim);
    machine.createHost("host", 2, KernelConfig.zeroCost(MS).withTtwu(org.lockvisor.machine.config.TtwuQueueMode.NEVER, 100, 300, 1 * US, 1 * US, false), CfsScheduler.withDefaults());
    ChromeTrace trace = ChromeTrace.attach(machine, 10_000);
    WaitQueue wq = new WaitQueue("wq");
    boolean[] ready = {false};
    machine.host().spawn("sleeper", Program.named("sleeper")
        .op(Ops.sleepUntil(wq, t -> ready[0])).work(10 * US, "after_wake").build(), 1);
    machine.host().spawn("waker", Program.named("waker")
        .work(100 * US, "before_wake").run(t -> ready[0] = true).op(Ops.wakeOne(wq)).build(), 0);
    sim.runUntil(MS);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    trace.writeTo(bytes);
    JsonNode root = new ObjectMapper().readTree(bytes.toByteArray());

    List<JsonNode> ipis = new ArrayList<>();
    root.get("traceEvents").forEach(e -> {
      if (e.path("cat").asText().equals("ipi")) {
        ipis.add(e);
      }
    });
    assertThat(ipis).hasSize(1);
    assertThat(ipis.get(0).get("ph").asText()).isEqualTo("i");
    assertThat(ipis.get(0).get("name").asText()).isEqualTo("IPI from host/cpu0");
    assertThat(ipis.get(0).get("tid").asInt()).isEqualTo(machine.host().cpus().get(1).id());
  }

  @Test
  void boundedSize_stopsAtTheLimitAndSaysSo() throws Exception {
    ChromeTrace[] trace = new ChromeTrace[1];
    JsonNode root = record(40, trace);

    assertThat(trace[0].truncated()).isTrue();
    assertThat(trace[0].events()).isEqualTo(40);
    assertThat(root.get("metadata").get("truncated").asBoolean()).isTrue();
    assertThat(root.get("traceEvents").toString()).contains("trace truncated at 40 events");
  }
}
