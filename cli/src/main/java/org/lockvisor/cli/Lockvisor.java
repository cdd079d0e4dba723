package org.lockvisor.cli;

import com.google.inject.Injector;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.lockvisor.cli.inject.Bootstrap;
import org.lockvisor.core.plugin.DidYouMean;
import org.lockvisor.core.plugin.PluginDiscovery;
import org.lockvisor.core.plugin.PluginDiscoveryException;
import org.lockvisor.core.plugin.PluginPath;
import org.lockvisor.core.plugin.UnknownPluginException;
import org.lockvisor.experiment.SimulationFailedException;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.experiment.model.InvalidExperimentException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.UnmatchedArgumentException;
import picocli.CommandLine;

/**
 * The {@code lockvisor} command. Exit status: 0 success; 2 bad usage or bad input, reported as
 * exactly one line on stderr and never a stack trace; 1 a simulation that failed, or a bug.
 */
@Command(
    name = "lockvisor",
    mixinStandardHelpOptions = true,
    versionProvider = BuildInfo.class,
    description = "Simulates, event by event, what locks do inside virtualized Linux.",
    subcommands = {PluginsCommand.class, ReproduceCommand.class, RunCommand.class, ExploreCommand.class,
        CalibrateCommand.class,
        ValidateCommand.class,
        SweepCommand.class, MergeCommand.class, CommandLine.HelpCommand.class})
public final class Lockvisor implements Runnable {

  public static final int EXIT_OK = 0;
  public static final int EXIT_FAILED = 1;
  public static final int EXIT_USAGE = 2;

  /** Problems printed at most; the rest are counted in one more line. */
  static final int MAX_PROBLEM_LINES = 50;
  /** Characters of one message line printed at most. */
  static final int MAX_LINE = 1_000;

  @Spec
  private CommandSpec spec;

  @Option(names = "--debug", description = "Log plugin discovery and print stack traces of failures.")
  private boolean debug;

  @Option(names = "--plugins", paramLabel = "PATH[:PATH...]",
      description = "Plugin jars, or directories of jars, to load besides the built-ins (default: the"
          + " LOCKVISOR_PLUGINS environment variable). One class loader for all of them; see README.")
  private String plugins;

  private final ClassLoader classPathLoader;
  private final Function<String, String> environment;
  private final Function<ClassLoader, Injector> bootstrap;
  private PluginPath pluginPath;
  private ClassLoader pluginLoader;
  private Injector injector;

  Lockvisor(ClassLoader classPathLoader, Function<String, String> environment) {
    this(classPathLoader, environment, Bootstrap::standard);
  }

  /** As above, the application injector built by {@code bootstrap} from the plugin loader (tests give their own). */
  Lockvisor(ClassLoader classPathLoader, Function<String, String> environment,
      Function<ClassLoader, Injector> bootstrap) {
    this.classPathLoader = classPathLoader;
    this.environment = environment;
    this.bootstrap = bootstrap;
  }

  public static void main(String[] args) {
    BuildWatchdog.ownsProcess = true;
    System.exit(commandLine(Lockvisor.class.getClassLoader()).execute(args));
  }

  /**
   * The configured command line, discovering plugins in {@code classPathLoader} (plus the jars of
   * {@code --plugins} or {@code LOCKVISOR_PLUGINS}) when first needed.
   */
  public static CommandLine commandLine(ClassLoader classPathLoader) {
    return commandLine(classPathLoader, System::getenv);
  }

  /** As {@link #commandLine(ClassLoader)}, reading environment variables from {@code environment}. */
  static CommandLine commandLine(ClassLoader classPathLoader, Function<String, String> environment) {
    return commandLine(new Lockvisor(classPathLoader, environment));
  }

  /**
   * The command line over an injector {@code bootstrap} builds from the plugin loader: a test
   * binds its own collaborators (a mocked reproduction) where the built-ins would be.
   */
  static CommandLine commandLineBootstrappedBy(ClassLoader classPathLoader,
      Function<ClassLoader, Injector> bootstrap) {
    return commandLine(new Lockvisor(classPathLoader, System::getenv, bootstrap));
  }

  private static CommandLine commandLine(Lockvisor lockvisor) {
    CommandLine commandLine = new CommandLine(lockvisor);
    commandLine.setParameterExceptionHandler(Lockvisor::handleParameterException);
    commandLine.setExecutionExceptionHandler(Lockvisor::handleExecutionException);
    commandLine.setExecutionStrategy(Lockvisor::executeCatchingErrors);
    return commandLine;
  }

  /**
   * Runs the chosen command; a {@link StackOverflowError} or {@link OutOfMemoryError}, which
   * picocli's handler does not see, becomes one line with its advice and exit status 1.
   */
  private static int executeCatchingErrors(CommandLine.ParseResult parsed) {
    try {
      return new CommandLine.RunLast().execute(parsed);
    } catch (StackOverflowError | OutOfMemoryError e) {
      CommandLine command = parsed.commandSpec().commandLine();
      while (parsed.hasSubcommand()) {
        parsed = parsed.subcommand();
        command = parsed.commandSpec().commandLine();
      }
      PrintWriter err = command.getErr();
      err.println("lockvisor: " + resourceMessage(command.getCommandSpec().qualifiedName(), e));
      if (isDebug(command)) {
        e.printStackTrace(err);
      }
      err.flush();
      return EXIT_FAILED;
    }
  }

  /** The one line for an exhausted JVM resource, with what to do about it. */
  static String resourceMessage(String command, Error e) {
    if (e instanceof OutOfMemoryError) {
      long max = Runtime.getRuntime().maxMemory();
      return "out of memory in [" + command + "] (Java heap at most " + (max >> 20) + " MiB): the experiment"
          + " needs more than the heap holds; make it smaller (fewer tasks, requests in flight, sweep points or"
          + " trace events), give --max-memory a lower value so the estimate refuses it up front, or raise the"
          + " heap with JAVA_TOOL_OPTIONS=-Xmx<size>";
    }
    return "stack overflow in [" + command + "]: an input is nested or repeated too deeply to process; simplify"
        + " the experiment file or the --set paths (rerun with --debug for the stack trace)";
  }

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "missing command: expected one of " + spec.subcommands().keySet());
  }

  /**
   * The class loader plugins are discovered in: the class path's, or one loader over the jars of
   * {@code --plugins} (else {@code LOCKVISOR_PLUGINS}) whose parent it is ({@link PluginPath}).
   *
   * @throws PluginDiscoveryException for a path element that is not a jar or a directory of jars
   */
  ClassLoader pluginLoader() {
    if (pluginLoader == null) {
      pluginLoader = pluginPath().loader(classPathLoader);
    }
    return pluginLoader;
  }

  private PluginPath pluginPath() {
    if (pluginPath == null) {
      pluginPath = PluginPath.of(plugins, environment.apply(PluginPath.ENVIRONMENT_VARIABLE));
    }
    return pluginPath;
  }

  /**
   * {@code lockvisor} as a replay command must start it: with {@code --plugins} naming the jars
   * this invocation loaded (from the option or the environment), so the replay finds them.
   */
  String launcher() {
    PluginPath path = pluginPath();
    if (path.jars().isEmpty()) {
      return "lockvisor";
    }
    return "lockvisor --plugins " + CheckOptions.quote(String.join(java.io.File.pathSeparator,
        path.jars().stream().map(Object::toString).toList()));
  }

  /** An environment variable as this invocation sees it (tests give their own). */
  String environment(String name) {
    return environment.apply(name);
  }

  /** The plugin jars this invocation loads ({@code --plugins} or the environment), absolute; none by default. */
  java.util.List<java.nio.file.Path> pluginJars() {
    return pluginPath().jars();
  }

  /** The application injector, built once per invocation and only by commands that need plugins. */
  Injector injector() {
    if (injector == null) {
      ClassLoader pluginLoader = pluginLoader();
      injector = debug ? bootstrapLoggingDiscovery() : bootstrap.apply(pluginLoader);
    }
    return injector;
  }

  /** With --debug, discovery's FINE log (what was registered from where) goes to stderr. */
  private Injector bootstrapLoggingDiscovery() {
    Logger logger = Logger.getLogger(PluginDiscovery.class.getName());
    PrintWriter err = spec.commandLine().getErr();
    Handler handler = new Handler() {
      @Override
      public void publish(LogRecord record) {
        err.println("lockvisor: " + record.getMessage());
      }

      @Override
      public void flush() {
        err.flush();
      }

      @Override
      public void close() {}
    };
    Level previous = logger.getLevel();
    logger.setLevel(Level.FINE);
    logger.addHandler(handler);
    try {
      return bootstrap.apply(pluginLoader());
    } finally {
      logger.removeHandler(handler);
      logger.setLevel(previous);
      err.flush();
    }
  }

  private static int handleParameterException(ParameterException e, String[] args) {
    CommandLine command = e.getCommandLine();
    String suggestion = "";
    if (e instanceof UnmatchedArgumentException unmatched && command.getParent() == null
        && !unmatched.getUnmatched().isEmpty() && !unmatched.getUnmatched().get(0).startsWith("-")) {
      // "lockvisor rn x.yaml": the first word is a mistyped command, not an extra argument
      command.getErr().println("lockvisor: " + oneLine(DidYouMean.unknownMessage("command",
          unmatched.getUnmatched().get(0), command.getSubcommands().keySet())) + " (see 'lockvisor --help')");
      command.getErr().flush();
      return EXIT_USAGE;
    }
    if (e instanceof UnmatchedArgumentException unmatched) {
      suggestion = suggestOption(command, unmatched.getUnmatched());
    }
    command.getErr().println("lockvisor: " + oneLine(e.getMessage()) + suggestion
        + " (see '" + command.getCommandSpec().qualifiedName() + " --help')");
    command.getErr().flush();
    return EXIT_USAGE;
  }

  /** "did you mean [--format]?" for the first unmatched argument that looks like a mistyped option. */
  private static String suggestOption(CommandLine command, List<String> unmatched) {
    Set<String> options = command.getCommandSpec().optionsMap().keySet();
    for (String argument : unmatched) {
      if (argument.startsWith("-")) {
        String hint = DidYouMean.hint(argument.split("=", 2)[0], options);
        if (!hint.isEmpty()) {
          return hint;
        }
      }
    }
    return "";
  }

  private static int handleExecutionException(Exception e, CommandLine command, CommandLine.ParseResult parsed) {
    PrintWriter err = command.getErr();
    int exitCode;
    if (e instanceof InvalidExperimentException invalid) {
      // One line per problem, each with its file and path.
      List<String> lines = invalid.lines();
      lines.stream().limit(MAX_PROBLEM_LINES).forEach(line -> err.println("lockvisor: " + oneLine(line)));
      if (lines.size() > MAX_PROBLEM_LINES) {
        err.println("lockvisor: " + invalid.source() + (invalid.source().isEmpty() ? "" : ": ")
            + (lines.size() - MAX_PROBLEM_LINES) + " more problems not shown (" + lines.size() + " in all)");
      }
      exitCode = EXIT_USAGE;
    } else if (e instanceof UserInputException || e instanceof UnknownPluginException
        || e instanceof PluginDiscoveryException) {
      // The user's input or the plugin jars they put on the class path: one line, no trace.
      err.println("lockvisor: " + oneLine(e.getMessage()));
      exitCode = EXIT_USAGE;
    } else if (e instanceof SimulationFailedException) {
      err.println("lockvisor: " + oneLine(e.getMessage()));
      exitCode = EXIT_FAILED;
    } else if (e instanceof UncheckedIOException) {
      err.println("lockvisor: " + oneLine(e.getMessage()) + ": " + ioReason(e.getCause()));
      exitCode = EXIT_FAILED;
    } else {
      err.println("lockvisor: internal error in [" + command.getCommandSpec().qualifiedName() + "]: "
          + oneLine(String.valueOf(e)) + (isDebug(command) ? "" : " (rerun with --debug for the stack trace)"));
      exitCode = EXIT_FAILED;
    }
    if (isDebug(command) && exitCode == EXIT_FAILED) {
      e.printStackTrace(err);
    }
    err.flush();
    return exitCode;
  }

  /**
   * An I/O failure in words, without the libraries' class names: {@code no space left on device}.
   * The cause chain is walked to its root (an XML or image writer wraps the file system's error in
   * its own exceptions, a SAX or transformer chain), and a file system's reason wins.
   */
  static String ioReason(Throwable cause) {
    Throwable root = cause;
    for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof java.nio.file.AccessDeniedException) {
        return "permission denied";
      }
      if (t instanceof java.nio.file.NoSuchFileException) {
        return "no such file or directory";
      }
      if (t instanceof java.nio.file.FileSystemException fs && fs.getReason() != null) {
        return fs.getReason();
      }
      root = t;
    }
    String message = root == null ? null : root.getMessage();
    if (message == null || message.isBlank()) {
      message = cause == null ? null : cause.getMessage();
    }
    if (message == null || message.isBlank()) {
      return "I/O error";
    }
    // "javax.xml.transform.TransformerException: org.xml.sax.SAXException: No space left on device"
    String plain = CLASS_PREFIX.matcher(message.strip()).replaceAll("");
    return plain.isBlank() ? "I/O error" : firstLine(plain);
  }

  /** A qualified exception class name and its colon at the head of a message. */
  private static final java.util.regex.Pattern CLASS_PREFIX =
      java.util.regex.Pattern.compile("(?:[a-z_][\\w$]*\\.)+[A-Z][\\w$]*(?:Exception|Error)(?::\\s*|$)");

  private static String firstLine(String text) {
    int nl = text.indexOf('\n');
    return (nl < 0 ? text : text.substring(0, nl)).strip();
  }

  private static boolean isDebug(CommandLine command) {
    CommandLine root = command;
    while (root.getParent() != null) {
      root = root.getParent();
    }
    return root.getCommand() instanceof Lockvisor lockvisor && lockvisor.debug;
  }

  /**
   * Messages from nested causes may span lines; the contract is one line. Control characters a
   * user's input brought into the message (BEL, ESC of a terminal sequence) are shown escaped,
   * {@code [\u0007]}, never sent raw to the terminal.
   */
  static String oneLine(String message) {
    if (message == null) {
      return "";
    }
    String line = escapeControls(message.strip().replaceAll("\\s*\\R\\s*", "; "));
    return line.length() <= MAX_LINE ? line
        : line.substring(0, MAX_LINE) + "... (" + (line.length() - MAX_LINE) + " more characters)";
  }

  /** {@code text} with every C0/C1 control character and DEL as {@code \\uXXXX}. */
  static String escapeControls(String text) {
    StringBuilder b = null;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
        if (b == null) {
          b = new StringBuilder(text.length() + 8).append(text, 0, i);
        }
        b.append(String.format("\\u%04x", (int) c));
      } else if (b != null) {
        b.append(c);
      }
    }
    return b == null ? text : b.toString();
  }
}
