package org.lockvisor.cli;

import com.google.common.collect.ImmutableList;
import java.io.PrintWriter;
import java.util.List;
import org.lockvisor.core.plugin.PluginDescriptor;
import org.lockvisor.experiment.inject.PluginCatalog;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code lockvisor plugins}: every registered plugin, as the plugins describe themselves. */
@Command(name = "plugins", mixinStandardHelpOptions = true,
    description = "Lists registered plugins: kind, name, version, summary (JSON adds capabilities and options).")
public final class PluginsCommand implements Runnable {

  @ParentCommand
  private Lockvisor lockvisor;

  @Spec
  private CommandSpec spec;

  @Option(names = "--format", paramLabel = "text|json", defaultValue = "text",
      converter = OutputFormat.Converter.class, description = "Output format (default: ${DEFAULT-VALUE}).")
  private OutputFormat format;

  @Option(names = "--kind", paramLabel = "KIND", description = "Only plugins of this kind, e.g. lock.")
  private String kind;

  @Override
  public void run() {
    PluginCatalog catalog = lockvisor.injector().getInstance(PluginCatalog.class);
    ImmutableList<PluginDescriptor> plugins = kind == null ? catalog.all() : catalog.ofKind(kind);
    PrintWriter out = spec.commandLine().getOut();
    if (format == OutputFormat.JSON) {
      out.println(Json.write(Json.plugins(plugins)));
    } else if (plugins.isEmpty()) {
      out.println("no plugins registered" + (kind == null ? "" : " of kind [" + kind + "]")
          + "; kinds: " + catalog.kinds());
    } else {
      printTable(out, plugins);
    }
    out.flush();
  }

  private static void printTable(PrintWriter out, List<PluginDescriptor> plugins) {
    int kindWidth = "KIND".length();
    int nameWidth = "NAME".length();
    int versionWidth = "VERSION".length();
    for (PluginDescriptor p : plugins) {
      kindWidth = Math.max(kindWidth, p.kind().length());
      nameWidth = Math.max(nameWidth, p.name().length());
      versionWidth = Math.max(versionWidth, p.version().length());
    }
    String row = "%-" + kindWidth + "s  %-" + nameWidth + "s  %-" + versionWidth + "s  %s%n";
    out.printf(row, "KIND", "NAME", "VERSION", "SUMMARY");
    for (PluginDescriptor p : plugins) {
      out.printf(row, p.kind(), p.name(), p.version(), p.summary());
    }
  }
}
