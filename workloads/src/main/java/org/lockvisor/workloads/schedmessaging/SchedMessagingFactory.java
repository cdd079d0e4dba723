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
      PluginOption.ofEnum("address-space", D.addressSpace(),
          "the VMAs fork and exit walk: perf-4.8 (the perf binary and its libraries as mapped on ppc64le) or uniform"
              + " (mapped-files x vmas-per-file + anon-vmas)", AddressSpaceLayout.PERF_4_8, AddressSpaceLayout.UNIFORM),
      PluginOption.ofInt("mapped-files", D.mappedFiles(), 0, 1_000,
          "address-space uniform only: file mappings each process shares: i_mmap rwsems of fork and exit"),
      PluginOption.ofInt("vmas-per-file", D.vmasPerFile(), 0, 64, "address-space uniform only: VMAs per mapped file"),
      PluginOption.ofInt("anon-vmas", D.anonVmas(), 0, 1_000,
          "address-space uniform only: anonymous VMAs per process, each with its root anon_vma rwsem"),
      PluginOption.ofDouble("vma-cost-jitter", 0, 0, 0.99,
          "what-if: each interval-tree step of fork and exit costs its price x uniform [1-j, 1+j) from a seeded stream"
              + " (order-preserving noise; 0 = off)"),
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
    String space = o.string("address-space");
    if (!AddressSpaceLayout.UNIFORM.equals(space)) {
      for (String uniformOnly : List.of("mapped-files", "vmas-per-file", "anon-vmas")) {
        if (o.isGiven(uniformOnly)) {
          throw new IllegalArgumentException("workload sched-messaging: option [" + uniformOnly + "] takes effect only with"
              + " address-space: uniform, not [" + space + "]");
        }
      }
    }
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
        o.string("copy-page-symbol"),
        space,
        o.real("vma-cost-jitter"));
  }
}
