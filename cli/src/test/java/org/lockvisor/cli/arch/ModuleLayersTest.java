package org.lockvisor.cli.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import java.util.ServiceLoader;

/**
 * The module chain of the README's module table, held by ArchUnit: each module's packages may be
 * used only by the modules above it; no module's packages form a cycle among themselves; no code
 * outside the built-ins and the composition root names a built-in plugin class (plugins are
 * chosen by name through discovery, so a reproduction, the CLI or a third party can swap any of
 * them).
 *
 * <p>The module graph, bottom up: core; arch-profiles (spi, catalog, builtin); machine (the
 * two-level machine, the platform wiring, the scheduler SPI); scheduler (built-in schedulers) and
 * locking (lock SPI and built-ins), both on machine; devices on locking; workloads on devices;
 * experiment (model and runner) on workloads and scheduler; reports (exporters of a finished run)
 * on experiment; studies (sweeps, envelopes, calibration) on reports; reproductions (the
 * reproduction SPI, its studies and pages, the seed reproductions) on studies; cli (the command
 * and the composition root's Guice wiring) on reproductions.
 *
 * <p>Each module's packages form no cycle, its root package included: a slice is the module's
 * root package or one of its sub-packages ({@link ModuleSlices}); {@code
 * slices().matching("org.lockvisor.experiment.(*)..")} would leave the root package out and pass
 * a cycle through it.
 */
@AnalyzeClasses(packages = "org.lockvisor", importOptions = ImportOption.DoNotIncludeTests.class)
class ModuleLayersTest {

  @ArchTest
  static final ArchRule modules_dependOnlyDownTheModuleChain = layeredArchitecture()
      .consideringOnlyDependenciesInLayers()
      .withOptionalLayers(true)
      .layer("core").definedBy("org.lockvisor.core..")
      .layer("arch-profiles").definedBy("org.lockvisor.arch.spi..", "org.lockvisor.arch.catalog..",
          "org.lockvisor.arch.builtin..")
      .layer("arch-profiles-yaml").definedBy("org.lockvisor.arch.yaml..")
      .layer("machine").definedBy("org.lockvisor.machine..", "org.lockvisor.platform..",
          "org.lockvisor.scheduler.spi..")
      .layer("scheduler").definedBy("org.lockvisor.scheduler.builtin..")
      .layer("locking").definedBy("org.lockvisor.locking.spi..", "org.lockvisor.locking.builtin..")
      .layer("devices").definedBy("org.lockvisor.devices..")
      .layer("workloads").definedBy("org.lockvisor.workloads..")
      .layer("experiment").definedBy("org.lockvisor.experiment..")
      .layer("reports").definedBy("org.lockvisor.reports..")
      .layer("studies").definedBy("org.lockvisor.studies..")
      .layer("reproductions").definedBy("org.lockvisor.reproductions..")
      .layer("cli").definedBy("org.lockvisor.cli..")
      .whereLayer("cli").mayNotBeAccessedByAnyLayer()
      .whereLayer("reproductions").mayOnlyBeAccessedByLayers("cli")
      .whereLayer("studies").mayOnlyBeAccessedByLayers("reproductions", "cli")
      .whereLayer("reports").mayOnlyBeAccessedByLayers("studies", "reproductions", "cli")
      .whereLayer("experiment").mayOnlyBeAccessedByLayers("reports", "studies", "reproductions", "cli")
      .whereLayer("workloads").mayOnlyBeAccessedByLayers("experiment", "reports", "studies", "reproductions",
          "cli")
      .whereLayer("devices").mayOnlyBeAccessedByLayers("workloads", "experiment", "reports", "studies",
          "reproductions", "cli")
      .whereLayer("locking").mayOnlyBeAccessedByLayers("devices", "workloads", "experiment", "reports",
          "studies", "reproductions", "cli")
      .whereLayer("scheduler").mayOnlyBeAccessedByLayers("experiment", "reports", "studies", "reproductions",
          "cli")
      .whereLayer("machine").mayOnlyBeAccessedByLayers("scheduler", "locking", "devices", "workloads",
          "experiment", "reports", "studies", "reproductions", "cli")
      .whereLayer("arch-profiles-yaml").mayOnlyBeAccessedByLayers("experiment", "reports", "studies",
          "reproductions", "cli")
      .whereLayer("arch-profiles").mayOnlyBeAccessedByLayers("arch-profiles-yaml", "machine", "scheduler",
          "locking", "devices", "workloads", "experiment", "reports", "studies", "reproductions", "cli")
      .because("dependencies point down the module chain (README, Modules)");

  /**
   * One rule per module: its packages, the module's root package included, form no cycle. In
   * {@code experiment} the root package holds only the failures every package reports, so it
   * depends on none of them; the model never reads the runner.
   */
  @ArchTest
  static final ArchRule experiment_packagesFreeOfCycles = modulePackagesFreeOfCycles("org.lockvisor.experiment");

  @ArchTest
  static final ArchRule reports_packagesFreeOfCycles = modulePackagesFreeOfCycles("org.lockvisor.reports");

  @ArchTest
  static final ArchRule studies_packagesFreeOfCycles = modulePackagesFreeOfCycles("org.lockvisor.studies");

  @ArchTest
  static final ArchRule arch_packagesFreeOfCycles = modulePackagesFreeOfCycles("org.lockvisor.arch");

  @ArchTest
  static final ArchRule machine_packagesFreeOfCycles = modulePackagesFreeOfCycles("org.lockvisor.machine");

  @ArchTest
  static final ArchRule scheduler_packagesFreeOfCycles = modulePackagesFreeOfCycles("org.lockvisor.scheduler");

  @ArchTest
  static final ArchRule locking_packagesFreeOfCycles = modulePackagesFreeOfCycles("org.lockvisor.locking");

  @ArchTest
  static final ArchRule devices_packagesFreeOfCycles = modulePackagesFreeOfCycles("org.lockvisor.devices");

  @ArchTest
  static final ArchRule workloads_packagesFreeOfCycles = modulePackagesFreeOfCycles("org.lockvisor.workloads");

  @ArchTest
  static final ArchRule reproductions_packagesFreeOfCycles =
      modulePackagesFreeOfCycles("org.lockvisor.reproductions");

  @ArchTest
  static final ArchRule core_packagesFreeOfCycles = modulePackagesFreeOfCycles("org.lockvisor.core");

  @ArchTest
  static final ArchRule cli_packagesFreeOfCycles = modulePackagesFreeOfCycles("org.lockvisor.cli");

  /**
   * Built-in plugin classes are named only by the built-ins themselves and the composition root's
   * injection package; everything else chooses a plugin by name (the reproductions too: they run
   * their shipped experiment files through the runner, issue 18).
   */
  @ArchTest
  static final ArchRule builtins_namedOnlyByBuiltinsAndTheCompositionRoot =
      noClasses().that().resideOutsideOfPackages("..builtin..", "org.lockvisor.cli.inject..")
          .should().dependOnClassesThat().resideInAPackage("..builtin..")
          .because("plugins are chosen by name through discovery, so any of them can be replaced");

  /**
   * Plugins come from one place: only {@code PluginDiscovery} runs {@link ServiceLoader} (loud on
   * duplicate names); everything else asks the experiment module's {@code PluginRegistry} or the
   * injector built from it, so no caller can keep the first of two plugins silently.
   */
  @ArchTest
  static final ArchRule serviceLoader_onlyInPluginDiscovery =
      noClasses().that().doNotHaveFullyQualifiedName("org.lockvisor.core.plugin.PluginDiscovery")
          .should().dependOnClassesThat().belongToAnyOf(ServiceLoader.class)
          .because("a plugin name becomes an object in one place (PluginRegistry over PluginDiscovery)");

  static ArchRule modulePackagesFreeOfCycles(String rootPackage) {
    return slices().assignedFrom(ModuleSlices.rootedAt(rootPackage)).should().beFreeOfCycles();
  }
}
