package org.lockvisor.workloads.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The workload SPI depends only on the JDK, Guava, core's plugin API, the arch profile's cost view,
 * the machine and the lock SPI: not on the devices module (issue 35; a workload asks its context for
 * the device class it drives).
 */
@AnalyzeClasses(packages = "org.lockvisor.workloads", importOptions = ImportOption.DoNotIncludeTests.class)
class WorkloadSpiDependenciesTest {

  @ArchTest
  static final ArchRule spi_dependsOnJdkGuavaPluginCostsMachineAndLockSpiOnly =
      classes().that().resideInAPackage("org.lockvisor.workloads.spi..")
          .should().onlyDependOnClassesThat().resideInAnyPackage(
              "java..", "com.google.common..", "org.lockvisor.core.plugin..", "org.lockvisor.arch.spi..",
              "org.lockvisor.machine..", "org.lockvisor.locking.spi..", "org.lockvisor.workloads.spi..")
          .because("DESIGN.md 1: an SPI depends on nothing but the JDK, Guava and lower SPIs");

  @ArchTest
  static final ArchRule fio_usesNoDeviceBuiltin =
      classes().that().resideInAPackage("org.lockvisor.workloads..")
          .should().onlyDependOnClassesThat().resideOutsideOfPackages(
              "org.lockvisor.devices.virtioblk..", "com.google.inject..")
          .because("workloads talk to devices through the block-device SPI only");
}
