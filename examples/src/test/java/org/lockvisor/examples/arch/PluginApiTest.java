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
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The example plugins (and so the archetypes made from them) are written against the documented
 * plugin API only (issue 35): of the machine, the types {@code org.lockvisor.machine}'s
 * package-info lists (programs and ops, the task, where it runs, spins and wait queues); never the
 * machine's assembly types, the platform wiring, the composition root or a built-in plugin (a
 * built-in arch profile excepted: a profile plugin extends one, as a YAML profile does). A planted
 * class that reads a {@code KernelConfig} fails the rule.
 *
 * <p>The archetypes' own templates (their tests, and the workload and arch profile plugins) are
 * Velocity text, not classes: every {@code org.lockvisor} name they mention is held to the same
 * predicate, their tests allowed the test kits and built-ins besides (a test runs the plugin on the
 * kits' {@code LockTestbed} with built-in collaborators). A planted template that names machine
 * assembly and the platform wiring fails it. The API list here and the package-info's are one list.
 */
@AnalyzeClasses(packages = "org.lockvisor.examples", importOptions = ImportOption.DoNotIncludeTests.class)
class PluginApiTest {

  /** The plugin API of {@code org.lockvisor.machine} (its package-info). */
  static final Set<String> MACHINE_API = Set.of("Program", "Op", "Ops", "Task", "TaskState", "TaskAttachment",
      "SpinCondition", "SpinWatch", "WaitQueue", "Kernel", "Cpu", "Vm", "VcpuTask", "Machine", "SharedLine", "VcpuPreemptedReads",
      "VcpuPreemptedHook", "CacheLines", "MachineTrace", "YieldStats",
      "Scheduler", "SchedStats", "MigrationCause", "CpuTopology");

  /**
   * The example plugins: two locks (the lock archetype's classes are made from backoff), a block
   * device (the device archetype's), a workload.
   */
  static final String[] PLUGINS = {"org.lockvisor.examples.mcs..", "org.lockvisor.examples.backoff..",
      "org.lockvisor.examples.nullblk..", "org.lockvisor.examples.broken.."};

  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

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
          if (!pkg.startsWith("org.lockvisor")) {
            return false; // the JDK, Guava, primitives
          }
          String top = c.getName().substring(pkg.length() + 1);
          int nested = top.indexOf('$');
          return outsideThePluginApi(pkg, nested < 0 ? top : top.substring(0, nested), false);
        });
  }

  /**
   * Whether top-level type {@code simpleName} of package {@code pkg} is out of a plugin's reach;
   * {@code test}: for a plugin's tests, which may also use the test kits' machine and built-ins.
   */
  static boolean outsideThePluginApi(String pkg, String simpleName, boolean test) {
    if (pkg.equals("org.lockvisor.machine")) {
      return !MACHINE_API.contains(simpleName);
    }
    if (pkg.startsWith("org.lockvisor.machine.") || pkg.startsWith("org.lockvisor.platform")
        || pkg.startsWith("org.lockvisor.experiment") || pkg.startsWith("org.lockvisor.cli")) {
      return true;
    }
    return !test && pkg.contains(".builtin") && !pkg.equals("org.lockvisor.arch.builtin");
  }

  @Test
  void plantedPluginUsingMachineAssembly_fails() {
    EvaluationResult result = rule("org.lockvisor.examples.planted..")
        .evaluate(new ClassFileImporter().importPackages("org.lockvisor.examples.planted"));

    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().toString()).contains("AssemblingPlugin").contains("KernelConfig");
  }

  @Test
  void archetypeTemplates_nameThePluginApiOnly() {
    List<Path> templates = templates(ROOT.resolve("archetypes"));

    assertThat(templates).as("the archetypes' Java templates").hasSizeGreaterThan(5);
    assertThat(violations(templates)).isEmpty();
  }

  @Test
  void plantedArchetypeTemplate_namingMachineAssembly_fails() {
    Path planted = ROOT.resolve("examples/src/test/resources/org/lockvisor/examples/planted/archetype");

    assertThat(violations(templates(planted))).containsExactly(
        "src/main/java/__className__.java: org.lockvisor.machine.config.KernelConfig",
        "src/main/java/__className__.java: org.lockvisor.platform.Platforms",
        "src/test/java/__className__Test.java: org.lockvisor.machine.config.HypervisorConfig");
  }

  @Test
  void machineApi_isThePackageInfosList() throws IOException {
    String info = Files.readString(ROOT.resolve("machine/src/main/java/org/lockvisor/machine/package-info.java"))
        .replaceAll("\\n\\s*\\*\\s*", " ");
    String api = info.substring(info.indexOf("<h2>The plugin API</h2>"), info.indexOf("</ul>"));
    Set<String> listed = new TreeSet<>();
    Matcher m = Pattern.compile("\\{@link\\s+org\\.lockvisor\\.machine\\.([A-Z]\\w*)").matcher(api);
    while (m.find()) {
      listed.add(m.group(1));
    }

    assertThat(listed).containsExactlyInAnyOrderElementsOf(MACHINE_API);
  }

  /** The {@code .java} templates of the archetypes under {@code root}, sorted. */
  private static List<Path> templates(Path root) {
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(f -> f.toString().endsWith(".java") && !f.toString().contains("/target/")).sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A type named as {@code org.lockvisor.pkg.Type} (an import, a static import or a qualified name). */
  private static final Pattern NAMED = Pattern.compile("\\borg\\.lockvisor((?:\\.[a-z][a-z0-9_]*)*)\\.([A-Z]\\w*)");

  /** {@code src/…/File.java: org.lockvisor.pkg.Type} for every name out of the template's reach. */
  private static List<String> violations(List<Path> templates) {
    List<String> out = new ArrayList<>();
    for (Path file : templates) {
      String path = file.toString();
      String relative = path.substring(Math.max(path.lastIndexOf("/src/main/java/"), path.lastIndexOf("/src/test/java/")) + 1);
      boolean test = relative.startsWith("src/test/");
      try {
        Matcher m = NAMED.matcher(Files.readString(file));
        Set<String> seen = new TreeSet<>();
        while (m.find()) {
          String pkg = "org.lockvisor" + m.group(1);
          if (outsideThePluginApi(pkg, m.group(2), test)) {
            seen.add(relative + ": " + pkg + "." + m.group(2));
          }
        }
        out.addAll(seen);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return out;
  }
}
