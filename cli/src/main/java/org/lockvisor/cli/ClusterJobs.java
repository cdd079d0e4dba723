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
 * Job descriptions that run a sweep's shards on a cluster scheduler that already exists, so that
 * an envelope of hundreds of runs leaves the two cores of a workstation: a Slurm job array
 * ({@code sbatch --array}) and a Kubernetes Indexed Job. Task {@code i} of {@code N} runs {@code
 * lockvisor sweep FILE --shard i/N --resume} into {@code OUT/shard-i} of a shared output
 * directory; {@code lockvisor merge OUT/shard-* --out OUT/merged} assembles them and refuses an
 * incomplete set. A task that is requeued resumes: it skips the points its shard already wrote.
 *
 * <p>Slurm: the script runs the same Java and class path as the command that wrote it (the shared
 * file system a Slurm cluster has, Slurm's own assumption), {@code SLURM_ARRAY_TASK_ID} is the
 * shard index ({@code sbatch(1)}, "--array"). Kubernetes: {@code completionMode: Indexed} gives
 * each pod its index in {@code JOB_COMPLETION_INDEX} (batch/v1 Job, Kubernetes 1.22+), the
 * experiment file travels in a ConfigMap of the same manifest and the output directory is a
 * PersistentVolumeClaim the user names; the image must have {@code lockvisor} on its PATH.
 */
final class ClusterJobs {

  /** The schedulers a sweep can be emitted for. */
  enum Target {
    SLURM("slurm"), K8S("k8s");

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
      throw new UserInputException(
          "--emit [" + flag + "] is not a cluster scheduler; allowed: [slurm, k8s]");
    }
  }

  /** Kubernetes object names: DNS-1123 labels, at most 63 characters. */
  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

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
   * resumes), {@code --image} and {@code --claim} exactly with {@code k8s}.
   */
  static void checkEmit(Target target, boolean shardGiven, boolean resume, String image, String claim) {
    if (shardGiven || resume) {
      throw new UserInputException((shardGiven ? "--shard" : "--resume")
          + " cannot be given with --emit: every emitted task runs its own shard and resumes");
    }
    if (target == Target.K8S && (image == null || image.isBlank() || claim == null || claim.isBlank())) {
      throw new UserInputException("--emit k8s needs --image IMAGE (with lockvisor on its"
          + " PATH) and --claim PVC (the shared output volume)");
    }
    if (target == Target.SLURM && (image != null || claim != null)) {
      throw new UserInputException((image != null ? "--image" : "--claim")
          + " takes effect only with --emit k8s");
    }
  }

  /**
   * Writes the job description {@code text} into the prepared directory {@code out} (a Slurm
   * script executable) and prints how to submit and merge it after {@code headline}.
   */
  static Path write(Target target, Path out, String text, String headline, PrintWriter stdout) {
    Path job = out.resolve(fileName(target));
    try {
      AtomicFiles.writeString(job, text);
      if (target == Target.SLURM) {
        job.toFile().setExecutable(true, false);
      }
    } catch (IOException ex) {
      throw new UncheckedIOException("cannot write [" + job + "]", ex);
    }
    stdout.println(headline + "; wrote " + job);
    stdout.println(target == Target.SLURM ? "submit: sbatch " + shellQuote(job.toString())
        : "submit: kubectl apply -f " + shellQuote(job.toString()));
    stdout.println("merge:  lockvisor merge " + shellQuote(out.toString()) + "/shard-* --out "
        + shellQuote(out.resolve("merged").toString()));
    stdout.flush();
    return job;
  }

  /** The file the emitter writes into the output directory. */
  static String fileName(Target target) {
    return target == Target.SLURM ? "lockvisor-sweep.sbatch" : "lockvisor-sweep-job.yaml";
  }

  /**
   * An {@code sbatch} script: one array task per shard, each running this lockvisor (the same
   * {@code java} and class path) on shard {@code $SLURM_ARRAY_TASK_ID}.
   */
  static String slurm(Sweep s, List<String> launcher) {
    Path out = s.out().toAbsolutePath().normalize();
    StringBuilder b = new StringBuilder();
    b.append("#!/bin/bash\n");
    b.append("# lockvisor ").append(s.verb()).append(" [").append(s.name()).append("]: ").append(s.shards())
        .append(" shards as a Slurm job array, written by 'lockvisor ").append(s.verb()).append(" --emit slurm'.\n");
    b.append("#   submit:  sbatch ").append(shellQuote(out.resolve(fileName(Target.SLURM)).toString())).append('\n');
    b.append("#   then:    lockvisor merge ").append(shellQuote(out.toString())).append("/shard-* --out ")
        .append(shellQuote(out.resolve("merged").toString())).append('\n');
    b.append("# Task i runs shard i/").append(s.shards()).append(" into shard-i; a requeued task resumes.\n");
    b.append("#SBATCH --job-name=").append(jobName(s.name())).append('\n');
    b.append("#SBATCH --array=0-").append(s.shards() - 1).append('\n');
    b.append("#SBATCH --ntasks=1\n");
    b.append("#SBATCH --cpus-per-task=").append(s.jobsPerTask()).append('\n');
    b.append("#SBATCH --output=").append(out.resolve("slurm-%A_%a.out")).append('\n');
    b.append("set -euo pipefail\n");
    b.append("i=\"${SLURM_ARRAY_TASK_ID:?not a Slurm array task}\"\n");
    b.append("exec");
    for (String part : launcher) {
      b.append(' ').append(shellQuote(part));
    }
    for (String part : s.sweepArguments(s.isReproduction() ? null : s.file().toAbsolutePath().normalize().toString())) {
      b.append(' ').append(shellQuote(part));
    }
    b.append(" --out ").append(shellQuote(out.toString())).append("/shard-\"$i\"");
    b.append(" --shard \"$i/").append(s.shards()).append("\"\n");
    return b.toString();
  }

  /**
   * A Kubernetes manifest: a ConfigMap holding the experiment file and an Indexed Job of {@code
   * shards} completions whose pods write into the PersistentVolumeClaim {@code claim}.
   */
  static String kubernetes(Sweep s, String experimentYaml, String image, String claim) {
    String name = jobName(s.name());
    String fileName = "experiment.yaml";
    StringBuilder b = new StringBuilder();
    b.append("# lockvisor ").append(s.verb()).append(" [").append(s.name()).append("]: ").append(s.shards())
        .append(" shards as a Kubernetes Indexed Job, written by 'lockvisor ").append(s.verb()).append(" --emit k8s'.\n");
    b.append("#   submit:  kubectl apply -f ").append(fileName(Target.K8S)).append('\n');
    b.append("#   then, with the claim mounted at /out:  lockvisor merge /out/shard-* --out /out/merged\n");
    if (!s.isReproduction()) { // a reproduction is built into lockvisor: no file travels with it
      b.append("apiVersion: v1\n");
      b.append("kind: ConfigMap\n");
      b.append("metadata:\n");
      b.append("  name: ").append(name).append('\n');
      b.append("data:\n");
      b.append("  ").append(fileName).append(": |\n");
      for (String line : experimentYaml.split("\n", -1)) {
        b.append(line.isEmpty() ? "" : "    " + line).append('\n');
      }
      b.append("---\n");
    }
    b.append("apiVersion: batch/v1\n");
    b.append("kind: Job\n");
    b.append("metadata:\n");
    b.append("  name: ").append(name).append('\n');
    b.append("spec:\n");
    b.append("  completionMode: Indexed\n");
    b.append("  completions: ").append(s.shards()).append('\n');
    b.append("  parallelism: ").append(s.shards()).append('\n');
    b.append("  template:\n");
    b.append("    spec:\n");
    b.append("      restartPolicy: Never\n");
    b.append("      containers:\n");
    b.append("        - name: lockvisor\n");
    b.append("          image: ").append(yamlQuote(image)).append('\n');
    b.append("          command:\n");
    b.append("            - lockvisor\n");
    for (String part : s.sweepArguments(s.isReproduction() ? null : "/experiment/" + fileName)) {
      b.append("            - ").append(yamlQuote(part)).append('\n');
    }
    b.append("            - --out\n");
    b.append("            - /out/shard-$(JOB_COMPLETION_INDEX)\n");
    b.append("            - --shard\n");
    b.append("            - $(JOB_COMPLETION_INDEX)/").append(s.shards()).append('\n');
    b.append("          env:\n");
    b.append("            - name: JOB_COMPLETION_INDEX\n");
    b.append("              valueFrom:\n");
    b.append("                fieldRef:\n");
    b.append("                  fieldPath: metadata.annotations['batch.kubernetes.io/job-completion-index']\n");
    b.append("          resources:\n");
    b.append("            requests:\n");
    b.append("              cpu: \"").append(s.jobsPerTask()).append("\"\n");
    b.append("          volumeMounts:\n");
    if (!s.isReproduction()) {
      b.append("            - name: experiment\n");
      b.append("              mountPath: /experiment\n");
      b.append("              readOnly: true\n");
    }
    b.append("            - name: out\n");
    b.append("              mountPath: /out\n");
    b.append("      volumes:\n");
    if (!s.isReproduction()) {
      b.append("        - name: experiment\n");
      b.append("          configMap:\n");
      b.append("            name: ").append(name).append('\n');
    }
    b.append("        - name: out\n");
    b.append("          persistentVolumeClaim:\n");
    b.append("            claimName: ").append(yamlQuote(claim)).append('\n');
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

  /** A YAML scalar in double quotes (JSON escaping is valid YAML). */
  private static String yamlQuote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }
}
