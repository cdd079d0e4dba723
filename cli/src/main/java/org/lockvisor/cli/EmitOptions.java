package org.lockvisor.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import org.lockvisor.experiment.UserInputException;
import picocli.CommandLine.Option;

/**
 * The options of {@code --emit slurm}, the same for {@code sweep} and {@code reproduce
 * --envelope}: the task count and what the job asks of the cluster ({@link ClusterJobs}).
 */
final class EmitOptions {

  @Option(names = "--emit", paramLabel = "slurm", description = "Run nothing here: write into --out DIR a Slurm job"
      + " array (lockvisor-sweep.sbatch) whose task i runs shard i into DIR/shard-i, with this command's plugin jars;"
      + " merge them with 'lockvisor merge'. DIR, the class path and the jars must be on a file system every node"
      + " shares.")
  String emit;

  @Option(names = "--shards", paramLabel = "N", description = "With --emit: the number of tasks, each running one shard"
      + " (default: one per point or sample).")
  Integer shards;

  @Option(names = "--java", paramLabel = "PATH", description = "With --emit slurm: java on the nodes (default: the"
      + " node's $JAVA_HOME/bin/java, else java on its PATH).")
  String java;

  @Option(names = "--time", paramLabel = "LIMIT", description = "With --emit slurm: each task's time limit, as sbatch"
      + " --time takes it (e.g. 2:00:00; default: the partition's).")
  String time;

  @Option(names = "--mem", paramLabel = "SIZE", description = "With --emit slurm: each task's memory, as sbatch --mem"
      + " takes it (e.g. 4G; default: the cluster's).")
  String mem;

  @Option(names = "--partition", paramLabel = "NAME", description = "With --emit slurm: the partition to run in"
      + " (default: the cluster's default partition).")
  String partition;

  boolean emitting() {
    return emit != null;
  }

  /** The first option of this group given, or null: for the refusals without {@code --emit}. */
  String firstGiven() {
    return emit != null ? "--emit" : shards != null ? "--shards" : java != null ? "--java" : time != null ? "--time"
        : mem != null ? "--mem" : partition != null ? "--partition" : null;
  }

  /** Refuses {@code --shards} and the job's resources without {@code --emit}. */
  void checkNotEmitting() {
    String given = firstGiven();
    if (emit == null && given != null) {
      throw new UserInputException(given + " takes effect only with --emit slurm");
    }
  }

  /** The scheduler (checked) and the job's resources (each checked in sbatch's form). */
  ClusterJobs.Resources resources() {
    ClusterJobs.Target.of(emit);
    return new ClusterJobs.Resources(java, time, mem, partition);
  }

  /** Warns, on {@code err}, of an output directory or plugin jar in a node-local directory. */
  static void warnNodeLocal(Path out, List<Path> plugins, PrintWriter err) {
    ClusterJobs.nodeLocalWarning("--out", out).ifPresent(err::println);
    for (Path jar : plugins) {
      ClusterJobs.nodeLocalWarning("plugin jar", jar).ifPresent(err::println);
    }
    err.flush();
  }
}
