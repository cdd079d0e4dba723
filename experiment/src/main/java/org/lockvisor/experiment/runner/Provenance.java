package org.lockvisor.experiment.runner;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.google.common.collect.ImmutableList;
import com.google.common.hash.Hashing;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.lockvisor.core.plugin.Plugin;
import org.lockvisor.experiment.model.ComponentSpec;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentYaml;
import org.lockvisor.experiment.model.VmSpec;

/**
 * Where a result came from: the lockvisor build, the exact configuration (its hash), the root
 * seed and every plugin the experiment and its variants use, with their versions. Together with
 * each run's event count and fingerprint it identifies a result: same provenance, same figures.
 *
 * @param version lockvisor version
 * @param commit git commit of the build ({@code unknown} outside git)
 * @param configHash SHA-256 of the configuration tree (after {@code --set} and {@code --seed}),
 *     keys sorted, so formatting and key order of the file do not change it
 * @param seed root seed
 * @param plugins kind, name and version of every plugin used, sorted
 */
public record Provenance(String version, String commit, String configHash, long seed, List<PluginUse> plugins) {

  public Provenance {
    plugins = ImmutableList.copyOf(plugins);
  }

  /** One plugin the experiment uses. */
  public record PluginUse(String kind, String name, String version) {}

  private static final ObjectMapper CANONICAL = new ObjectMapper()
      .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);

  /**
   * The provenance of {@code e} as configured by {@code tree}.
   *
   * @param tree the configuration as given (file plus overrides); hashed canonically
   */
  public static Provenance of(String version, String commit, JsonNode tree, Experiment e,
      org.lockvisor.experiment.model.ExperimentPlugins plugins) {
    return new Provenance(version, commit, configHash(tree), e.seed(), pluginsOf(e, plugins));
  }

  /** SHA-256 (hex) of the tree serialized with sorted keys. */
  public static String configHash(JsonNode tree) {
    try {
      Object plain = CANONICAL.treeToValue(tree, Object.class);
      byte[] canonical = CANONICAL.writeValueAsBytes(plain);
      return Hashing.sha256().hashBytes(canonical).toString();
    } catch (JsonProcessingException ex) {
      throw new IllegalStateException("cannot serialize the configuration", ex);
    }
  }

  /** Every plugin the experiment and its variants name, with the version each reports. */
  static List<PluginUse> pluginsOf(Experiment base, org.lockvisor.experiment.model.ExperimentPlugins plugins) {
    Map<String, PluginUse> used = new TreeMap<>();
    List<Experiment> all = new ArrayList<>();
    all.add(base);
    for (String v : base.variants().keySet()) {
      all.add(ExperimentYaml.variant(base, v));
    }
    for (Experiment e : all) {
      add(used, plugins.arches().get(e.arch()));
      add(used, plugins.schedulers().get(e.host().scheduler().name()));
      add(used, plugins.locks().get(e.host().locks().spinlock()));
      add(used, plugins.locks().get(e.host().locks().mutex()));
      add(used, plugins.locks().get(e.host().locks().rwsem()));
      for (VmSpec vm : e.vms()) {
        add(used, plugins.schedulers().get(vm.scheduler().name()));
        add(used, plugins.locks().get(vm.locks().spinlock()));
        add(used, plugins.locks().get(vm.locks().mutex()));
        add(used, plugins.locks().get(vm.locks().rwsem()));
        for (ComponentSpec d : vm.devices()) {
          add(used, plugins.devices().get(d.type()));
        }
        for (ComponentSpec w : vm.workloads()) {
          add(used, plugins.workloads().get(w.type()));
        }
      }
      if (!e.background().vms().isEmpty()) {
        add(used, plugins.schedulers().get("cfs"));
      }
    }
    return new ArrayList<>(used.values());
  }

  private static void add(Map<String, PluginUse> used, Plugin p) {
    if (p != null) {
      used.putIfAbsent(p.kind() + "/" + p.name(), new PluginUse(p.kind(), p.name(), p.version()));
    }
  }
}
