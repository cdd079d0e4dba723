package org.lockvisor.experiment.runner;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.lockvisor.core.plugin.Plugin;
import org.lockvisor.experiment.model.ExperimentPlugins;

/**
 * Names the plugin behind a failure: for an exception thrown while the machine runs, the
 * innermost stack frame whose class lives in a registered plugin's package. Several built-ins may
 * share a package (the lock built-ins do); then the candidates are listed.
 */
final class PluginFault {

  private final Map<String, TreeSet<String>> byPackage = new LinkedHashMap<>();

  PluginFault(ExperimentPlugins plugins) {
    add(plugins.arches().values());
    add(plugins.schedulers().values());
    add(plugins.locks().values());
    add(plugins.devices().values());
    add(plugins.workloads().values());
  }

  private void add(Iterable<? extends Plugin> plugins) {
    for (Plugin p : plugins) {
      String pkg = p.getClass().getPackageName();
      byPackage.computeIfAbsent(pkg, k -> new TreeSet<>()).add(p.kind() + " [" + p.name() + "]");
    }
  }

  /** "device [virtio-blk]", "one of lock [qspinlock], lock [ticket]", or empty when no plugin code is on the stack. */
  String attribute(Throwable ex) {
    for (Throwable t = ex; t != null; t = t.getCause()) {
      for (StackTraceElement frame : t.getStackTrace()) {
        String cls = frame.getClassName();
        int dot = cls.lastIndexOf('.');
        String pkg = dot < 0 ? "" : cls.substring(0, dot);
        TreeSet<String> names = byPackage.get(pkg);
        if (names != null) {
          return names.size() == 1 ? names.first() : "one of " + String.join(", ", new ArrayList<>(names));
        }
      }
    }
    return "";
  }

  /** One line: the exception's type and message. */
  static String describe(Throwable ex) {
    String msg = ex.getMessage();
    List<String> parts = new ArrayList<>();
    parts.add(ex.getClass().getSimpleName());
    if (msg != null && !msg.isBlank()) {
      parts.add(msg.replace('\n', ' '));
    }
    return String.join(": ", parts);
  }
}
