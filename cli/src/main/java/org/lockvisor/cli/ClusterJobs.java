package org.lockvisor.cli;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.experiment.io.AtomicFiles;

/**
 * The job description that runs a sweep's shards on a Slurm cluster that already exists, so that
 * an envelope of hundreds of runs leaves the two cores of a workstation: a job array ({@code
 * sbatch --array}) whose task {@code i} of {@code N} runs {@code lockvisor sweep FILE --shard i/N
 * --resume} into {@code OUT/shard-i} of a shared output directory; {@code lockvisor merge
 * OUT/shard-* --out OUT/merged} assembles them and refuses an incomplete set. A task that is
 * requeued resumes: it skips the points its shard already wrote.
 *
 * <p>The script runs the class path of the command that wrote it (the shared file system a Slurm
 * cluster has, Slurm's own assumption) with the plugin jars it loaded ({@code --plugins}), and the
 * Java of the node it lands on: {@code --java PATH} when given, else {@code $JAVA_HOME/bin/java},
 * else {@code java} on the node's PATH. {@code SLURM_ARRAY_TASK_ID} is the shard index ({@code
 * sbatch(1)}, "--array"); {@code --time}, {@code --mem} and {@code --partition} become the
 * script's {@code #SBATCH} lines.
 *
 * <p>There is no Kubernetes emitter: a Job that cannot be run here (no cluster, no registry for a
 * base image with a Java runtime) is not offered as if it could (issue 36).
 */
final class ClusterJobs {

  /** The schedulers a sweep can be emitted for. */
  enum Target {
    SLURM("slurm");

    final String flag;

    Target(String flag) {
      this.flag = flag;
    }

    static Target of(String flag) {
      for (Target t : values()) {
        if (t.flag.equals(flag)) {
          return t;
        }
      }
      throw new UserInputException("--emit [" + flag + "] is not a cluster scheduler; allowed: [slurm]"
          + ("k8s".equals(flag) ? " (the Kubernetes emitter was removed: see docs/experiments.md)" : ""));
    }
  }

  /** Job names: DNS-1123 labels, at most 63 characters (safe for every scheduler's names). */
  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  /** {@code --time}: minutes, or [days-]hours:minutes[:seconds] as sbatch takes it. */
  private static final Pattern TIME = Pattern.compile("\\d{1,6}|(\\d{1,3}-)?\\d{1,3}(:\\d{2}){1,2}|\\d{1,3}-\\d{1,3}");
  /** {@code --mem}: a whole number with sbatch's unit suffix. */
  private static final Pattern MEM = Pattern.compile("[1-9]\\d{0,9}[KMGT]?");
  /** {@code --partition}: one name or a comma-separated list, as sbatch takes it. */
  private static final Pattern PARTITION = Pattern.compile("[A-Za-z0-9_.-]+(,[A-Za-z0-9_.-]+)*");
  /** Directories that are local to each node on every cluster we know: a task writes where the merge never looks. */
  private static final List<String> NODE_LOCAL = List.of("/tmp", "/var/tmp", "/dev/shm");

  /**
   * What a Slurm job asks of the cluster besides the array: {@code java} the path of Java on the
   * nodes (null: found on the node), {@code time}, {@code mem}, {@code partition} (null: the
   * cluster's defaults).
   */
  record Resources(String java, String time, String mem, String partition) {
    static final Resources DEFAULTS = new Resources(null, null, null, null);

    /** Checks each value in sbatch's forms; a refusal names the option and the form. */
    Resources {
      if (java != null && (java.isBlank() || !java.startsWith("/"))) {
        throw new UserInputException("--java [" + java + "] must be an absolute path to java on the nodes,"
            + " e.g. /usr/lib/jvm/java-17-openjdk-amd64/bin/java");
      }
      if (time != null && !TIME.matcher(time).matches()) {
        throw new UserInputException("--time [" + time + "] is not a Slurm time limit; expected MINUTES,"
            + " HOURS:MINUTES:SECONDS or DAYS-HOURS[:MINUTES[:SECONDS]], e.g. 2:00:00");
      }
      if (mem != null && !MEM.matcher(mem).matches()) {
        throw new UserInputException("--mem [" + mem + "] is not a Slurm memory size; expected a whole number"
            + " with K, M, G or T, e.g. 4G");
      }
      if (partition != null && !PARTITION.matcher(partition).matches()) {
        throw new UserInputException("--partition [" + partition + "] is not a partition name (letters, digits,"
            + " '_', '.', '-', comma-separated)");
      }
    }

    boolean isDefault() {
      return java == null && time == null && mem == null && partition == null;
    }
  }

  /**
   * What every task runs, apart from its shard: the sweep's file, the shared output directory, the
   * shard count, the runs each task runs in parallel, and the command line's own overrides.
   */
  record Sweep(String name, Path file, Path out, int shards, int jobsPerTask, Long seed, List<String> sets,
      List<String> extra) {
    Sweep {
      checkArgument(shards >= 1, "shards must be positive: %s", shards);
      checkArgument(jobsPerTask >= 1, "jobs per task must be positive: %s", jobsPerTask);
      sets = ImmutableList.copyOf(sets);
      extra = ImmutableList.copyOf(extra);
    }

    /** A sweep's tasks (no envelope arguments). */
    Sweep(String name, Path file, Path out, int shards, int jobsPerTask, Long seed, List<String> sets) {
      this(name, file, out, shards, jobsPerTask, seed, sets, List.of());
    }

    /**
     * A reproduction's setup envelope: every task runs {@code lockvisor reproduce NAME --envelope
     * ...} on its shard; there is no experiment file ({@code file} is {@code null}).
     */
    static Sweep reproduction(String name, Path out, int shards, int jobsPerTask, Long seed, List<String> sets,
        List<String> extra) {
      return new Sweep(name, null, out, shards, jobsPerTask, seed, sets, extra);
    }

    /** Whether the tasks run a reproduction (no experiment file) rather than a sweep of a file. */
    boolean isReproduction() {
      return file == null;
    }

    /** The command line's verb, for the job description's header. */
    String verb() {
      return isReproduction() ? "reproduce --envelope" : "sweep";
    }

    /** The arguments after {@code lockvisor}, with the shard and output left to the caller. */
    List<String> sweepArguments(String file) {
      List<String> args = new ArrayList<>(isReproduction() ? List.of("reproduce", name) : List.of("sweep", file));
      args.add("--jobs");
      args.add(Integer.toString(jobsPerTask));
      args.add("--resume");
      if (seed != null) {
        args.add("--seed");
        args.add(seed.toString());
      }
      for (String s : sets) {
        args.add("--set");
        args.add(s);
      }
      args.addAll(extra); // an envelope's: --envelope --samples N --param ... --band ...
      return args;
    }
  }

  private ClusterJobs() {}

  /**
   * The checks every {@code --emit} makes before anything is written, the same for a sweep and a
   * reproduction's envelope: no {@code --shard}/{@code --resume} (each task runs its own shard and
   * resumes).
   */
  static void checkEmit(boolean shardGiven, boolean resume) {
    if (shardGiven || resume) {
      throw new UserInputException((shardGiven ? "--shard" : "--resume")
          + " cannot be given with --emit: every emitted task runs its own shard and resumes");
    }
  }

  /**
   * The warning for a path the tasks share that lies in a node-local directory ({@code /tmp}):
   * empty when it does not.
   */
  static java.util.Optional<String> nodeLocalWarning(String what, Path path) {
    Path p = path.toAbsolutePath().normalize();
    for (String local : NODE_LOCAL) {
      if (p.startsWith(local)) {
        return java.util.Optional.of("lockvisor: warning: " + what + " [" + p + "] is under " + local + ", which is"
            + " local to each node on most clusters: tasks on other nodes would not see it; use a directory"
            + " every node shares");
      }
    }
    return java.util.Optional.empty();
  }

  /**
   * Where an emitted job script goes: the disk ({@link #DISK}), or a test's stand-in for it (a
   * full disk cannot be had on demand).
   */
  interface ScriptFiles {
    /** Writes {@code text} to {@code job} atomically and makes it executable. */
    void writeExecutable(Path job, String text) throws IOException;

    ScriptFiles DISK = (job, text) -> {
      AtomicFiles.writeString(job, text);
      job.toFile().setExecutable(true, false);
    };
  }

  /**
   * Writes the job script {@code text} into the prepared directory {@code out}, executable, and
   * prints how to submit and merge it after {@code headline}.
   */
  static Path write(Path out, String text, String headline, PrintWriter stdout) {
    return write(ScriptFiles.DISK, out, text, headline, stdout);
  }

  /**
   * As {@link #write(Path, String, String, PrintWriter)} through {@code files}: how to submit is
   * printed only once the script is written.
   */
  static Path write(ScriptFiles files, Path out, String text, String headline, PrintWriter stdout) {
    Path job = out.resolve(FILE_NAME);
    try {
      files.writeExecutable(job, text);
    } catch (IOException ex) {
      throw new UncheckedIOException("cannot write [" + job + "]", ex);
    }
    stdout.println(headline + "; wrote " + job);
    stdout.println("submit: sbatch " + shellQuote(job.toString()));
    stdout.println("merge:  lockvisor merge " + shellQuote(out.toString()) + "/shard-* --out "
        + shellQuote(out.resolve("merged").toString()));
    stdout.flush();
    return job;
  }

  /** The file the emitter writes into the output directory. */
  static final String FILE_NAME = "lockvisor-sweep.sbatch";

  /**
   * An {@code sbatch} script: one array task per shard, each running lockvisor (the class path
   * {@code classPath}, the plugin jars {@code plugins}, the Java of the node or {@code
   * resources.java()}) on shard {@code $SLURM_ARRAY_TASK_ID}.
   */
  static String slurm(Sweep s, String classPath, List<Path> plugins, Resources resources) {
    Path out = s.out().toAbsolutePath().normalize();
    StringBuilder b = new StringBuilder();
    b.append("#!/bin/bash\n");
    b.append("# lockvisor ").append(s.verb()).append(" [").append(s.name()).append("]: ").append(s.shards())
        .append(" shards as a Slurm job array, written by 'lockvisor ").append(s.verb()).append(" --emit slurm'.\n");
    b.append("#   submit:  sbatch ").append(shellQuote(out.resolve(FILE_NAME).toString())).append('\n');
    b.append("#   then:    lockvisor merge ").append(shellQuote(out.toString())).append("/shard-* --out ")
        .append(shellQuote(out.resolve("merged").toString())).append('\n');
    b.append("# Task i runs shard i/").append(s.shards()).append(" into shard-i; a requeued task resumes.\n");
    b.append("# The output directory, the class path and the plugin jars must be on a file system every node shares.\n");
    b.append("#SBATCH --job-name=").append(jobName(s.name())).append('\n');
    b.append("#SBATCH --array=0-").append(s.shards() - 1).append('\n');
    b.append("#SBATCH --ntasks=1\n");
    b.append("#SBATCH --cpus-per-task=").append(s.jobsPerTask()).append('\n');
    if (resources.time() != null) {
      b.append("#SBATCH --time=").append(resources.time()).append('\n');
    }
    if (resources.mem() != null) {
      b.append("#SBATCH --mem=").append(resources.mem()).append('\n');
    }
    if (resources.partition() != null) {
      b.append("#SBATCH --partition=").append(resources.partition()).append('\n');
    }
    b.append("#SBATCH --output=").append(out.resolve("slurm-%A_%a.out")).append('\n');
    b.append("set -euo pipefail\n");
    b.append("i=\"${SLURM_ARRAY_TASK_ID:?not a Slurm array task}\"\n");
    if (resources.java() != null) {
      b.append("java=").append(shellQuote(resources.java())).append('\n');
      b.append("[[ -x \"$java\" ]] || { echo \"lockvisor: no java at [$java] on $(hostname) (--java)\" >&2; exit 2; }\n");
    } else {
      b.append("# Java of this node: $JAVA_HOME/bin/java, else java on the PATH (emit with --java PATH to fix one)\n");
      b.append("if [[ -n \"${JAVA_HOME:-}\" && -x \"$JAVA_HOME/bin/java\" ]]; then java=\"$JAVA_HOME/bin/java\"\n");
      b.append("elif command -v java >/dev/null 2>&1; then java=\"$(command -v java)\"\n");
      b.append("else echo \"lockvisor: no java on $(hostname): set JAVA_HOME, put java on the PATH, or emit with")
          .append(" --java PATH\" >&2; exit 2\n");
      b.append("fi\n");
    }
    b.append("exec \"$java\" -cp ").append(shellQuote(classPath)).append(' ').append(Lockvisor.class.getName());
    if (!plugins.isEmpty()) {
      b.append(" --plugins ").append(shellQuote(String.join(java.io.File.pathSeparator,
          plugins.stream().map(p -> p.toAbsolutePath().normalize().toString()).toList())));
    }
    for (String part : s.sweepArguments(s.isReproduction() ? null : s.file().toAbsolutePath().normalize().toString())) {
      b.append(' ').append(shellQuote(part));
    }
    b.append(" --out ").append(shellQuote(out.toString())).append("/shard-\"$i\"");
    b.append(" --shard \"$i/").append(s.shards()).append("\"\n");
    return b.toString();
  }

  /** {@code lockvisor-<name>} as a DNS-1123 label: lower case, '-' for anything else, at most 63. */
  static String jobName(String sweepName) {
    String n = ("lockvisor-" + sweepName).toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]+", "-")
        .replaceAll("-+", "-");
    if (n.length() > 63) {
      n = n.substring(0, 63);
    }
    n = n.replaceAll("-+$", "");
    checkArgument(DNS_LABEL.matcher(n).matches(), "not a DNS-1123 label: [%s]", n);
    return n;
  }

  /** A word for bash: as is when it is plainly safe, else in single quotes. */
  static String shellQuote(String s) {
    if (!s.isEmpty() && s.matches("[A-Za-z0-9_./:=,+@%-]+")) {
      return s;
    }
    return "'" + s.replace("'", "'\\''") + "'";
  }
}
