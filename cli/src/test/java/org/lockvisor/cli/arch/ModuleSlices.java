package org.lockvisor.cli.arch;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;

/**
 * The packages of one module as slices, the module's root package one of them: a class in {@code
 * org.lockvisor.experiment} is in slice {@code (root)}, one in {@code
 * org.lockvisor.experiment.runner} or below in slice {@code runner}; classes outside the module
 * are in none. ArchUnit's {@code slices().matching("org.lockvisor.experiment.(*)..")} assigns only
 * sub-packages, so a cycle through the root package would pass unseen.
 */
final class ModuleSlices implements SliceAssignment {

  static final String ROOT = "(root)";

  private final String root;

  private ModuleSlices(String root) {
    this.root = root;
  }

  /** The slices of the module whose packages all start with {@code rootPackage}. */
  static ModuleSlices rootedAt(String rootPackage) {
    return new ModuleSlices(rootPackage);
  }

  @Override
  public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
    String pkg = javaClass.getPackageName();
    if (pkg.equals(root)) {
      return SliceIdentifier.of(ROOT);
    }
    if (!pkg.startsWith(root + ".")) {
      return SliceIdentifier.ignore();
    }
    String rest = pkg.substring(root.length() + 1);
    int dot = rest.indexOf('.');
    return SliceIdentifier.of(dot < 0 ? rest : rest.substring(0, dot));
  }

  @Override
  public String getDescription() {
    return "packages of " + root + " (its root package as slice " + ROOT + ", each sub-package with what is below it)";
  }
}
