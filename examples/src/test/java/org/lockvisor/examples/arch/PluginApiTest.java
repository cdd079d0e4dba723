package org.lockvisor.examples.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The example plugins (and so the archetypes made from them) are written against the documented
 * plugin API only (issue 35): of the machine, the types {@code org.lockvisor.machine}'s
 * package-info lists (programs and ops, the task, where it runs, spins and wait queues); never the
 * machine's assembly types, the platform wiring, the composition root or a built-in plugin. A
 * planted class that reads a {@code KernelConfig} fails the rule.
 */
@AnalyzeClasses(packages = "org.lockvisor.examples", importOptions = ImportOption.DoNotIncludeTests.class)
class PluginApiTest {

  /** The plugin API of {@code org.lockvisor.machine} (its package-info). */
  static final Set<String> MACHINE_API = Set.of("Program", "Op", "Ops", "Task", "TaskState", "TaskAttachment",
      "SpinCondition", "SpinWatch", "WaitQueue", "Kernel", "Cpu", "Vm", "VcpuTask", "Machine", "SharedLine",
      "Scheduler", "SchedStats", "MigrationCause", "CpuTopology");

  /** The example plugins: a lock, a block device, a workload. */
  static final String[] PLUGINS = {"org.lockvisor.examples.mcs..", "org.lockvisor.examples.nullblk..",
      "org.lockvisor.examples.broken.."};

  @ArchTest
  static final ArchRule examplePlugins_useThePluginApiOnly = rule(PLUGINS);

  static ArchRule rule(String... packages) {
    return noClasses().that().resideInAnyPackage(packages)
        .should().dependOnClassesThat(outsideThePluginApi())
        .because("a plugin builds against the SPIs and the machine's documented plugin API only"
            + " (org.lockvisor.machine package-info), so the interpreter can change behind it");
  }

  private static DescribedPredicate<JavaClass> outsideThePluginApi() {
    return DescribedPredicate.describe("machine code outside the plugin API, the platform wiring, the composition"
        + " root or a built-in", type -> {
          JavaClass c = type.isArray() ? type.getBaseComponentType() : type;
          String pkg = c.getPackageName();
          if (pkg.equals("org.lockvisor.machine")) {
            String top = c.getName().substring(pkg.length() + 1);
            int nested = top.indexOf('$');
            return !MACHINE_API.contains(nested < 0 ? top : top.substring(0, nested));
          }
          return pkg.startsWith("org.lockvisor.machine.") || pkg.startsWith("org.lockvisor.platform")
              || pkg.startsWith("org.lockvisor.experiment") || pkg.startsWith("org.lockvisor.cli")
              || pkg.contains(".builtin");
        });
  }

  @Test
  void plantedPluginUsingMachineAssembly_fails() {
    EvaluationResult result = rule("org.lockvisor.examples.planted..")
        .evaluate(new ClassFileImporter().importPackages("org.lockvisor.examples.planted"));

    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().toString()).contains("AssemblingPlugin").contains("KernelConfig");
  }
}
