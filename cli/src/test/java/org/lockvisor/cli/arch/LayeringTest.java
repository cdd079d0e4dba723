package org.lockvisor.cli.arch;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

/**
 * The layering rules of DESIGN.md section 1, held by tests instead of goodwill. The CLI module
 * sees every lockvisor module below it, so importing {@code org.lockvisor} here checks them all
 * (main classes only). No rule allows an empty match: a rule about packages that vanished fails
 * instead of passing vacuously. The module chain and the per-module cycle rules are in {@link
 * ModuleLayersTest}.
 */
@AnalyzeClasses(packages = "org.lockvisor", importOptions = ImportOption.DoNotIncludeTests.class)
class LayeringTest {

  private static final String[] GUICE = {"com.google.inject..", "jakarta.inject..", "javax.inject.."};

  @ArchTest
  static final ArchRule spiPackages_dependOnNoInjectionJsonCliOrBuiltins =
      noClasses().that().resideInAPackage("..spi..")
          .should().dependOnClassesThat().resideInAnyPackage(
              "com.google.inject..", "jakarta.inject..", "javax.inject..",
              "..builtin..", "com.fasterxml..", "picocli..")
          .because("an SPI depends on the JDK, Guava and lower SPIs only, so third parties can build against it");

  @ArchTest
  static final ArchRule core_dependsOnNoOtherLockvisorModule =
      noClasses().that().resideInAPackage("org.lockvisor.core..")
          .should().dependOnClassesThat(
              resideInAPackage("org.lockvisor..").and(not(resideInAPackage("org.lockvisor.core.."))))
          .because("core is the bottom of the module graph and knows nothing about kernels");

  @ArchTest
  static final ArchRule core_dependsOnNoInjectionJsonOrCli =
      noClasses().that().resideInAPackage("org.lockvisor.core..")
          .should().dependOnClassesThat().resideInAnyPackage(
              "com.google.inject..", "jakarta.inject..", "javax.inject..", "com.fasterxml..", "picocli..")
          .because("core depends on the JDK, Guava and HdrHistogram only");

  @ArchTest
  static final ArchRule onlyTheCompositionRoot_importsGuice =
      noClasses().that().resideOutsideOfPackage("org.lockvisor.cli..")
          .should().dependOnClassesThat().resideInAnyPackage(GUICE)
          .because("Guice stays at the composition root (the CLI: its inject package builds every injector);"
              + " model classes never import it");

  @ArchTest
  static final ArchRule topLevelPackages_freeOfCycles =
      slices().matching("org.lockvisor.(*)..").should().beFreeOfCycles();

  /** Guards the rules above against passing vacuously because nothing was imported. */
  @Test
  void importer_seesEveryModuleOnTheClassPath() {
    JavaClasses classes = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("org.lockvisor");

    assertThat(classes.stream().map(JavaClass::getName))
        .contains(
            "org.lockvisor.core.plugin.PluginDiscovery",
            "org.lockvisor.cli.inject.Bootstrap",
            "org.lockvisor.cli.Lockvisor")
        .noneMatch(name -> name.startsWith("org.lockvisor.cli.arch."));
  }
}
