package org.lockvisor.experiment.runner;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.lockvisor.core.account.SymbolTable;
import org.lockvisor.core.sim.EventHandler;
import org.lockvisor.machine.Cpu;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.VcpuTask;
import org.lockvisor.machine.Vm;

/**
 * The runner's periodic sampler of the measured guests ({@code sample-interval}; see {@link
 * GuestSamples} for what it records). It is an instrument, not part of the machine: one event per
 * period, which changes nothing the machine does (ties on time keep their order), and which the
 * result's {@link ExperimentResult#events() events} leave out; the fingerprint covers them, so an
 * experiment sampled and one not sampled have different fingerprints. Nothing is allocated per
 * sample once every spin symbol has been seen.
 */
final class GuestSampler implements EventHandler {
  private final Machine machine;
  private final long intervalNs;
  private final List<Guest> guests = new ArrayList<>();
  /** Every period since the start, warm-up included: the events the result leaves out. */
  private long events;
  private long periods;

  /** What is kept of one guest: its CPUs and vCPUs by index, and the counters. */
  private static final class Guest {
    final Vm vm;
    final Cpu[] cpus;
    final VcpuTask[] vcpus;
    long preemptedSum;
    long[] samples = new long[64];
    long[] runnableSum = new long[64];
    long[] runnableMax = new long[64];

    Guest(Vm vm) {
      this.vm = vm;
      this.cpus = vm.guest().cpus().toArray(new Cpu[0]);
      this.vcpus = vm.vcpus().toArray(new VcpuTask[0]);
    }

    void reset() {
      preemptedSum = 0;
      java.util.Arrays.fill(samples, 0);
      java.util.Arrays.fill(runnableSum, 0);
      java.util.Arrays.fill(runnableMax, 0);
    }

    void grow(int symbol) {
      int n = Math.max(symbol + 1, samples.length * 2);
      samples = java.util.Arrays.copyOf(samples, n);
      runnableSum = java.util.Arrays.copyOf(runnableSum, n);
      runnableMax = java.util.Arrays.copyOf(runnableMax, n);
    }
  }

  GuestSampler(Machine machine, List<Vm> vms, long intervalNs) {
    this.machine = machine;
    this.intervalNs = intervalNs;
    for (Vm vm : vms) {
      guests.add(new Guest(vm));
    }
  }

  /** Schedules the first sample one interval from now. */
  void start() {
    machine.sim().schedule(intervalNs, this, 0, 0);
  }

  /** Forgets what was sampled (the measurement window starts now); the sampling goes on. */
  void reset() {
    periods = 0;
    guests.forEach(Guest::reset);
  }

  /** The sampler's own events since the simulation began. */
  long events() {
    return events;
  }

  @Override
  public void onEvent(int kind, long arg) {
    events++;
    periods++;
    for (Guest g : guests) {
      for (VcpuTask v : g.vcpus) {
        if (v.hostState() == VcpuTask.HostState.PREEMPTED) {
          g.preemptedSum++; // runnable, waiting for a physical CPU
        }
      }
      for (int i = 0; i < g.cpus.length; i++) {
        Cpu c = g.cpus[i];
        Task cur = c.current();
        if (cur == null || !g.vcpus[i].onCpu()) {
          continue;
        }
        int sym = cur.spinSymbol();
        if (sym < 0) {
          continue;
        }
        if (sym >= g.samples.length) {
          g.grow(sym);
        }
        int runnable = g.vm.guest().scheduler().runnable(c);
        g.samples[sym]++;
        g.runnableSum[sym] += runnable;
        g.runnableMax[sym] = Math.max(g.runnableMax[sym], runnable);
      }
    }
    machine.sim().schedule(intervalNs, this, 0, 0);
  }

  /** What was sampled since the last {@link #reset}, one entry per guest in machine order. */
  List<GuestSamples> results() {
    SymbolTable symbols = machine.symbols();
    List<GuestSamples> out = new ArrayList<>();
    for (Guest g : guests) {
      Map<String, GuestSamples.Spinners> spinners = new LinkedHashMap<>();
      for (int s = 0; s < g.samples.length; s++) {
        if (g.samples[s] > 0) {
          // one name in two symbol domains (rare) is one line, as in perf's per-symbol view
          spinners.merge(symbols.name(s), new GuestSamples.Spinners(g.samples[s], g.runnableSum[s], g.runnableMax[s]),
              (a, b) -> new GuestSamples.Spinners(a.samples() + b.samples(), a.runnableSum() + b.runnableSum(),
                  Math.max(a.runnableMax(), b.runnableMax())));
        }
      }
      out.add(new GuestSamples(g.vm.name(), intervalNs, periods, g.preemptedSum, spinners));
    }
    return out;
  }
}
