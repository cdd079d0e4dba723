package org.lockvisor.arch.spi;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * Property: the arch SPI depends only on the JDK, Guava, lockvisor core and itself, so third-party
 * profiles need nothing else (no Jackson, no Guice, no built-ins).
 */
class SpiDependencyTest {

  @Test
  void spiPackage_dependsOnlyOnJdkGuavaCoreAndItself() {
    JavaClasses spi = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("org.lockvisor.arch.spi");

    classes().that().resideInAPackage("org.lockvisor.arch.spi..")
        .should().onlyDependOnClassesThat()
        .resideInAnyPackage("java..", "com.google.common..", "org.lockvisor.core..", "org.lockvisor.arch.spi..")
        .check(spi);
  }
}
