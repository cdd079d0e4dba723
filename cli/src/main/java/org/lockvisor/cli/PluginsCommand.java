package org.lockvisor.cli;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSortedMap;
import com.google.common.collect.ImmutableSortedSet;
import java.io.PrintWriter;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.lockvisor.arch.catalog.ArchProfileMarkdown;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.ArchProfileFactory;
import org.lockvisor.arch.spi.Cost;
import org.lockvisor.cli.inject.PluginCatalog;
import org.lockvisor.core.plugin.DidYouMean;
import org.lockvisor.core.plugin.PluginDescriptor;
import org.lockvisor.core.plugin.PluginOption;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.model.HypervisorSettings;
import org.lockvisor.reproductions.api.Reproduction;
import org.lockvisor.reproductions.api.ReproductionParameter;
import org.lockvisor.reproductions.api.Reproductions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code lockvisor plugins}: every registered plugin, as the plugins describe themselves. */
@Command(name = "plugins", mixinStandardHelpOptions = true,
    description = "Lists registered plugins: kind, name, version, summary (JSON adds capabilities and options,"
        + " a profile's costs and a reproduction's what-ifs).")
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
      description = "Print the options of plugin NAME: type, default, allowed values or range, documentation;"
          + " for an arch profile also its costs (value, unit, tag, source), for a reproduction its --set"
          + " parameters.")
  private String optionsOf;

  @Option(names = "--wide", description = "One line per plugin with its jar's path, however long (default: the"
      + " summaries wrapped to the terminal's width, $COLUMNS, else 100 columns).")
  private boolean wide;

  /** The terminal's width from {@code COLUMNS} (a shell's), else 100. */
  private int width() {
    String columns = lockvisor.environment("COLUMNS");
    try {
      int c = columns == null ? 100 : Integer.parseInt(columns.strip());
      return Math.max(60, Math.min(c, 1000));
    } catch (NumberFormatException e) {
      return 100;
    }
  }

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
        out.println(Json.write(Json.plugins(named, reproductions(), catalog::origin, profiles())));
      } else {
        Reproductions reproductions = reproductions();
        ImmutableSortedMap<String, ArchProfileFactory> profiles = profiles();
        named.forEach(p -> {
          if (Reproduction.KIND.equals(p.kind()) && reproductions.names().contains(p.name())) {
            printParameters(out, reproductions.choose(p.name()));
          } else if (ArchProfileFactory.KIND.equals(p.kind()) && profiles.containsKey(p.name())) {
            printCosts(out, p, profiles.get(p.name()).create());
            printHypervisor(out, profiles.get(p.name()));
          } else {
            printOptions(out, p);
          }
        });
      }
      out.flush();
      return;
    }
    if (format == OutputFormat.JSON) {
      out.println(Json.write(Json.plugins(plugins, reproductions(), catalog::origin, profiles())));
    } else if (plugins.isEmpty()) {
      out.println("no plugins registered" + (kind == null ? "" : " of kind [" + kind + "]")
          + "; kinds: " + catalog.kinds());
    } else {
      printTable(out, plugins, catalog, wide ? 0 : width());
    }
    out.flush();
  }

  /** The arch profiles of the class path and of the plugin jars. */
  private ImmutableSortedMap<String, ArchProfileFactory> profiles() {
    return lockvisor.injector().getInstance(ExperimentPlugins.class).arches();
  }

  private Reproductions reproductions() {
    return lockvisor.injector().getInstance(Reproductions.class);
  }

  /**
   * A reproduction has no experiment-file options; what a user can change are its what-ifs
   * ({@code reproduce NAME --set ...}): its declared parameters and the costs of the profiles it
   * builds machines on.
   */
  private static void printParameters(PrintWriter out, Reproduction r) {
    out.println(r.kind() + " " + r.name() + ": " + r.summary());
    out.println("  what-ifs: lockvisor reproduce " + r.name() + " --set KEY=VALUE (labelled WHAT-IF, not the"
        + " reproduction)");
    if (r.parameters().isEmpty()) {
      out.println("  (no parameters)");
    } else {
      int nameWidth = "PARAMETER".length();
      int allowedWidth = "ALLOWED".length();
      for (ReproductionParameter<?> p : r.parameters()) {
        nameWidth = Math.max(nameWidth, p.name().length());
        allowedWidth = Math.max(allowedWidth, p.allowed().length());
      }
      String row = "  %-" + nameWidth + "s  %-" + allowedWidth + "s  %s%n";
      out.printf(row, "PARAMETER", "ALLOWED", "DOC");
      for (ReproductionParameter<?> p : r.parameters()) {
        String path = Json.pathText(r, p);
        out.printf(row, p.name(), p.allowed(), p.description() + (path.isEmpty() ? "" : " (path " + path + ")"));
      }
    }
    if (!r.experimentFiles().isEmpty()) {
      out.println("  experiment files: " + r.experimentFiles() + " (any of their paths: --set PATH=VALUE as run --set;"
          + " the files: lockvisor reproduce " + r.name() + " --export-experiments DIR)");
    }
    if (!r.archProfiles().isEmpty()) {
      out.println("  costs: cost.<profile>.<COST_KEY>=<number> for profiles "
          + ImmutableSortedSet.copyOf(r.archProfiles()) + " (keys: lockvisor plugins --options <profile>)");
    }
    if (r.parameters().stream().anyMatch(p -> p.domain().isPresent()) || !r.envelopeCosts().isEmpty()) {
      out.println("  setup envelope (lockvisor reproduce " + r.name() + " --envelope, docs/envelopes.md): default,"
          + " plausible range, source");
      for (ReproductionParameter<?> p : r.parameters()) {
        p.domain().ifPresent(d -> out.println("    " + p.name() + " = " + p.defaultValue().orElseThrow() + "  "
            + ReproductionParameter.domainText(d) + "  (" + d.source() + ")"));
      }
      for (String c : r.envelopeCosts()) {
        out.println("    " + c + "  (the estimate's range: lockvisor plugins --options <profile>)");
      }
    }
  }

  /**
   * An arch profile has no options: its constants are what a what-if changes ({@code reproduce
   * NAME --set cost.<profile>.<KEY>=<number>}); one line per cost with unit, tag and source.
   */
  private static void printCosts(PrintWriter out, PluginDescriptor p, ArchProfile profile) {
    printOptions(out, p);
    out.println("  costs (what-ifs: lockvisor reproduce NAME --set cost." + p.name() + ".<COST_KEY>=<number>):");
    int keyWidth = "COST_KEY".length();
    int valueWidth = "VALUE".length();
    for (Cost c : profile.costs().costs()) {
      keyWidth = Math.max(keyWidth, c.key().name().length());
      valueWidth = Math.max(valueWidth, value(c).length());
    }
    String row = "  %-" + keyWidth + "s  %" + valueWidth + "s  %-6s  %-4s  %s%n";
    out.printf(row, "COST_KEY", "VALUE", "UNIT", "TAG", "SOURCE");
    for (Cost c : profile.costs().costs()) {
      out.printf(row, c.key().name(), value(c), c.key().unit().symbol(),
          c.isNotApplicable() ? "n/a" : c.source().confidence().name(), c.source().reference());
    }
  }

  /**
   * The keys of the experiment's {@code hypervisor:} section on this profile: default, the values
   * it allows (or that it cannot take effect here), and what each sets.
   */
  private static void printHypervisor(PrintWriter out, ArchProfileFactory factory) {
    out.println("  hypervisor (the experiment's hypervisor: section; key, default, allowed, what it sets):");
    for (String line : HypervisorSettings.describe(factory)) {
      out.println("  " + line);
    }
  }

  private static String value(Cost c) {
    return c.isNotApplicable() ? "-" : ArchProfileMarkdown.format(c.value());
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

  /** KIND NAME VERSION SUMMARY, and JAR (built-in, or the plugin jar's path) last. */
  /**
   * The table: KIND, NAME, VERSION and SUMMARY, the summary wrapped to {@code width} columns (its
   * further lines under its first), and the JAR column as a number whose path is listed once below
   * the table. With {@code --wide}, one line per plugin with the jar's path, as long as it takes.
   */
  private static void printTable(PrintWriter out, List<PluginDescriptor> plugins, PluginCatalog catalog, int width) {
    int kindWidth = "KIND".length();
    int nameWidth = "NAME".length();
    int versionWidth = "VERSION".length();
    int summaryWidth = "SUMMARY".length();
    for (PluginDescriptor p : plugins) {
      kindWidth = Math.max(kindWidth, p.kind().length());
      nameWidth = Math.max(nameWidth, p.name().length());
      versionWidth = Math.max(versionWidth, p.version().length());
      summaryWidth = Math.max(summaryWidth, p.summary().length());
    }
    if (width <= 0) {
      String row = "%-" + kindWidth + "s  %-" + nameWidth + "s  %-" + versionWidth + "s  %-" + summaryWidth
          + "s  %s%n";
      out.printf(row, "KIND", "NAME", "VERSION", "SUMMARY", "JAR");
      for (PluginDescriptor p : plugins) {
        out.printf(row, p.kind(), p.name(), p.version(), p.summary(), catalog.origin(p));
      }
      return;
    }
    List<String> jars = new java.util.ArrayList<>();
    for (PluginDescriptor p : plugins) {
      String jar = String.valueOf(catalog.origin(p));
      if (!jars.contains(jar)) {
        jars.add(jar);
      }
    }
    int jarWidth = Math.max("JAR".length(), Integer.toString(jars.size()).length() + 2);
    int left = kindWidth + nameWidth + versionWidth + 6;
    int room = Math.max(30, width - left - jarWidth - 2);
    String row = "%-" + kindWidth + "s  %-" + nameWidth + "s  %-" + versionWidth + "s  %-" + room + "s  %s";
    out.println(String.format(java.util.Locale.ROOT, row, "KIND", "NAME", "VERSION", "SUMMARY", "JAR").stripTrailing());
    for (PluginDescriptor p : plugins) {
      List<String> lines = wrap(p.summary(), room);
      String jar = "[" + (jars.indexOf(String.valueOf(catalog.origin(p))) + 1) + "]";
      out.println(String.format(java.util.Locale.ROOT, row, p.kind(), p.name(), p.version(), lines.get(0), jar)
          .stripTrailing());
      for (String more : lines.subList(1, lines.size())) {
        out.println((" ".repeat(left) + more).stripTrailing());
      }
    }
    out.println();
    for (int i = 0; i < jars.size(); i++) {
      out.println("[" + (i + 1) + "] " + jars.get(i));
    }
    out.println("(--wide: one line per plugin, with the jar's path)");
  }

  /** {@code text} in lines of at most {@code width} characters, broken at spaces where it can be. */
  static List<String> wrap(String text, int width) {
    List<String> lines = new java.util.ArrayList<>();
    String rest = text.strip();
    while (rest.length() > width) {
      int cut = rest.lastIndexOf(' ', width);
      if (cut <= 0) {
        cut = width;
      }
      lines.add(rest.substring(0, cut).stripTrailing());
      rest = rest.substring(cut).strip();
    }
    lines.add(rest);
    return lines;
  }
}
