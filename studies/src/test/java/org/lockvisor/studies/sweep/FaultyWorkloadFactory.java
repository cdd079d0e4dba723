package org.lockvisor.studies.sweep;

import com.google.common.collect.ImmutableMap;
import java.util.List;
import java.util.Map;
import org.lockvisor.core.plugin.PluginOption;
import org.lockvisor.core.sim.EventHandler;
import org.lockvisor.workloads.spi.Workload;
import org.lockvisor.workloads.spi.WorkloadContext;
import org.lockvisor.workloads.spi.WorkloadFactory;

/** A workload plugin with a bug on purpose: it throws while created, started, or from an event. */
public final class FaultyWorkloadFactory implements WorkloadFactory {

  @Override
  public String name() {
    return "faulty";
  }

  @Override
  public String summary() {
    return "throws where option fail-in says (tests of plugin fault isolation)";
  }

  @Override
  public List<PluginOption> options() {
    return List.of(PluginOption.ofEnum("fail-in", "never", "where to throw", "never", "create", "start", "run"));
  }

  @Override
  public Workload create(WorkloadContext context) {
    String instanceName = context.name();
    String failIn = context.options().choice("fail-in");
    if (failIn.equals("create")) {
      throw new NullPointerException("table not initialised");
    }
    return new Workload() {
      @Override
      public String name() {
        return instanceName;
      }

      @Override
      public String model() {
        return "faulty";
      }

      @Override
      public void start(WorkloadContext context) {
        if (failIn.equals("start")) {
          throw new UnsupportedOperationException("no tasks for you");
        }
        if (failIn.equals("run")) {
          context.machine().sim().schedule(200_000, new Bomb(), 0, 0);
        }
      }

      @Override
      public void resetStats() {}

      @Override
      public ImmutableMap<String, Number> figures() {
        return ImmutableMap.of("ok", 1);
      }
    };
  }

  /** The event that goes off. */
  static final class Bomb implements EventHandler {
    @Override
    public void onEvent(int kind, long arg) {
      int[] slots = new int[2];
      slots[(int) arg + 2] = 1; // ArrayIndexOutOfBoundsException
    }
  }
}
