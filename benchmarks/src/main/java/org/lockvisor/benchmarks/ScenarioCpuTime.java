package org.lockvisor.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.ToLongFunction;
import org.lockvisor.machine.MachineTrace;

/**
 * The per-reproduction quick runs (the same machine runs as the JMH benchmarks) timed by the
 * thread's CPU time instead of the wall clock, round-robin in one JVM: on a machine shared with
 * other jobs, time spent descheduled is not counted. Prints, per scenario, the median over the
 * measured rounds of events per CPU-second and CPU ms per run, and whether the tracing hooks were
 * compiled in ({@code -Dlockvisor.trace.hooks=false} removes them); run it in alternating JVMs
 * with and without that property to measure what the hooks cost with no trace installed.
 *
 * <p>Usage: {@code java -cp benchmarks.jar org.lockvisor.benchmarks.ScenarioCpuTime [rounds]
 * [warm-up rounds]} (default 6 and 3).
 */
public final class ScenarioCpuTime {

  private ScenarioCpuTime() {}

  private record Scenario(String name, ToLongFunction<RunCounters> run) {}

  public static void main(String[] args) {
    int rounds;
    int warmup;
    try {
      rounds = args.length > 0 ? Integer.parseInt(args[0]) : 6;
      warmup = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    } catch (NumberFormatException e) {
      System.err.println("scenario-cpu-time: rounds and warm-up rounds must be integers: " + Arrays.toString(args));
      System.exit(2);
      return;
    }
    if (rounds < 1 || warmup < 0) {
      System.err.println("scenario-cpu-time: need at least one round and no negative warm-up");
      System.exit(2);
      return;
    }
    VhostQuickBenchmark r1 = new VhostQuickBenchmark();
    r1.streams = 256;
    r1.setUp();
    NotifyQuickBenchmark r2arm = new NotifyQuickBenchmark();
    r2arm.arch = "arm64-kvm";
    r2arm.setUp();
    NotifyQuickBenchmark r2x86 = new NotifyQuickBenchmark();
    r2x86.arch = "x86_64-kvm";
    r2x86.setUp();
    SchedMessagingQuickBenchmark r3 = new SchedMessagingQuickBenchmark();
    r3.platform = "ppc64-powervm";
    r3.setUp();
    List<Scenario> scenarios = List.of(
        new Scenario("R1 vhost streams=256", r1::run),
        new Scenario("R2 notify arm64-kvm", r2arm::run),
        new Scenario("R2 notify x86_64-kvm", r2x86::run),
        new Scenario("R3 sched-messaging ppc64", r3::run));
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    List<List<double[]>> samples = new ArrayList<>();
    scenarios.forEach(s -> samples.add(new ArrayList<>()));
    long sink = 0;
    for (int round = 0; round < warmup + rounds; round++) {
      for (int i = 0; i < scenarios.size(); i++) {
        RunCounters c = new RunCounters();
        long cpu0 = threads.getCurrentThreadCpuTime();
        sink += scenarios.get(i).run().applyAsLong(c);
        long cpu = threads.getCurrentThreadCpuTime() - cpu0;
        if (round >= warmup) {
          samples.get(i).add(new double[] {c.events * 1e9 / cpu, cpu / 1e6});
        }
      }
    }
    System.out.printf(Locale.ROOT, "tracing hooks %s; %d rounds after %d warm-up rounds (checksum %d)%n",
        MachineTrace.HOOKS ? "compiled in (no trace installed)" : "compiled out", rounds, warmup, sink & 0xffff);
    System.out.printf(Locale.ROOT, "%-28s %16s %12s%n", "scenario", "events/CPU-s", "CPU ms/run");
    for (int i = 0; i < scenarios.size(); i++) {
      System.out.printf(Locale.ROOT, "%-28s %,16.0f %,12.1f%n", scenarios.get(i).name(),
          median(samples.get(i), 0), median(samples.get(i), 1));
    }
  }

  private static double median(List<double[]> values, int column) {
    double[] v = values.stream().mapToDouble(x -> x[column]).sorted().toArray();
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }
}
