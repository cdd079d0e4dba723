package org.lockvisor.experiment.runner;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;

/**
 * The machine-readable result ({@code result.json}): field names here are the contract scripts
 * rely on. Wall-clock time is the only field that differs between two runs of one experiment
 * and seed; {@link #withoutWallClock} removes it for comparisons.
 */
public final class ResultJson {

  public static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private ResultJson() {}

  /**
   * Wall-clock fields: per run and in the provenance; the only ones that differ between identical
   * runs ({@code cpu_ns} and {@code events_per_cpu_s} appear in reproductions' run lists).
   */
  public static final List<String> WALL_CLOCK_FIELDS = List.of("wall_ns", "events_per_s", "cpu_ns", "events_per_cpu_s");

  /** {@code {experiment, source, runs: [..]}}. */
  public static ObjectNode document(String source, List<ExperimentResult> results) {
    return document(source, results, null);
  }

  /**
   * {@code {experiment, source, provenance, runs: [..]}}: the provenance manifest (build, config
   * hash, seed, plugins, and the runs' events, simulated and wall time together) when given.
   */
  public static ObjectNode document(String source, List<ExperimentResult> results, Provenance provenance) {
    ObjectNode root = MAPPER.createObjectNode();
    root.put("experiment", results.isEmpty() ? "" : results.get(0).experiment());
    root.put("source", source);
    if (provenance != null) {
      ObjectNode p = root.putObject("provenance");
      p.put("lockvisor_version", provenance.version());
      p.put("git_commit", provenance.commit());
      p.put("config_sha256", provenance.configHash());
      p.put("root_seed", provenance.seed());
      ArrayNode plugins = p.putArray("plugins");
      provenance.plugins().forEach(u -> plugins.addObject().put("kind", u.kind()).put("name", u.name())
          .put("version", u.version()));
      long events = 0;
      long simulated = 0;
      long wall = 0;
      ArrayNode fingerprints = p.putArray("fingerprints");
      for (ExperimentResult r : results) {
        events += r.events();
        simulated += r.warmupNs() + r.simulatedNs();
        wall += r.wallNs();
        fingerprints.addObject().put("variant", r.variant()).put("fingerprint", r.fingerprint());
      }
      p.put("events", events);
      p.put("simulated_ns", simulated);
      p.put("wall_ns", wall);
      p.put("events_per_s", eventsPerSecond(events, wall));
    }
    ArrayNode runs = root.putArray("runs");
    results.forEach(r -> runs.add(run(r)));
    return root;
  }

  /** One run: identification, timing, workloads, devices, locks and per-thread CPU. */
  public static ObjectNode run(ExperimentResult r) {
    ObjectNode o = MAPPER.createObjectNode();
    o.put("variant", r.variant());
    o.put("arch", r.arch());
    o.put("seed", r.seed());
    o.put("warmup_ns", r.warmupNs());
    o.put("simulated_ns", r.simulatedNs());
    o.put("wall_ns", r.wallNs());
    o.put("events", r.events());
    o.put("events_per_s", eventsPerSecond(r.events(), r.wallNs()));
    o.put("fingerprint", r.fingerprint());
    if (r.finishedNs() >= 0) {
      o.put("finished_ns", r.finishedNs());
    }
    ArrayNode workloads = o.putArray("workloads");
    for (ExperimentResult.WorkloadResult w : r.workloads()) {
      ObjectNode n = workloads.addObject().put("vm", w.vm()).put("name", w.name()).put("type", w.type());
      if (w.finishedNs() >= 0) {
        n.put("finished_ns", w.finishedNs());
      }
      figures(n.putObject("figures"), w.figures());
      if (w.nativeReport() != null) {
        n.set("native", MAPPER.valueToTree(w.nativeReport()));
      }
    }
    ArrayNode devices = o.putArray("devices");
    for (ExperimentResult.DeviceResult d : r.devices()) {
      ObjectNode n = devices.addObject().put("vm", d.vm()).put("name", d.name()).put("type", d.type());
      figures(n.putObject("stats"), d.stats());
    }
    ArrayNode locks = o.putArray("lock_stat");
    for (LockClassStats c : r.lockStat().classes()) {
      ObjectNode n = lockColumns(locks.addObject().put("class", c.className()), c)
          .put("holder_preempted_wait_ns", c.holderPreemptedWaitNs())
          .put("handoffs_to_preempted_waiter", c.handoffsToPreemptedWaiter())
          .put("halts", c.halts())
          .put("kicks", c.kicks());
      if (c.hasReads()) {
        // lock_stat's -R and -W lines: the kernel's columns of the shared and exclusive acquisitions
        lockColumns(n.putObject("reads"), c.reads());
        if (c.writes() != null) {
          lockColumns(n.putObject("writes"), c.writes());
        }
      }
      ArrayNode points = n.putArray("contention_points");
      c.points().forEach(p -> points.addObject().put("symbol", p.symbol()).put("count", p.count()));
    }
    if (!r.convoys().isEmpty()) {
      // issue 37: per lock with optimistic spinning, queue formation against residence
      ArrayNode convoys = o.putArray("convoys");
      for (LockConvoy c : r.convoys()) {
        ObjectNode n = convoys.addObject().put("lock", c.lock()).put("acquisitions", c.acquisitions())
            .put("acquisitions_per_s", c.acquisitionsPerSecond()).put("hold_mean_ns", c.holdMeanNs())
            .put("held_share", c.heldShare()).put("contentions", c.contentions())
            .put("mean_waiters", c.meanWaiters()).put("osq_handoffs", c.osqHandoffs())
            .put("osq_handoffs_to_undispatched", c.osqHandoffsToUndispatched())
            .put("preempted_holds", c.preemptedHolds()).put("hold_preempted_ns", c.holdPreemptedNs())
            .put("interrupted_holds", c.interruptedHolds()).put("hold_interrupt_ns", c.holdInterruptNs());
        ObjectNode episodes = n.putObject("spin_episodes");
        episodes.set("buckets", MAPPER.valueToTree(LockConvoy.BUCKETS));
        for (org.lockvisor.locking.spi.LockStats.SpinEnd end : org.lockvisor.locking.spi.LockStats.SpinEnd.values()) {
          ObjectNode e = episodes.putObject(end.name().toLowerCase(java.util.Locale.ROOT));
          e.set("counts", MAPPER.valueToTree(c.episodes().get(end.ordinal())));
          e.put("total_ns", c.episodeNs().get(end.ordinal()));
        }
      }
    }
    ArrayNode threads = o.putArray("threads");
    r.threads().forEach(t -> threads.addObject().put("kernel", t.kernel()).put("name", t.name())
        .put("cpu_ns", t.cpuNs()));
    if (!r.scheduling().isEmpty()) {
      o.set("scheduling", MAPPER.valueToTree(r.scheduling()));
    }
    if (!r.samples().isEmpty()) {
      ArrayNode samples = o.putArray("samples");
      for (GuestSamples g : r.samples()) {
        ObjectNode n = samples.addObject().put("vm", g.vm()).put("interval_ns", g.intervalNs())
            .put("periods", g.periods()).put("preempted_vcpu_sum", g.preemptedVcpuSum());
        ObjectNode spinners = n.putObject("spinners");
        g.spinners().forEach((symbol, p) -> spinners.putObject(symbol).put("samples", p.samples())
            .put("runnable_sum", p.runnableSum()).put("runnable_max", p.runnableMax()));
      }
    }
    return o;
  }

  /** The kernel's lock_stat columns of one class (or one side of it). */
  private static ObjectNode lockColumns(ObjectNode n, LockClassStats c) {
    return n.put("con_bounces", c.conBounces())
        .put("contentions", c.contentions())
        .put("waittime_min_ns", c.waitMinNs())
        .put("waittime_max_ns", c.waitMaxNs())
        .put("waittime_total_ns", c.waitTotalNs())
        .put("waittime_avg_ns", c.waitAvgNs())
        .put("acq_bounces", c.acqBounces())
        .put("acquisitions", c.acquisitions())
        .put("holdtime_min_ns", c.holdMinNs())
        .put("holdtime_max_ns", c.holdMaxNs())
        .put("holdtime_total_ns", c.holdTotalNs())
        .put("holdtime_avg_ns", c.holdAvgNs());
  }

  private static void figures(ObjectNode n, Map<String, Number> figures) {
    figures.forEach((k, v) -> {
      if (v instanceof Double || v instanceof Float) {
        n.put(k, v.doubleValue());
      } else {
        n.put(k, v.longValue());
      }
    });
  }

  /** Simulation events per wall-clock second (0 when no time was measured). */
  static long eventsPerSecond(long events, long wallNs) {
    return wallNs <= 0 ? 0 : Math.round(events * 1e9 / wallNs);
  }

  /** A copy of a {@link #document} without the wall-clock fields ({@link #WALL_CLOCK_FIELDS}). */
  public static ObjectNode withoutWallClock(ObjectNode document) {
    ObjectNode copy = document.deepCopy();
    copy.withArray("runs").forEach(run -> ((ObjectNode) run).remove(WALL_CLOCK_FIELDS));
    if (copy.get("provenance") instanceof ObjectNode p) {
      p.remove(WALL_CLOCK_FIELDS);
    }
    return copy;
  }

  public static String write(Object tree) {
    try {
      return MAPPER.writeValueAsString(tree);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialize JSON", e);
    }
  }
}
