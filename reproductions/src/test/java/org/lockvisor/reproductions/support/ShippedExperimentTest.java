package org.lockvisor.reproductions.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.experiment.model.InvalidExperimentException;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.reproductions.api.ExperimentRun;
import org.lockvisor.reproductions.api.Reproduction;
import org.lockvisor.reproductions.api.ReproductionOptions;
import org.lockvisor.reproductions.api.ReproductionParameter;
import org.lockvisor.reproductions.api.ReproductionResult;
import org.lockvisor.reproductions.api.ReproductionRuns;
import org.lockvisor.reproductions.api.WhatIf;

/**
 * A shipped experiment file is run through the runner exactly as {@code lockvisor run} runs it,
 * takes settings in the {@code run --set} path language, and takes the user's {@code reproduce
 * --set} what-if (raw paths and path-bound parameters) checked by the runner's validator before
 * anything runs. The file is read from the class loader of the reproduction that owns it, so a
 * plugin's own jar supplies it. Fixture: test resource {@code experiments/test-shipped.yaml} (a
 * small vhost-net machine).
 */
class ShippedExperimentTest {

  private static final String FILE = "test-shipped";
  private static final ReproductionParameter<Integer> STREAMS = ReproductionParameter
      .integer("streams", "iperf streams", 1, 64).at("vms[0].workloads[0].options.streams");

  /** A derived binding of the one file: the vCPU count and the pinning it needs, each a function of the value. */
  private static final ReproductionParameter<Integer> VCPUS = ReproductionParameter
      .integer("vcpus", "vCPUs, each pinned to its own CPU", 1, 64).at(FILE, "vms[0].vcpus")
      .at(FILE, "vms[0].pinning", v -> java.util.stream.IntStream.range(0, Integer.parseInt(v))
          .mapToObj(Integer::toString).collect(java.util.stream.Collectors.joining(", ", "[", "]")));
  /** Bound to the one file, with values its validator refuses. */
  private static final ReproductionParameter<Integer> MTU = ReproductionParameter
      .integer("mtu", "the NIC's MTU", 1, 65_536).at(FILE, "vms[0].devices[0].options.mtu");

  /** A reproduction shipping the fixture; never run here. */
  private static final Reproduction SHIPPING = new Reproduction() {
    @Override
    public String name() {
      return "r-shipped";
    }

    @Override
    public String summary() {
      return "test";
    }

    @Override
    public ReproductionResult run(ReproductionOptions options) {
      throw new UnsupportedOperationException();
    }

    @Override
    public List<ReproductionParameter<?>> parameters() {
      return List.of(STREAMS, VCPUS, MTU);
    }

    @Override
    public List<String> experimentFiles() {
      return List.of(FILE);
    }

    @Override
    public Set<String> archProfiles() {
      return Set.of("x86_64-kvm");
    }
  };

  @Test
  void run_sameSettings_sameFingerprintAsTheRunnerDirectly() {
    ShippedExperiment s = ShippedExperiment.load(SHIPPING, FILE).with("duration", "1ms");
    ReproductionOptions options = ReproductionOptions.defaults();
    ExperimentResult viaShipped = s.run(options, "r-shipped", "one-stream", "one", null);
    ExperimentResult direct = options.runner().run(
        org.lockvisor.experiment.model.ExperimentYaml.variant(s.experiment(options.runner()), "one-stream"),
        "one-stream");
    assertThat(viaShipped.fingerprint()).isEqualTo(direct.fingerprint());
    assertThat(viaShipped.events()).isPositive();
  }

  @Test
  void with_leavesTheOriginalUnchanged() {
    ShippedExperiment a = ShippedExperiment.load(SHIPPING, FILE);
    ShippedExperiment b = a.with("vms[0].workloads[0].options.streams", "2");
    assertThat(a.tree().at("/vms/0/workloads/0/options/streams").asInt()).isEqualTo(4);
    assertThat(b.tree().at("/vms/0/workloads/0/options/streams").asInt()).isEqualTo(2);
    assertThat(b.source()).isEqualTo("test-shipped.yaml --set vms[0].workloads[0].options.streams=2");
  }

  @Test
  void load_fileTheOwnerDoesNotDeclare_isAFaultOfTheReproduction() {
    assertThatThrownBy(() -> ShippedExperiment.load(SHIPPING, "no-such-file"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("reproduction [r-shipped] loads shipped experiment [no-such-file] but does not"
            + " declare it");
  }

  @Test
  void load_declaredFileMissing_isAPackagingFault() {
    assertThatThrownBy(() -> ShippedExperiment.load(new ChildOwner(), ChildOwner.FILE))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("not on the class path")
        .hasMessageContaining("child-only.yaml");
  }

  /**
   * The bug a plugin met: the file was read from ShippedExperiment's own class loader, and a
   * {@code --plugins} jar is a child of it. Here the owner's class is defined by a child loader
   * over a folder that alone holds its file; lockvisor's loader cannot see it, the owner's can.
   */
  @Test
  void load_ownerInAChildClassLoader_readsTheFileOfTheOwnersJar(@TempDir Path jar) throws Exception {
    Path resource = jar.resolve(Reproduction.EXPERIMENTS + ChildOwner.FILE + ".yaml");
    Files.createDirectories(resource.getParent());
    try (InputStream in = getClass().getResourceAsStream("/" + Reproduction.EXPERIMENTS + FILE + ".yaml")) {
      Files.copy(in, resource);
    }
    assertThat(ShippedExperiment.class.getClassLoader().getResource(Reproduction.EXPERIMENTS + ChildOwner.FILE
        + ".yaml")).as("lockvisor's own loader does not see the plugin's file").isNull();
    try (ChildLoader child = new ChildLoader(jar, getClass().getClassLoader(), ChildOwner.class.getName())) {
      Reproduction owner = (Reproduction) child.loadClass(ChildOwner.class.getName()).getConstructor().newInstance();
      assertThat(owner.getClass().getClassLoader()).isSameAs(child);

      ShippedExperiment s = ShippedExperiment.load(owner, ChildOwner.FILE);

      assertThat(s.file()).isEqualTo(ChildOwner.FILE);
      assertThat(s.tree().at("/vms/0/workloads/0/options/streams").asInt()).isEqualTo(4);
    }
  }

  /** A reproduction declaring one file that only a child class loader holds. Public: the child defines it anew. */
  public static final class ChildOwner implements Reproduction {
    static final String FILE = "child-only";

    @Override
    public String name() {
      return "r-child";
    }

    @Override
    public String summary() {
      return "test";
    }

    @Override
    public ReproductionResult run(ReproductionOptions options) {
      throw new UnsupportedOperationException();
    }

    @Override
    public List<String> experimentFiles() {
      return List.of(FILE);
    }
  }

  /** A loader over {@code folder} that defines class {@code own} itself (a plugin's class), the rest parent first. */
  private static final class ChildLoader extends URLClassLoader {
    private final String own;

    ChildLoader(Path folder, ClassLoader parent, String own) throws IOException {
      super(new URL[] {folder.toUri().toURL()}, parent);
      this.own = own;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (!name.equals(own)) {
        return super.loadClass(name, resolve);
      }
      synchronized (getClassLoadingLock(name)) {
        Class<?> c = findLoadedClass(name);
        if (c == null) {
          try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
            byte[] bytes = in.readAllBytes();
            c = defineClass(name, bytes, 0, bytes.length);
          } catch (IOException e) {
            throw new ClassNotFoundException(name, e);
          }
        }
        return c;
      }
    }
  }

  @Test
  void experiment_badSetting_isRefusedByTheValidator() {
    ShippedExperiment s = ShippedExperiment.load(SHIPPING, FILE).with("vms[0].vcpus", "zero");
    assertThatThrownBy(() -> s.experiment(ReproductionOptions.classPathRunner()))
        .isInstanceOf(InvalidExperimentException.class).hasMessageContaining("vcpus");
  }

  @Test
  void whatIf_rawPathAndBoundParameter_areAppliedAsPaths() {
    WhatIf w = WhatIf.parse(List.of("streams=2", "vms[0].devices[0].options.mtu=9000"), List.of(SHIPPING), false);
    assertThat(w.parameters()).containsEntry("streams", "2");
    assertThat(w.paths()).containsEntry("vms[0].workloads[0].options.streams", "2")
        .containsEntry("vms[0].devices[0].options.mtu", "9000");
    ReproductionOptions o = new ReproductionOptions(true, Optional.empty(), ReproductionRuns.NONE, w);
    ShippedExperiment s = ShippedExperiment.load(SHIPPING, FILE).withWhatIf(o);
    assertThat(s.tree().at("/vms/0/devices/0/options/mtu").asInt()).isEqualTo(9000);
    assertThat(s.tree().at("/vms/0/workloads/0/options/streams").asInt()).isEqualTo(2);
  }

  @Test
  void whatIf_fileBoundDerivedParameter_appliedToItsFileAsEveryTarget() {
    WhatIf w = WhatIf.parse(List.of("vcpus=3"), List.of(SHIPPING), false);
    assertThat(w.paths()).isEmpty();
    assertThat(w.filePaths()).containsOnlyKeys(FILE);
    assertThat(w.pathsOf(FILE)).containsEntry("vms[0].vcpus", "3").containsEntry("vms[0].pinning", "[0, 1, 2]");
    assertThat(w.pathsOf("another-file")).isEmpty();
    ReproductionOptions o = new ReproductionOptions(true, Optional.empty(), ReproductionRuns.NONE, w);
    ShippedExperiment s = ShippedExperiment.load(SHIPPING, FILE).withWhatIf(o);
    assertThat(s.tree().at("/vms/0/vcpus").asInt()).isEqualTo(3);
    assertThat(s.tree().at("/vms/0/pinning/2").asInt()).isEqualTo(2);
    assertThat(s.settings()).containsExactly("vms[0].vcpus=3", "vms[0].pinning=[0, 1, 2]");
  }

  @Test
  void whatIf_fileBoundParameterTheValidatorRefuses_isOneLineNamingTheParameter() {
    assertThatThrownBy(() -> WhatIf.parse(List.of("mtu=12"), List.of(SHIPPING), false))
        .isInstanceOf(UserInputException.class).hasMessageStartingWith("--set [mtu=12]: in shipped experiment "
            + FILE + ".yaml: ").satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }

  @Test
  void whatIf_rawPathAndAFileBoundParameterOfIt_isRefused() {
    assertThatThrownBy(() -> WhatIf.parse(List.of("vms[0].devices[0].options.mtu=9000", "mtu=1500"),
        List.of(SHIPPING), false)).isInstanceOf(UserInputException.class).hasMessageContaining("given twice");
    assertThatThrownBy(() -> WhatIf.parse(List.of("mtu=1500", "vms[0].devices[0].options.mtu=9000"),
        List.of(SHIPPING), false)).isInstanceOf(UserInputException.class).hasMessageContaining("give it once");
  }

  @Test
  void whatIf_pathTheValidatorRefuses_isOneLineNamingTheFile() {
    assertThatThrownBy(() -> WhatIf.parse(List.of("vms[0].vcpus=1"), List.of(SHIPPING), false))
        .isInstanceOf(UserInputException.class).hasMessageContaining("test-shipped.yaml")
        .hasMessageContaining("pinning").satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }

  @Test
  void whatIf_settingsRefusedAloneButValidTogether_areAccepted() {
    WhatIf w = WhatIf.parse(List.of("vms[0].pinning=[0, 1, 2]", "vms[0].vcpus=3"), List.of(SHIPPING), false);
    assertThat(w.paths()).containsOnlyKeys("vms[0].pinning", "vms[0].vcpus");
  }

  @Test
  void whatIf_settingsValidAloneButNotTogether_areNamedTogether() {
    assertThatThrownBy(() -> WhatIf.parse(List.of("host.cpus=3", "vms[0].pinning=[0, 3]"), List.of(SHIPPING), false))
        .isInstanceOf(UserInputException.class).hasMessageStartingWith("--set: the settings [host.cpus=3,"
            + " vms[0].pinning=[0, 3]] together: in shipped experiment test-shipped.yaml: ");
  }

  @Test
  void whatIf_misspeltParameter_namesTheParameter() {
    assertThatThrownBy(() -> WhatIf.parse(List.of("stream=2"), List.of(SHIPPING), false))
        .isInstanceOf(UserInputException.class).hasMessageContaining("did you mean [streams]");
  }

  @Test
  void whatIf_unknownDeepPath_isRefusedBeforeAnythingRuns() {
    assertThatThrownBy(() -> WhatIf.parse(List.of("vms[0].vcpu=2"), List.of(SHIPPING), false))
        .isInstanceOf(UserInputException.class).hasMessageStartingWith("--set [vms[0].vcpu=2]: ")
        .hasMessageContaining("vcpu");
  }

  @Test
  void whatIf_badValueOfAPath_isRefused() {
    assertThatThrownBy(() -> WhatIf.parse(List.of("vms[0].devices[0].options.mtu=12"), List.of(SHIPPING), false))
        .isInstanceOf(UserInputException.class).hasMessageContaining("mtu");
  }

  @Test
  void whatIf_pathAndItsParameterBoth_isRefused() {
    assertThatThrownBy(() -> WhatIf.parse(List.of("streams=2", "vms[0].workloads[0].options.streams=3"),
        List.of(SHIPPING), false)).isInstanceOf(UserInputException.class).hasMessageContaining("given twice");
  }

  @Test
  void run_capturing_reportsTheRunWithItsFiles() {
    List<ExperimentRun> seen = new ArrayList<>();
    ReproductionRuns runs = new ReproductionRuns() {
      @Override
      public boolean capturing() {
        return true;
      }

      @Override
      public void done(ExperimentRun run) {
        seen.add(run);
      }
    };
    ShippedExperiment s = ShippedExperiment.load(SHIPPING, FILE).with("duration", "1ms");
    s.run(new ReproductionOptions(true, Optional.empty(), runs), "r-shipped", "base", "b", null);
    assertThat(seen).hasSize(1);
    assertThat(seen.get(0).outputs()).isNotNull();
    assertThat(seen.get(0).outputs().files()).containsKey("lock_stat.txt");
    assertThat(seen.get(0).source()).isEqualTo("test-shipped.yaml --set duration=1ms --variant base");
  }
}
