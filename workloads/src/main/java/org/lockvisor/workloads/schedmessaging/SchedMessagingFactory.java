package org.lockvisor.workloads.schedmessaging;

import com.google.auto.service.AutoService;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.lockvisor.core.plugin.BoundOptions;
import org.lockvisor.core.plugin.OptionBinder;
import org.lockvisor.core.plugin.PluginOption;
import org.lockvisor.workloads.spi.Workload;
import org.lockvisor.workloads.spi.WorkloadContext;
import org.lockvisor.workloads.spi.WorkloadFactory;

/** Plugin entry for {@link SchedMessagingWorkload}. */
@AutoService(WorkloadFactory.class)
public final class SchedMessagingFactory implements WorkloadFactory {
  static final String NAME = "sched-messaging";

  private static final SchedMessagingConfig D = SchedMessagingConfig.perfDefaults();

  private static final List<PluginOption> OPTIONS = List.of(
      PluginOption.ofInt("groups", D.groups(), 1, 100_000, "groups of senders and receivers (perf -g)"),
      PluginOption.ofInt("fds", D.fds(), 1, 1_000, "senders and receivers per group (perf -f)"),
      PluginOption.ofInt("loops", D.loops(), 1, 1_000_000, "messages per sender-receiver pair (perf -l)"),
      PluginOption.ofInt("datasize", D.dataSize(), 1, 4096, "bytes per message"),
      PluginOption.ofEnum("mode", "process", "processes (pipes, perf -p) or threads (perf -t)", "process", "thread"),
      PluginOption.ofInt("mapped-files", D.mappedFiles(), 0, 1_000,
          "file mappings each process shares (perf binary and libraries): i_mmap rwsems of fork and exit"),
      PluginOption.ofInt("vmas-per-file", D.vmasPerFile(), 0, 64, "VMAs per mapped file"),
      PluginOption.ofInt("anon-vmas", D.anonVmas(), 0, 1_000,
          "anonymous VMAs per process (heap, stack, data): each has its root anon_vma rwsem, taken by fork and exit"),
      PluginOption.ofInt("pipe-buffers", D.pipeBuffers(), 1, 1 << 16, "pipe buffers per pipe (PIPE_DEF_BUFFERS)"),
      PluginOption.ofEnum("page-size", String.valueOf(D.pageSize()),
          "guest PAGE_SIZE in bytes: pipe buffer size and copy-on-write copy (65536 for a ppc64 CONFIG_PPC_64K_PAGES kernel)",
          "4096", "16384", "65536"),
      new PluginOption("copy-symbol", PluginOption.Type.STRING, D.copySymbol(),
          "perf symbol of the architecture's user copy (e.g. __copy_tofrom_user_power7)", List.of(), 0, 0),
      new PluginOption("copy-page-symbol", PluginOption.Type.STRING, D.copyPageSymbol(),
          "perf symbol of the architecture's page copy (e.g. copypage_power7)", List.of(), 0, 0));

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String summary() {
    return "perf bench sched messaging (hackbench): groups of pipe senders and receivers, fork/exit on shared rwsems "
        + "and tasklist_lock; reports the total time";
  }

  @Override
  public Set<String> capabilities() {
    return Set.of("locks", "native-report", FINISHES);
  }

  @Override
  public List<PluginOption> options() {
    return OPTIONS;
  }

  @Override
  public Workload create(WorkloadContext context) {
    return new SchedMessagingWorkload(context.name(), config(context.options()), null);
  }

  /** The validated configuration for {@code options}, bound by the framework's binder (tests, tools). */
  public static SchedMessagingConfig config(Map<String, String> options) {
    return config(OptionBinder.bind(new SchedMessagingFactory(), options == null ? Map.of() : options));
  }

  /** The configuration of options bound against {@link #options()}. */
  public static SchedMessagingConfig config(BoundOptions o) {
    return new SchedMessagingConfig(
        (int) o.integer("groups"),
        (int) o.integer("fds"),
        (int) o.integer("loops"),
        (int) o.integer("datasize"),
        o.string("mode").equals("thread"),
        (int) o.integer("mapped-files"),
        (int) o.integer("vmas-per-file"),
        (int) o.integer("anon-vmas"),
        (int) o.integer("pipe-buffers"),
        Integer.parseInt(o.string("page-size")),
        o.string("copy-symbol"),
        o.string("copy-page-symbol"));
  }
}
