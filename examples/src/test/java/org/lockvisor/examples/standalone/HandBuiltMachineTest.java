package org.lockvisor.examples.standalone;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;
import org.lockvisor.locking.spi.LockStats;

/**
 * The standalone example uses only core, scheduler and locking, and the arch profiles' cost view
 * its locks read (no Guice, no experiment model),
 * and measures something: a lock shared by more tasks than CPUs is contended, one with a single
 * task never is.
 */
class HandBuiltMachineTest {

  @Test
  void standalone_dependsOnCoreSchedulerAndLockingOnly() {
    classes().that().resideInAPackage("org.lockvisor.examples.standalone..")
        .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "org.lockvisor.core..",
            "org.lockvisor.machine..", "org.lockvisor.scheduler..", "org.lockvisor.locking..",
            "org.lockvisor.arch.spi..", "org.lockvisor.examples.standalone..")
        .check(new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("org.lockvisor.examples.standalone"));
  }

  @Test
  void sharedLock_contended_singleTask_not() {
    LockStats shared = HandBuiltMachine.measure(4, 4, 8, 5_000_000, 1);
    LockStats alone = HandBuiltMachine.measure(4, 4, 1, 5_000_000, 1);

    assertThat(shared.contentions()).isPositive();
    assertThat(alone.contentions()).isZero();
    assertThat(alone.acquisitions()).isPositive();
  }
}
