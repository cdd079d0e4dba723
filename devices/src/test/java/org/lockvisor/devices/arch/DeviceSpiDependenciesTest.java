package org.lockvisor.devices.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The device SPI depends only on the JDK, Guava, core's plugin API, the machine, the lock SPI and the
 * arch-profile SPI (costs),
 * so third-party devices build against it alone; built-in devices never leak into it.
 */
@AnalyzeClasses(packages = "org.lockvisor.devices", importOptions = ImportOption.DoNotIncludeTests.class)
class DeviceSpiDependenciesTest {

  @ArchTest
  static final ArchRule spi_dependsOnJdkGuavaPluginMachineAndLockSpiOnly =
      classes().that().resideInAPackage("org.lockvisor.devices.spi..")
          .should().onlyDependOnClassesThat().resideInAnyPackage(
              "java..", "com.google.common..", "org.lockvisor.core.plugin..", "org.lockvisor.machine..",
              "org.lockvisor.locking.spi..", "org.lockvisor.arch.spi..", "org.lockvisor.devices.spi..")
          .because("DESIGN.md 1: an SPI depends on nothing but the JDK, Guava and lower SPIs");

  @ArchTest
  static final ArchRule models_doNotImportGuice =
      classes().that().resideInAPackage("org.lockvisor.devices..")
          .should().onlyDependOnClassesThat().resideOutsideOfPackages("com.google.inject..", "jakarta.inject..")
          .because("model classes never import Guice");
}
