package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.cli.CliFixture.Run;

/**
 * A virtio-blk run's outputs show the work its guests' idle tasks do: a completion interrupt that
 * arrives while a vCPU idles runs in {@code swapper/N}, so its track in trace.json has a name (it
 * was left unnamed) and oncpu.folded holds that work (it was left out, ~15 % of the guest's CPU,
 * although docs/outputs.md says "everything on CPU but idle"); report.html gives fio's {@code
 * bw_kib_s} its unit, KiB/s (it said "s").
 */
class RunOutputsShowTheirWorkTest {

  @TempDir
  Path temp;

  @Test
  void virtioBlkRun_idleTaskInterruptWork_namedInTheTrace_andOnCpu() throws IOException {
    Path out = temp.resolve("out");
    // four host CPUs and a floating VMM main loop (the example before issue 36): one vCPU idles, and
    // the completion interrupts that reach it run in its swapper
    Run run = CliFixture.run("run", ExampleExperimentsTest.DIR.resolve("quick-virtio-blk.yaml").toString(),
        "--variant", "base", "--trace", "--set", "host.cpus=4", "--set", "vms[0].devices[0].options.vmm-cpu=-1",
        "--out", out.toString());
    assertThat(run.exitCode()).as(run.err()).isZero();

    JsonNode trace = Json.MAPPER.readTree(out.resolve("trace.json").toFile());
    Set<String> named = new HashSet<>();
    Set<String> withSlices = new HashSet<>();
    boolean swapperTrack = false;
    for (JsonNode e : trace.get("traceEvents")) {
      String track = e.path("pid").asInt() + "/" + e.path("tid").asInt();
      if (e.path("ph").asText().equals("M") && e.path("name").asText().equals("thread_name")) {
        named.add(track);
        // a VM's threads process (the host's threads are pid 1000)
        swapperTrack |= e.at("/args/name").asText().startsWith("swapper/") && e.path("pid").asInt() > 1000;
      } else if (e.path("ph").asText().equals("X")) {
        withSlices.add(track);
      }
    }
    assertThat(named).as("every track with slices has a name").containsAll(withSlices);
    assertThat(swapperTrack).as("a guest idle task's track, named").isTrue();

    String oncpu = Files.readString(out.resolve("oncpu.folded"));
    assertThat(oncpu.lines().filter(l -> l.startsWith("vm0;swapper/")))
        .as("interrupt work done in a guest idle task").isNotEmpty()
        .allSatisfy(l -> assertThat(l).doesNotContain(";default_idle "));

    String html = Files.readString(out.resolve("report.html"));
    assertThat(html).contains("bw_kib_s</td><td>KiB/s");
  }
}
