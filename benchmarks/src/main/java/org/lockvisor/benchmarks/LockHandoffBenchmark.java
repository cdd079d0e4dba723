package org.lockvisor.benchmarks;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.locking.builtin.QueuedSpinLockFactory;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.locking.testkit.LockTestbed;
import org.lockvisor.machine.Program;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The lock hand-off micro-model: N guest tasks on N vCPUs, each vCPU alone on its physical CPU,
 * loop on one {@code qspinlock} (lock, 500 ns critical section, unlock, 1 us of user work), so
 * the lock is contended and handed from spinner to spinner through the MCS queue. It runs the
 * whole machine (two-level scheduling, the lock's spin states and hand-off events, CPU-time
 * accounting) with no observer. Each invocation advances 100 us of simulated time; the score that
 * counts is the {@code events} counter: simulation events per second of wall time.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class LockHandoffBenchmark {

  static final long SLICE_NS = 100_000;

  @Param({"4", "16"})
  public int spinners;

  private Simulation simulation;

  /** Events processed, reported by JMH as a rate beside the invocation rate. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  public static class Events {
    public long events;
  }

  @Setup(Level.Trial)
  public void setUp() {
    LockTestbed bed = LockTestbed.builder().seed(7).physicalCpus(spinners).vcpus(spinners).build();
    KernelLock lock = bed.createLock(new QueuedSpinLockFactory(), "bench_lock", Map.of());
    Program body = Program.named("handoff_iteration")
        .op(lock.lock(LockMode.PLAIN))
        .work(500, "bench_critical_section")
        .op(lock.unlock(LockMode.PLAIN))
        .userWork(1_000, "bench_think")
        .build();
    Program main = Program.named("handoff").loopWhile(t -> true, body).build();
    for (int i = 0; i < spinners; i++) {
      bed.guest().spawn("spinner/" + i, main);
    }
    simulation = bed.sim();
    simulation.runUntil(simulation.now() + 10 * SLICE_NS);
  }

  @Benchmark
  public long handoff(Events counter) {
    long before = simulation.eventsProcessed();
    simulation.runUntil(simulation.now() + SLICE_NS);
    counter.events += simulation.eventsProcessed() - before;
    return simulation.fingerprint();
  }
}
