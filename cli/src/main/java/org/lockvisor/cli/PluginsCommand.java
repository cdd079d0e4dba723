package org.lockvisor.cli;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSortedSet;
import java.io.PrintWriter;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.lockvisor.core.plugin.DidYouMean;
import org.lockvisor.core.plugin.PluginDescriptor;
import org.lockvisor.core.plugin.PluginOption;
import org.lockvisor.experiment.UserInputException;
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

  @Option(names = "--options", paramLabel = "NAME",
      description = "Print the options of plugin NAME: type, default, allowed values or range, documentation.")
  private String optionsOf;

  @Override
  public void run() {
    PluginCatalog catalog = lockvisor.injector().getInstance(PluginCatalog.class);
    ImmutableList<PluginDescriptor> plugins = kind == null ? catalog.all() : catalog.ofKind(kind);
    PrintWriter out = spec.commandLine().getOut();
    if (optionsOf != null) {
      ImmutableList<PluginDescriptor> named = plugins.stream().filter(p -> p.name().equals(optionsOf))
          .collect(ImmutableList.toImmutableList());
      if (named.isEmpty()) {
        throw new UserInputException(DidYouMean.unknownMessage(kind == null ? "plugin" : kind + " plugin", optionsOf,
            plugins.stream().map(PluginDescriptor::name).collect(ImmutableSortedSet.toImmutableSortedSet(
                Comparator.naturalOrder()))));
      }
      if (format == OutputFormat.JSON) {
        out.println(Json.write(Json.plugins(named)));
      } else {
        named.forEach(p -> printOptions(out, p));
      }
      out.flush();
      return;
    }
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

  private static void printOptions(PrintWriter out, PluginDescriptor p) {
    out.println(p.kind() + " " + p.name() + ": " + p.summary());
    if (p.options().isEmpty()) {
      out.println("  (no options)");
      return;
    }
    int nameWidth = "OPTION".length();
    int typeWidth = "TYPE".length();
    int defaultWidth = "DEFAULT".length();
    int allowedWidth = "ALLOWED".length();
    for (PluginOption o : p.options()) {
      nameWidth = Math.max(nameWidth, o.name().length());
      typeWidth = Math.max(typeWidth, type(o).length());
      defaultWidth = Math.max(defaultWidth, display(o.defaultValue()).length());
      allowedWidth = Math.max(allowedWidth, allowed(o).length());
    }
    String row = "  %-" + nameWidth + "s  %-" + typeWidth + "s  %-" + defaultWidth + "s  %-" + allowedWidth + "s  %s%n";
    out.printf(row, "OPTION", "TYPE", "DEFAULT", "ALLOWED", "DOC");
    for (PluginOption o : p.options()) {
      out.printf(row, o.name(), type(o), display(o.defaultValue()), allowed(o), o.doc());
    }
  }

  private static String type(PluginOption o) {
    return o.type().name().toLowerCase(Locale.ROOT);
  }

  private static String display(String value) {
    return value == null || value.isEmpty() ? "\"\"" : value;
  }

  private static String allowed(PluginOption o) {
    return switch (o.type()) {
      case BOOLEAN, ENUM -> String.join("|", o.allowed());
      case INTEGER, DURATION_NS -> "[" + (long) o.min() + ", " + (long) o.max() + "]";
      case DOUBLE -> "[" + o.min() + ", " + o.max() + "]";
      case STRING -> "any";
    };
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
