package org.lockvisor.locking;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The lock SPI depends only on the JDK, Guava, lower SPIs (core plugin API, arch profiles) and the machine. */
class ArchitectureTest {
  private final JavaClasses classes = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("org.lockvisor.locking");

  @Test
  void spi_dependsOnlyOnJdkGuavaLowerSpisAndMachine() {
    classes().that().resideInAPackage("org.lockvisor.locking.spi..")
        .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "com.google.common..",
            "org.lockvisor.core.plugin..", "org.lockvisor.arch.spi..", "org.lockvisor.machine..",
            "org.lockvisor.locking.spi..")
        .check(classes);
  }

  @Test
  void model_neverImportsGuice() {
    noClasses().should().dependOnClassesThat().resideInAPackage("com.google.inject..").check(classes);
  }
}
