package org.lockvisor.cli.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A class split out of another never calls back into it (issue 35): every dependency between the
 * two runs one way, from the origin to the part, and state both read lives in a third class both
 * depend on. A part says where it comes from in its class comment, in the words {@code Split out
 * of {@link Origin}}; this test finds those words in every main source file and holds the part
 * (with its nested classes) to no dependency on the origin (nor its nested classes). A call back
 * through a shared state object that kept the origin is a dependency too: the call names the
 * origin. Javadoc links are not dependencies; a compile-time constant is inlined and so is none
 * either.
 */
class SplitClassesTest {

  /** {@code Split out of {@link Name}} or {@code {@link a.b.Name}}, in any case. */
  static final Pattern SPLIT = Pattern.compile("(?i)split out of \\{@link ([A-Za-z0-9_.]+)\\}");

  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  /** The declared splits of every main source root, and the main classes of their packages only (fast). */
  private static List<Split> splits;
  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    splits = declaredSplits(mainSourceRoots());
    classes = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages(splits.stream()
            .flatMap(s -> Stream.of(packageOfClass(s.part()), packageOfClass(s.origin())))
            .distinct().sorted().toList());
  }

  private static String packageOfClass(String name) {
    return name.substring(0, name.lastIndexOf('.'));
  }

  /** A part and the class it was split out of, both fully qualified. */
  record Split(String part, String origin) {}

  @Test
  void splitParts_neverDependOnTheirOrigin() {
    assertThat(splits).extracting(Split::part).as("the splits issue 35 re-cut declare themselves")
        .contains("org.lockvisor.scheduler.builtin.CfsLoadBalancer",
            "org.lockvisor.scheduler.builtin.CfsWakePlacement",
            "org.lockvisor.scheduler.builtin.CfsHrtick",
            "org.lockvisor.scheduler.builtin.CfsRq",
            "org.lockvisor.scheduler.builtin.PowervmGang",
            "org.lockvisor.scheduler.builtin.PowervmRq",
            "org.lockvisor.scheduler.builtin.PowervmVp",
            "org.lockvisor.reproductions.api.WhatIfPaths",
            "org.lockvisor.locking.builtin.XaddRwsemWriteSlowPath",
            "org.lockvisor.reproductions.vcpupreempted.VcpuPreemptedParameters",
            "org.lockvisor.reproductions.vcpupreempted.Variant",
            "org.lockvisor.devices.vhostnet.VhostWorker",
            "org.lockvisor.devices.vhostnet.VirtioNetDriver",
            "org.lockvisor.devices.vhostnet.VhostNetStats",
            "org.lockvisor.devices.vhostnet.VhostNetState",
            "org.lockvisor.devices.vhostnet.NicLink",
            "org.lockvisor.devices.vhostnet.IrqfdSignal",
            "org.lockvisor.devices.vhostnet.VhostNetCounters",
            "org.lockvisor.devices.virtioblk.QemuVmm",
            "org.lockvisor.devices.virtioblk.QemuMainLoop",
            "org.lockvisor.devices.virtioblk.VirtioBlkStats",
            "org.lockvisor.devices.virtioblk.VirtioBlkState");
    for (Split s : splits) {
      assertThat(classes.contain(s.origin())).as("origin %s of %s is a main class", s.origin(), s.part()).isTrue();
      rule(s).check(classes);
    }
  }

  @Test
  void plantedPartCallingItsOrigin_fails() {
    Path planted = ROOT.resolve("cli/src/test/java");
    List<Split> splits = declaredSplits(List.of(planted)).stream()
        .filter(s -> packageOfClass(s.part()).equals("org.lockvisor.cli.arch.planted.split")).toList();
    JavaClasses plantedClasses = new ClassFileImporter().importPackages("org.lockvisor.cli.arch.planted.split");

    assertThat(splits).containsExactly(new Split("org.lockvisor.cli.arch.planted.split.Part",
        "org.lockvisor.cli.arch.planted.split.Origin"));
    EvaluationResult result = rule(splits.get(0)).evaluate(plantedClasses);
    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().toString()).contains("Part.half()").contains("Origin.shared()");
  }

  /**
   * The shape the device splits are cut to (the device builds a shared state, then its parts from
   * it), with the state wrongly keeping the device: a part that calls the device through the state
   * fails as well, its call naming the device.
   */
  @Test
  void plantedPartCallingItsOriginThroughSharedState_fails() {
    Path planted = ROOT.resolve("cli/src/test/java");
    List<Split> splits = declaredSplits(List.of(planted)).stream()
        .filter(s -> s.part().startsWith("org.lockvisor.cli.arch.planted.split.via.")).toList();
    JavaClasses plantedClasses = new ClassFileImporter().importPackages("org.lockvisor.cli.arch.planted.split.via");

    assertThat(splits).containsExactly(new Split("org.lockvisor.cli.arch.planted.split.via.Worker",
        "org.lockvisor.cli.arch.planted.split.via.Device"));
    EvaluationResult result = rule(splits.get(0)).evaluate(plantedClasses);
    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().toString()).contains("Worker.step()").contains("Device.queues()");
  }

  static ArchRule rule(Split s) {
    return noClasses().that(classOrNested(s.part()))
        .should().dependOnClassesThat(classOrNested(s.origin()))
        .because(s.part() + " was split out of " + s.origin() + ": state both read belongs in a class both depend on");
  }

  private static DescribedPredicate<JavaClass> classOrNested(String name) {
    return DescribedPredicate.describe(name + " or a class nested in it",
        c -> c.getName().equals(name) || c.getName().startsWith(name + "$"));
  }

  /** Every {@code Split out of {@link X}} in the top-level class comments under {@code roots}. */
  static List<Split> declaredSplits(List<Path> roots) {
    List<Split> out = new ArrayList<>();
    for (Path root : roots) {
      try (Stream<Path> files = Files.walk(root)) {
        for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
          String text = Files.readString(file);
          String name = file.getFileName().toString().replace(".java", "");
          Matcher declaration = Pattern.compile("\\n(?:public |final |abstract )*(?:class|record|enum|interface) "
              + name + "\\b").matcher(text);
          if (!declaration.find()) {
            continue;
          }
          String head = text.substring(0, declaration.start());
          int comment = head.lastIndexOf("/**");
          if (comment < 0) {
            continue;
          }
          Matcher m = SPLIT.matcher(head.substring(comment));
          if (m.find()) {
            String pkg = packageOf(text);
            String origin = m.group(1).contains(".") ? m.group(1) : pkg + "." + m.group(1);
            out.add(new Split(pkg + "." + name, origin));
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return out;
  }

  private static String packageOf(String text) {
    Matcher m = Pattern.compile("(?m)^package ([\\w.]+);").matcher(text);
    return m.find() ? m.group(1) : "";
  }

  private static List<Path> mainSourceRoots() {
    try (Stream<Path> modules = Files.list(ROOT)) {
      return modules.map(m -> m.resolve("src/main/java")).filter(Files::isDirectory).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
