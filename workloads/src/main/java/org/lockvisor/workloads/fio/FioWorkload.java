package org.lockvisor.workloads.fio;

import static com.google.common.base.Preconditions.checkState;

import com.google.common.collect.ImmutableMap;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.ToLongFunction;
import org.lockvisor.core.plugin.Footprint;
import org.lockvisor.core.stats.LatencyRecorder;
import org.lockvisor.devices.spi.BlockBatch;
import org.lockvisor.devices.spi.BlockCompletion;
import org.lockvisor.devices.spi.BlockDevice;
import org.lockvisor.devices.spi.BlockRequest;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.TaskAttachment;
import org.lockvisor.machine.TaskState;
import org.lockvisor.workloads.spi.Workload;
import org.lockvisor.workloads.spi.WorkloadContext;

/**
 * fio with {@code direct=1} on a guest block device. Each of {@code numjobs} jobs is a guest task
 * looping as fio's {@code do_io} does:
 * <ul>
 *   <li>libaio: while fewer than {@code iodepth} I/Os are in flight, prepare up to
 *       {@code iodepth_batch} of them and {@code io_submit} them (one plug: the block layer
 *       dispatches them to the driver with {@code last} on the final one); when the queue is
 *       full, {@code io_getevents(min_nr = iodepth_batch_complete_min)} — sleeping until the
 *       completion path ({@code aio_complete} in the device's interrupt handler) wakes the job —
 *       and reap up to {@code iodepth_batch_complete_max} events.
 *   <li>psync: one {@code pread}/{@code pwrite} at a time, sleeping until it completes.
 * </ul>
 * Completion latency (fio's clat) runs from submission to the reap of the event. Requests are
 * allocated once per job slot and reused. With {@code number_ios} a job stops submitting once it
 * has issued that many I/Os, reaps the ones in flight and exits; the workload {@link #finishes()}
 * when the last job has exited.
 */
public final class FioWorkload implements Workload {
  private static final TaskAttachment<Job> JOB = TaskAttachment.of("fio job", Job.class);

  private final String name;
  private final FioConfig config;
  private final FioCosts costOverride;
  private FioCosts costs;
  private Machine machine;
  private BlockDevice device;
  private final List<Job> jobs = new java.util.ArrayList<>();
  private final LatencyRecorder clat = new LatencyRecorder();
  private long since;
  private int jobsDone;
  private long finishedNs = -1;
  /** The guest's view of the disk ({@code /proc/diskstats}, what fio's {@code disk_util} reads). */
  private final FioJson.DiskStats disk = new FioJson.DiskStats();

  public FioWorkload(String name, FioConfig config) {
    this(name, config, null);
  }

  /** With explicit costs (tests, what-ifs); null takes them from the context at start. */
  public FioWorkload(String name, FioConfig config, FioCosts costs) {
    this.name = name;
    this.config = config;
    this.costOverride = costs;
  }

  /** One fio job: its task, its I/O slots and its counters. */
  final class Job implements BlockCompletion {
    final int index;
    final BlockRequest[] slots;
    final ArrayDeque<BlockRequest> free;
    final ArrayDeque<BlockRequest> done;
    final BlockBatch batch;
    /** fio's statistics of this job (see {@link FioJson}). */
    final FioJson.JobStats stats = new FioJson.JobStats();
    /** The I/Os of the batch being prepared and submitted (their issue time is set when io_submit returns). */
    final BlockRequest[] batchIos;
    final SplittableRandom random;
    final long blocks;
    Task task;
    int inFlight;
    int preparing;
    int reapedNow;
    long nextBlock;
    long issued;
    long ios;
    long bytes;
    /** I/Os issued since the start (not reset by the warm-up): what number_ios counts. */
    long lifetimeIssued;

    Job(int index, Machine m, String vmName) {
      this.index = index;
      int depth = config.ioengine().equals("psync") ? 1 : config.iodepth();
      this.slots = new BlockRequest[depth];
      this.free = new ArrayDeque<>(depth);
      this.done = new ArrayDeque<>(depth);
      this.batch = new BlockBatch(depth);
      this.batchIos = new BlockRequest[depth];
      this.random = m.sim().streams().get(vmName + "/" + name + "/job" + index);
      this.blocks = config.sizeBytes() / config.bs();
      for (int i = 0; i < depth; i++) {
        slots[i] = device.newRequest(this);
        slots[i].owner = new FioJson.Slot();
        free.add(slots[i]);
      }
    }

    /** aio_complete / end_io: queue the event and wake the job if it sleeps for events. */
    @Override
    public Task complete(BlockRequest request, long nowNs) {
      done.add(request);
      disk.complete(request, nowNs);
      return task.state() == TaskState.RUNNING ? null : task;
    }

    /** Fills the batch with up to {@code n} fresh I/Os (fio's get_io_u + td_io_queue). */
    void prepare(int n) {
      batch.clear();
      long now = machine.sim().now();
      for (int i = 0; i < n; i++) {
        BlockRequest r = free.poll();
        long block = config.random() ? random.nextLong(blocks) : nextBlock++ % blocks;
        r.set(config.reads() ? BlockRequest.Direction.READ : BlockRequest.Direction.WRITE,
            block * (config.bs() / 512), config.bs());
        r.markSubmitted(now);
        batch.add(r);
        batchIos[i] = r;
      }
      preparing = n;
      inFlight += n;
      issued += n;
      lifetimeIssued += n;
      stats.queued(n, inFlight);
      disk.dispatched(n, now);
    }

    /** io_submit returned (libaio) or the syscall is entered (psync): fio's issue_time of the batch. */
    void issue(boolean slat) {
      long now = machine.sim().now();
      for (int i = 0; i < preparing; i++) {
        BlockRequest r = batchIos[i];
        ((FioJson.Slot) r.owner).issueNs = now;
        if (slat) {
          stats.slat.add(now - r.submitNs());
        }
        batchIos[i] = null;
      }
      stats.submitted(preparing);
    }

    /** I/Os this job may still issue. */
    long remaining() {
      return config.numberIos() == 0 ? Long.MAX_VALUE : config.numberIos() - lifetimeIssued;
    }

    /** Whether the job loops on: I/Os left to issue or in flight. */
    boolean active() {
      return remaining() > 0 || inFlight > 0;
    }

    void reap(int max) {
      long now = machine.sim().now();
      int n = 0;
      while (n < max && !done.isEmpty()) {
        BlockRequest r = done.poll();
        long latency = now - r.submitNs();
        stats.completed(now - ((FioJson.Slot) r.owner).issueNs, latency);
        clat.record(latency);
        ios++;
        bytes += r.bytes();
        inFlight--;
        free.add(r);
        n++;
      }
      reapedNow = n;
      stats.reaped(n, bytes, ios, now);
      if (n > 0 && !active() && ++jobsDone == jobs.size()) {
        finishedNs = now;
      }
    }
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String model() {
    return FioFactory.NAME;
  }

  /**
   * Each job: a task with its latency recorders (about 16 KiB); each request in flight: its
   * {@code BlockRequest} and the device's request state (about 100 bytes). Measured on
   * quick-virtio-blk: 1,000 jobs x depth 1 took 16.3 MB, 10 jobs x depth 65,536 took 63 MB.
   */
  @Override
  public Footprint footprint() {
    long depth = config.ioengine().equals("psync") ? 1 : config.iodepth();
    long requests = Footprint.times(config.numjobs(), depth);
    return new Footprint(Footprint.plus(Footprint.times(config.numjobs(), 16_384), Footprint.times(requests, 100)),
        config.numjobs() + " jobs x iodepth " + depth + " = " + requests + " requests in flight");
  }

  public FioConfig config() {
    return config;
  }

  @Override
  public void start(WorkloadContext ctx) {
    checkState(machine == null, "%s is started already", name);
    this.machine = ctx.machine();
    this.costs = costOverride != null ? costOverride : FioCosts.from(ctx.costs());
    this.device = ctx.device(config.filename(), BlockDevice.class);
    Program submitPath = device.submitPath(t -> job(t).batch);
    Program main = config.ioengine().equals("psync") ? psyncProgram(submitPath) : libaioProgram(submitPath);
    for (int i = 0; i < config.numjobs(); i++) {
      Job j = new Job(i, machine, ctx.vm().name());
      j.stats.logPeriodNs = config.logAvgNs();
      jobs.add(j);
    }
    for (Job j : jobs) {
      j.task = ctx.vm().guest().spawn(name + "/job" + j.index, main);
      JOB.set(j.task, j);
    }
    this.since = machine.sim().now();
  }

  private static Job job(Task t) {
    return JOB.get(t);
  }

  private Program libaioProgram(Program submitPath) {
    Program ioSubmit = Program.named("sys_io_submit")
        .work(costs.syscallNs(), machine.kernelSymbols().syscallEntry()) // the arch's syscall entry
        .op(Ops.work(t -> (long) job(t).preparing * costs.submitPerIoNs(), "do_io_submit"))
        .call(submitPath)
        .build();
    Program submit = Program.named("td_io_commit")
        .run(t -> {
          Job j = job(t);
          j.prepare((int) Math.min(j.remaining(),
              Math.min(config.iodepthBatch(), Math.min(j.free.size(), config.iodepth() - j.inFlight))));
        })
        .op(new UserWork(t -> (long) job(t).preparing * costs.userPerIoNs(), "fio_io_u_queue"))
        .call(ioSubmit)
        .run(t -> job(t).issue(true))
        .build();
    int completeMin = config.iodepthBatchCompleteMin();
    int completeMax = config.completeMax();
    Program getEvents = Program.named("sys_io_getevents")
        .work(costs.syscallNs(), machine.kernelSymbols().syscallEntry()) // the arch's syscall entry
        .op(Ops.sleepUntil(null, t -> job(t).done.size() >= Math.min(completeMin, job(t).inFlight)))
        .run(t -> job(t).reap(completeMax))
        .op(Ops.work(t -> (long) job(t).reapedNow * costs.reapPerIoNs(), "aio_read_events"))
        .build();
    Program iteration = Program.named("do_io")
        .op(Ops.call(t -> {
          Job j = job(t);
          return j.inFlight < config.iodepth() && !j.free.isEmpty() && j.remaining() > 0 ? submit : getEvents;
        }))
        .build();
    return Program.named("fio").loopWhile(t -> job(t).active(), iteration).build();
  }

  private Program psyncProgram(Program submitPath) {
    Program syscall = Program.named(config.reads() ? "sys_pread64" : "sys_pwrite64")
        .work(costs.syscallNs(), machine.kernelSymbols().syscallEntry()) // the arch's syscall entry
        .work(costs.submitPerIoNs(), "blkdev_direct_IO")
        .call(submitPath)
        .op(Ops.sleepUntil(null, t -> !job(t).done.isEmpty())) // io_schedule until the bio completes
        .run(t -> job(t).reap(1))
        .build();
    Program iteration = Program.named("do_io")
        .run(t -> job(t).prepare(1))
        .op(new UserWork(t -> costs.userPerIoNs(), "fio_io_u_queue"))
        .run(t -> job(t).issue(false))
        .call(syscall)
        .build();
    return Program.named("fio").loopWhile(t -> job(t).active(), iteration).build();
  }

  // -------------------------------------------------------------------------------------------
  // Figures.

  @Override
  public void resetStats() {
    for (Job j : jobs) {
      j.ios = j.bytes = j.issued = 0;
    }
    clat.reset();
    since = machine == null ? 0 : machine.sim().now();
    if (machine != null) {
      machine.syncAccounting();
      for (Job j : jobs) {
        j.stats.reset(since, j.task, machine);
      }
      disk.reset(since);
    }
  }

  /** I/Os submitted by the jobs (since the last reset). */
  public long issued() {
    return jobs.stream().mapToLong(j -> j.issued).sum();
  }

  /** I/Os reaped by the jobs (since the last reset). */
  public long completed() {
    return jobs.stream().mapToLong(j -> j.ios).sum();
  }

  /** I/Os submitted and not yet reaped, right now. */
  public long inFlight() {
    return jobs.stream().mapToLong(j -> j.inFlight).sum();
  }

  private double elapsedSeconds() {
    return Math.max(1, end() - since) / 1e9;
  }

  /** Now, or when the last job exited: fio's runtime ends with its jobs. */
  private long end() {
    return finishedNs >= 0 ? Math.max(since, finishedNs) : machine.sim().now();
  }

  /** With {@code number-ios}, the jobs exit after that many I/Os each. */
  @Override
  public boolean finishes() {
    return config.numberIos() > 0;
  }

  /** When the last job reaped its last I/O, or -1. */
  @Override
  public long finishedNs() {
    return finishedNs;
  }

  @Override
  public ImmutableMap<String, Number> figures() {
    double secs = elapsedSeconds();
    long ios = completed();
    long bytes = jobs.stream().mapToLong(j -> j.bytes).sum();
    ImmutableMap.Builder<String, Number> m = ImmutableMap.builder();
    m.put("iops", ios / secs);
    m.put("bw_kib_s", bytes / 1024.0 / secs);
    m.put("clat_mean_ns", clat.mean());
    m.put("clat_p50_ns", clat.percentile(50));
    m.put("clat_p90_ns", clat.percentile(90));
    m.put("clat_p99_ns", clat.percentile(99));
    m.put("clat_p99.9_ns", clat.percentile(99.9));
    m.put("clat_max_ns", clat.max());
    m.put("issued", issued());
    m.put("completed", ios);
    m.put("in_flight", inFlight());
    m.put("runtime_ns", end() - since);
    // a job that reaped nothing (its vCPU never ran, say): the IOPS above are the other jobs' alone
    m.put(Workload.IDLE_TASKS, jobs.stream().filter(j -> j.ios == 0).count());
    return m.build();
  }

  /**
   * fio 3.33's {@code --output-format=json+} report of the jobs (one entry per job, no
   * {@code group_reporting}); see {@link FioJson}.
   */
  @Override
  public Optional<Map<String, Object>> nativeReport() {
    if (machine == null) {
      return Optional.empty();
    }
    machine.syncAccounting();
    long end = end();
    List<FioJson.JobStats> stats = new java.util.ArrayList<>();
    List<Task> tasks = new java.util.ArrayList<>();
    for (Job j : jobs) {
      stats.add(j.stats);
      tasks.add(j.task);
    }
    return Optional.of(FioJson.report(name, config, stats, tasks, machine, since, end, device.name(), disk));
  }

  /** User-mode CPU work whose duration is computed per visit (fio's own per-I/O work). */
  private static final class UserWork extends Op {
    private final ToLongFunction<Task> ns;
    private final String symbolName;
    private int symbol = -1;
    private Machine owner;

    UserWork(ToLongFunction<Task> ns, String symbol) {
      this.ns = ns;
      this.symbolName = symbol;
    }

    @Override
    public int execute(Task t, int phase) {
      if (phase > 0) {
        return NEXT;
      }
      long d = ns.applyAsLong(t);
      if (d <= 0) {
        return NEXT;
      }
      if (owner != t.machine()) {
        symbol = t.machine().symbols().symbol(symbolName, Machine.DOMAIN_USER);
        owner = t.machine();
      }
      t.startWork(d, symbol, true);
      return AGAIN;
    }
  }
}
