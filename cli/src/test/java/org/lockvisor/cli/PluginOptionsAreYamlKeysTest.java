package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.cli.CliFixture.Run;
import org.lockvisor.core.plugin.Plugin;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.model.Problem;
import org.lockvisor.locking.spi.LockFactory;

/**
 * {@code plugins --options} of every kind an experiment file configures (lock, device, workload,
 * scheduler) prints exactly the keys the experiment file accepts: every printed key with its
 * printed default binds, a key not printed is refused at its path; and for every lock an
 * experiment can choose, the printed keys in {@code locks: {KIND: {type: NAME, options: {...}}}}
 * pass {@code validate}.
 */
class PluginOptionsAreYamlKeysTest {
  private static final Set<String> KINDS = Set.of("lock", "device", "workload", "scheduler");
  private static final ExperimentPlugins PLUGINS = ExperimentPlugins.discover(
      PluginOptionsAreYamlKeysTest.class.getClassLoader());

  @TempDir
  Path temp;

  private static Map<String, String> printedDefaults(JsonNode plugin) {
    Map<String, String> defaults = new LinkedHashMap<>();
    plugin.get("options").forEach(o -> defaults.put(o.get("name").asText(), o.get("default").asText()));
    return defaults;
  }

  private static Plugin plugin(String kind, String name) {
    return switch (kind) {
      case "lock" -> PLUGINS.locks().get(name);
      case "device" -> PLUGINS.devices().get(name);
      case "workload" -> PLUGINS.workloads().get(name);
      default -> PLUGINS.schedulers().get(name);
    };
  }

  @Test
  void pluginsOptions_everyKind_printsExactlyTheKeysExperimentsAccept() throws Exception {
    Run json = CliFixture.run("plugins", "--format", "json");
    assertThat(json.exitCode()).as(json.err()).isZero();
    List<String> checked = new ArrayList<>();
    for (JsonNode p : new ObjectMapper().readTree(json.out())) {
      String kind = p.get("kind").asText();
      if (!KINDS.contains(kind)) {
        continue;
      }
      String name = p.get("name").asText();
      Map<String, String> printed = printedDefaults(p);
      Run text = CliFixture.run("plugins", "--options", name);
      assertThat(text.exitCode()).as(text.err()).isZero();
      printed.keySet().forEach(k -> assertThat(text.out()).as("%s prints %s", name, k).contains("  " + k + " "));

      Plugin plugin = plugin(kind, name);
      assertThat(plugin).as("%s %s discoverable by experiments", kind, name).isNotNull();
      assertThat(ExperimentPlugins.checkOptions("x.options", plugin, printed)).as("%s %s", kind, name).isEmpty();
      Map<String, String> extra = new LinkedHashMap<>(printed);
      extra.put("not-printed", "1");
      List<Problem> problems = ExperimentPlugins.checkOptions("x.options", plugin, extra);
      assertThat(problems).as("%s %s refuses a key it does not print", kind, name).hasSize(1);
      assertThat(problems.get(0).path()).isEqualTo("x.options.not-printed");
      checked.add(kind + " " + name);
    }
    assertThat(checked).as("plugins of every kind checked").anyMatch(c -> c.startsWith("lock "))
        .anyMatch(c -> c.startsWith("device ")).anyMatch(c -> c.startsWith("workload "))
        .anyMatch(c -> c.startsWith("scheduler "));
  }

  @Test
  void pluginsOptions_everyChoosableLock_printedKeysValidateInTheLocksSection() throws Exception {
    Run json = CliFixture.run("plugins", "--kind", "lock", "--format", "json");
    assertThat(json.exitCode()).as(json.err()).isZero();
    int files = 0;
    for (JsonNode p : new ObjectMapper().readTree(json.out())) {
      String name = p.get("name").asText();
      LockFactory f = PLUGINS.locks().get(name);
      if (f.lockKind() == LockFactory.LockKind.OSQ) {
        continue; // not chosen in an experiment: every kernel's OSQ is osq
      }
      StringBuilder options = new StringBuilder();
      printedDefaults(p).forEach((k, v) -> options.append(options.length() == 0 ? "" : ", ").append(k).append(": ")
          .append(v.isEmpty() ? "\"\"" : v));
      Path file = Files.writeString(temp.resolve(name + ".yaml"), """
          name: options-of-%s
          warmup: 0
          duration: 1ms
          host: {cpus: 2}
          vms:
            - name: vm0
              vcpus: 2
              locks: {%s: {type: %s, options: {%s}}}
              workloads:
                - {name: t, type: locktorture, options: {nwriters: 2}}
          """.formatted(name, f.lockKind().name().toLowerCase(Locale.ROOT), name, options));
      Run run = CliFixture.run("validate", file.toString());
      assertThat(run.exitCode()).as("%s: %s", name, run.err()).isZero();
      files++;
    }
    assertThat(files).isGreaterThanOrEqualTo(9);
  }
}
