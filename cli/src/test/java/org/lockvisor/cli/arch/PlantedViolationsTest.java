package org.lockvisor.cli.arch;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.EvaluationResult;
import org.junit.jupiter.api.Test;

/**
 * The architecture rules fail on a planted violation, so a rule that passes says something: each
 * case imports a few classes of {@code org.lockvisor.cli.arch.planted} (test classes, outside what
 * the rules check) that break one rule on purpose, and asserts that the rule reports it.
 */
class PlantedViolationsTest {

  private static final String CYCLE = "org.lockvisor.cli.arch.planted.cycle";

  @Test
  void moduleSlices_cycleThroughTheRootPackage_fails() {
    JavaClasses planted = new ClassFileImporter().importPackages(CYCLE);

    EvaluationResult result = ModuleLayersTest.modulePackagesFreeOfCycles(CYCLE).evaluate(planted);

    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().toString()).contains("RootHolder").contains("SubUser");
  }

  @Test
  void matchingSubPackagesOnly_cycleThroughTheRootPackage_passesUnseen() {
    // Why ModuleSlices exists: the old pattern leaves the root package out of every slice.
    JavaClasses planted = new ClassFileImporter().importPackages(CYCLE);

    EvaluationResult result = slices().matching(CYCLE + ".(*)..").should().beFreeOfCycles()
        .allowEmptyShould(true).evaluate(planted);

    assertThat(result.hasViolation()).isFalse();
  }
}
