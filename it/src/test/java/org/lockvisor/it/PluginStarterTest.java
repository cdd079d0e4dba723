package org.lockvisor.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A third-party author's path, end to end, from an empty folder: generate a lock, a device, a
 * workload and an arch profile plugin from the archetypes, build them offline ({@code mvn -o
 * package}, which runs each one's contract test against the kits), and run {@code ./lockvisor
 * --plugins ...} on an experiment that chooses all four by name and sets their options in YAML.
 * The plugins' own options must change the result: a slower completion timer of the device lowers
 * fio's IOPS, a longer critical section of the workload lowers its rate, and the lock's backoff
 * (a ticket lock backing off by queue position, set in the kernel's {@code locks:} section) lowers
 * it when it counts instead of reading the lock word. The generated lock's own tests, run by its
 * offline build, show the kit's liveness invariant failing on a planted starving variant and
 * passing on the real lock. The provenance names each plugin with the version its jar's manifest
 * carries; the generated classes are named after the plugin.
 *
 * <p>The same build compiles a reproduction plugin written by hand, the test resource {@code
 * third-party-reproduction/} (parent {@code lockvisor-plugin-parent}, which imports the bom; one
 * {@code @AutoService(Reproduction.class)} class; one shipped experiment file of built-in plugins:
 * locktorture on a ticket spinlock). Through {@code ./lockvisor --plugins JAR} it is listed with
 * its manifest's version, reproduces (its band: the wait per acquisition rises with the hold),
 * takes a what-if through its path-bound parameter (labelled, and more writers wait longer),
 * refuses a bad {@code --set} in one line, exports its file, and {@code run} of that file gives
 * its runs' fingerprints; a jar shipping a file of the same name is refused at start-up.
 *
 * <p>Every Maven call uses a private local repository: a temporary directory whose entries link to
 * the user's repository for third-party artifacts, with lockvisor's own artifacts copied in from
 * this reactor's {@code target/} directories. Nothing lockvisor is written to {@code ~/.m2}, so
 * other builds never pick up these SNAPSHOTs. Runs in the integration-test phase of {@code mvn
 * verify}, when every module is packaged. One Maven invocation builds all five projects (a Maven
 * start is the expensive part); the tests share it.
 */
class PluginStarterTest {

  private static final Duration MAVEN_TIMEOUT = Duration.ofMinutes(5);
  private static final ObjectMapper JSON = new ObjectMapper();
  /** The archetype goal, pinned and fully qualified: the short form asks a remote repository for the version. */
  static final String ARCHETYPE_GENERATE = "org.apache.maven.plugins:maven-archetype-plugin:3.4.0:generate";
  private static final List<String> ARCHETYPE_PLUGINS = List.of("it-lock", "it-device", "it-workload", "it-profile");
  /** The hand-written reproduction project (test resource) and what it declares. */
  private static final String REPRODUCTION_PROJECT = "third-party-reproduction";
  private static final String REPRODUCTION = "ticket-hold";
  private static final String REPRODUCTION_FILE = "ticket-hold-locktorture";

  private static final Path root = Path.of(System.getProperty("lockvisor.root", "..")).toAbsolutePath().normalize();
  private static final String version = System.getProperty("lockvisor.version", "0.1.0-SNAPSHOT");
  private static final Path userRepository = Path.of(System.getProperty("lockvisor.localRepository",
      System.getProperty("user.home") + "/.m2/repository"));
  private static final String mavenHome = System.getProperty("lockvisor.mavenHome", "");

  @TempDir
  static Path temp;
  /** The projects' folder, after the one offline build. */
  static Path work;
  static long start;

  /**
   * Generates the four archetype projects, copies the reproduction project beside them (with the
   * reactor's lockvisor version as its parent's), and builds all five offline in one Maven run.
   */
  @BeforeAll
  static void generateAndBuild() throws Exception {
    start = System.nanoTime();
    Path repository = PrivateRepository.create(temp.resolve("repository"), userRepository, root, version);
    work = Files.createDirectory(temp.resolve("work"));
    assertThat(work).isEmptyDirectory();

    generate(repository, work, "lock", "it-lock");
    generate(repository, work, "device", "it-device");
    generate(repository, work, "workload", "it-workload");
    generate(repository, work, "arch-profile", "it-profile");
    for (String plugin : ARCHETYPE_PLUGINS) {
      assertThat(work.resolve(plugin).resolve("docs/plugins/" + plugin + ".md")).isRegularFile();
    }
    copyReproductionProject(work.resolve(REPRODUCTION_PROJECT));
    // One reactor over the five projects, only to start Maven once; each builds alone too.
    Files.writeString(work.resolve("pom.xml"), """
        <project xmlns="http://maven.apache.org/POM/4.0.0">
          <modelVersion>4.0.0</modelVersion>
          <groupId>com.example</groupId>
          <artifactId>all</artifactId>
          <version>1.0.0</version>
          <packaging>pom</packaging>
          <modules><module>it-lock</module><module>it-device</module><module>it-workload</module>\
        <module>it-profile</module><module>third-party-reproduction</module></modules>
        </project>
        """);
    maven(repository, work, "package");
  }

  /** Unlinks the private repository's links first, so the temporary folder's clean-up never meets them. */
  @AfterAll
  static void unlinkRepository() throws IOException {
    for (Path directory : List.of(temp.resolve("repository"), temp.resolve("repository/org"))) {
      if (!Files.isDirectory(directory)) {
        continue;
      }
      try (Stream<Path> entries = Files.list(directory)) {
        for (Path entry : entries.toList()) {
          if (Files.isSymbolicLink(entry)) {
            Files.delete(entry);
          }
        }
      }
    }
  }

  /** The reproduction project as an author has it, its parent's version set to this reactor's lockvisor. */
  private static void copyReproductionProject(Path target) throws IOException {
    Path source = root.resolve("it/src/test/resources").resolve(REPRODUCTION_PROJECT);
    try (Stream<Path> files = Files.walk(source)) {
      for (Path file : files.sorted().toList()) {
        Path copy = target.resolve(source.relativize(file).toString());
        if (Files.isDirectory(file)) {
          Files.createDirectories(copy);
        } else {
          Files.copy(file, copy);
        }
      }
    }
    Path pom = target.resolve("pom.xml");
    String text = Files.readString(pom, StandardCharsets.UTF_8);
    Matcher parent = Pattern.compile(
        "(<artifactId>lockvisor-plugin-parent</artifactId>\\s*<version>)([^<]+)(</version>)").matcher(text);
    assertThat(parent.find()).as("the reproduction project's parent is lockvisor-plugin-parent").isTrue();
    Files.writeString(pom, parent.replaceFirst("$1" + Matcher.quoteReplacement(version) + "$3"),
        StandardCharsets.UTF_8);
  }

  @Test
  void archetypes_generatedPluginsBuiltOffline_runByNameWithTheirOptions() throws Exception {
    List<String> jars = new ArrayList<>();
    for (String plugin : ARCHETYPE_PLUGINS) {
      Path jar = work.resolve(plugin).resolve("target/" + plugin + "-1.0.0.jar");
      assertThat(jar).isRegularFile();
      assertThat(work.resolve(plugin).resolve("target/surefire-reports")).as("contract test of %s ran", plugin)
          .isDirectory();
      jars.add(jar.toString());
    }
    Path experiment = temp.resolve("experiment.yaml");
    try (InputStream in = PluginStarterTest.class.getResourceAsStream("/starter-experiment.yaml")) {
      Files.copy(in, experiment);
    }

    Run listed = lockvisor(List.of("--plugins", String.join(":", jars), "plugins", "--format", "json"));
    Run run = lockvisor(List.of("--plugins", String.join(":", jars), "run", experiment.toString(), "--format", "json"));

    assertThat(listed.exit()).as("plugins; stderr: %s", listed.err()).isZero();
    JsonNode plugins = JSON.readTree(listed.out());
    assertThat(find(plugins, "lock", "it-lock").get("jar").asText()).isEqualTo(jars.get(0));
    // the README prints the command this test runs
    assertThat(Files.readString(root.resolve("README.md"))).contains("mvn -o -B " + ARCHETYPE_GENERATE + " \\\n"
        + "    -DarchetypeGroupId=org.lockvisor -DarchetypeArtifactId=lockvisor-archetype-lock");
    // the generated classes are named after the plugin, not "PluginLock"
    assertThat(work.resolve("it-lock/src/main/java/com/example/itlock/ItLockFactory.java")).isRegularFile();
    assertThat(work.resolve("it-device/src/main/java/com/example/itdevice/ItDeviceFactory.java")).isRegularFile();
    assertThat(find(plugins, "device", "it-device").get("version").asText()).isEqualTo("1.0.0");
    assertThat(run.exit()).as("run; stderr: %s", run.err()).isZero();
    JsonNode result = JSON.readTree(run.out());
    JsonNode provenance = result.get("provenance").get("plugins");
    for (String[] kindName : new String[][] {{"lock", "it-lock"}, {"device", "it-device"},
        {"workload", "it-workload"}, {"arch", "it-profile"}}) {
      assertThat(find(provenance, kindName[0], kindName[1]).get("version").asText())
          .as("version of %s in the provenance (Implementation-Version)", kindName[1]).isEqualTo("1.0.0");
    }
    JsonNode base = variant(result, "base");
    JsonNode slowDevice = variant(result, "slow-device");
    JsonNode longHold = variant(result, "long-hold");
    JsonNode countingBackoff = variant(result, "counting-backoff");
    assertThat(base.get("arch").asText()).isEqualTo("it-profile");
    assertThat(base.get("devices").get(0).get("type").asText()).isEqualTo("it-device");
    double iops = workload(base, "fio").get("iops").asDouble();
    double slowIops = workload(slowDevice, "fio").get("iops").asDouble();
    assertThat(slowIops).as("fio IOPS with the device's completion-nsec 80us vs 10us (%s)", iops)
        .isPositive().isLessThan(iops / 2);
    double rate = workload(base, "hammer").get("ops_per_s").asDouble();
    double longHoldRate = workload(longHold, "hammer").get("ops_per_s").asDouble();
    assertThat(longHoldRate).as("workload rate with hold-ns 20us vs 1us (%s)", rate).isPositive()
        .isLessThan(rate / 2);
    // the generated lock's own options, set in the experiment's locks: section, reach the lock the
    // workload creates: backing off 20 us per queue position in a counting delay (no poke ends it)
    // slows the hammer down; backing off reading the lock word (spin) hands the lock on at once
    double countingRate = workload(countingBackoff, "hammer").get("ops_per_s").asDouble();
    assertThat(countingRate).as("workload rate with the lock's backoff: delay vs spin (%s)", rate)
        .isPositive().isLessThan(rate * 0.8);
    assertThat(base.get("lock_stat").toString()).as("the workload's lock is in lock_stat").contains("hammer_lock");
    System.out.printf("plugin starter: generated, built offline and ran 4 plugins in %.0f s%n",
        (System.nanoTime() - start) / 1e9);
  }

  /**
   * The generated lock's own build ran its tests against the kit: the contract with the behaviour
   * pair, the factory against a mocked context (Mockito), and the liveness invariant failing on the
   * planted starving variant (counting 10 ms per queue position, the violation naming the writer)
   * and passing on the real lock. Each is a test that passed in {@code mvn -o package}.
   */
  @Test
  void archetypeLock_generatedTests_livenessFailsOnThePlantedVariantAndPassesOnTheRealOne() throws Exception {
    Path reports = work.resolve("it-lock/target/surefire-reports");
    String starvation = Files.readString(reports.resolve("TEST-com.example.itlock.ItLockStarvationTest.xml"));
    String factory = Files.readString(reports.resolve("TEST-com.example.itlock.ItLockFactoryTest.xml"));
    String contract = Files.readString(reports.resolve("TEST-com.example.itlock.ItLockContractTest.xml"));

    assertThat(starvation).contains("tests=\"2\"").contains("failures=\"0\"").contains("errors=\"0\"")
        .contains("liveness_plantedStarvingVariant_failsNamingTheWriterAndTheTime")
        .contains("liveness_realLock_sameRun_passes");
    assertThat(factory).contains("failures=\"0\"").contains("create_optionsGiven_theLockHonoursThem");
    assertThat(contract).contains("failures=\"0\"").contains("liveness_lockTorture_everyWorkerAcquiresWithinTheBound")
        .contains("behaviour_showsInThePlugin_andNotInTheNegativeCase");
    assertThat(contract).as("the behaviour pair ran, not skipped")
        .doesNotContainPattern("behaviour_showsInThePlugin_andNotInTheNegativeCase\"[^>]*>\\s*<skipped");
  }

  // -------------------------------------------------------------------------------------------
  // The hand-written reproduction plugin.

  private static Path reproductionJar() {
    Path jar = work.resolve(REPRODUCTION_PROJECT).resolve("target/" + REPRODUCTION + "-1.0.0.jar");
    assertThat(jar).isRegularFile();
    return jar;
  }

  private static Run reproduction(String... arguments) throws Exception {
    List<String> command = new ArrayList<>(List.of("--plugins", reproductionJar().toString()));
    command.addAll(List.of(arguments));
    return lockvisor(command);
  }

  @Test
  void reproductionPlugin_plugins_listedAsReproductionWithItsManifestVersion() throws Exception {
    Run listed = reproduction("plugins", "--kind", "reproduction", "--format", "json");

    assertThat(listed.exit()).as("plugins; stderr: %s", listed.err()).isZero();
    JsonNode plugin = find(JSON.readTree(listed.out()), "reproduction", REPRODUCTION);
    assertThat(plugin.get("version").asText()).as("Implementation-Version of its jar").isEqualTo("1.0.0");
    assertThat(plugin.get("jar").asText()).isEqualTo(reproductionJar().toString());
    assertThat(plugin.at("/whatIf/experimentFiles/0").asText()).isEqualTo(REPRODUCTION_FILE);
    assertThat(plugin.at("/whatIf/parameters/0/name").asText()).isEqualTo("writers");
    assertThat(plugin.at("/whatIf/parameters/0/path").asText()).as("its own target, then the derived one it feeds")
        .isEqualTo("vms[0].workloads[0].options.nwriters, " + REPRODUCTION_FILE + ".yaml vms[0].vcpus (from vcpus, writers)");
    assertThat(plugin.at("/whatIf/parameters/1/name").asText()).isEqualTo("vcpus");
    assertThat(plugin.at("/whatIf/parameters/1/path").asText()).as("derived targets")
        .contains("host.cpus").contains("vms[0].pinning").contains("(from vcpus");
  }

  /**
   * The plugin's derived bindings: {@code --set vcpus=2} writes the host's CPUs, the guest's vCPUs
   * and their pinning into the exported file, and the run of the reproduction at that setting
   * works; more writers than vCPUs is refused by the plugin's own binding in one line, exit 2.
   */
  @Test
  void reproductionPlugin_derivedBindings_exportedPathsAndRefusal() throws Exception {
    Path exported = temp.resolve("exported-vcpus");
    Run export = reproduction("reproduce", REPRODUCTION, "--set", "vcpus=2", "--export-experiments",
        exported.toString());
    Run run = reproduction("reproduce", REPRODUCTION, "--quick", "--set", "vcpus=2", "--format", "json");
    Run refused = reproduction("reproduce", REPRODUCTION, "--set", "vcpus=2", "--set", "writers=3");

    assertThat(export.exit()).as("export; stderr: %s", export.err()).isZero();
    JsonNode file = new ObjectMapper(new YAMLFactory()).readTree(exported.resolve(REPRODUCTION_FILE + ".yaml").toFile());
    assertThat(file.at("/host/cpus").asInt()).isEqualTo(2);
    assertThat(file.at("/vms/0/vcpus").asInt()).isEqualTo(2);
    assertThat(file.at("/vms/0/pinning").toString()).isEqualTo("[0,1]");
    assertThat(run.exit()).as("stderr: %s", run.err()).isIn(0, 1);
    assertThat(JSON.readTree(run.out()).at("/whatIf/parameters/vcpus").asText()).isEqualTo("2");
    assertThat(refused.exit()).as("stderr: %s", refused.err()).isEqualTo(2);
    assertThat(refused.err().strip().lines().toList()).hasSize(1);
    assertThat(refused.err()).contains("3 writers need as many vCPUs").doesNotContain("Exception", "\tat ");
  }

  /**
   * {@code reproduce --quick}: the shipped file is found in the plugin's jar (it was not, when
   * ShippedExperiment read its own class loader), both runs go through the runner, the band holds
   * (exit 0) and the wait per acquisition rises with the hold; {@code run} of the file {@code
   * --export-experiments} writes, with the quick run's one setting, processes the same events as
   * each of the reproduction's runs.
   */
  @Test
  void reproductionPlugin_quickAndRunOfItsExportedFile_bandHoldsAndSameFingerprints() throws Exception {
    Path out = temp.resolve("reproduce-out");
    Run reproduce = reproduction("reproduce", REPRODUCTION, "--quick", "--out", out.toString(), "--format", "json");

    assertThat(reproduce.exit()).as("reproduce --quick; stderr: %s", reproduce.err()).isZero();
    JsonNode result = JSON.readTree(reproduce.out());
    assertThat(result.get("reproduced").asBoolean()).isTrue();
    assertThat(result.has("whatIf")).as("the reproduction itself is no what-if").isFalse();
    JsonNode metrics = result.get("metrics");
    double shortWait = metrics.get("short_hold.wait_ns_per_acquisition").asDouble();
    double longWait = metrics.get("long_hold.wait_ns_per_acquisition").asDouble();
    assertThat(longWait).as("wait per acquisition with 4 us hold vs 1 us (%s ns)", shortWait)
        .isGreaterThan(2 * shortWait);
    assertThat(metrics.get("long_hold.contended_share").asDouble())
        .isGreaterThan(metrics.get("short_hold.contended_share").asDouble());
    assertThat(result.at("/bands/0/key").asText()).isEqualTo("wait_ratio");
    assertThat(result.at("/bands/0/met").asBoolean()).isTrue();

    Path exported = temp.resolve("exported");
    Run export = reproduction("reproduce", REPRODUCTION, "--export-experiments", exported.toString());
    assertThat(export.exit()).as("export; stderr: %s", export.err()).isZero();
    Path file = exported.resolve(REPRODUCTION_FILE + ".yaml");
    assertThat(Files.readString(file)).as("the shipped file as written").isEqualTo(Files.readString(root.resolve(
        "it/src/test/resources/" + REPRODUCTION_PROJECT + "/src/main/resources/org/lockvisor/reproductions/experiments/"
        + REPRODUCTION_FILE + ".yaml")));
    // built-in plugins only: run needs no --plugins
    Run run = lockvisor(List.of("run", file.toString(), "--set", "duration=1ms", "--format", "json"));
    assertThat(run.exit()).as("run of the exported file; stderr: %s", run.err()).isZero();
    JsonNode runs = JSON.readTree(run.out());
    for (String[] pair : new String[][] {{"base", "short-hold"}, {"long-hold", "long-hold"}}) {
      JsonNode reproduced = JSON.readTree(out.resolve(REPRODUCTION).resolve("runs").resolve(pair[1])
          .resolve("result.json").toFile()).at("/runs/0");
      JsonNode ran = variant(runs, pair[0]);
      assertThat(ran.get("fingerprint").asText()).as("fingerprint of variant %s", pair[0]).isNotEmpty()
          .isEqualTo(reproduced.get("fingerprint").asText());
      assertThat(ran.get("events").asLong()).isPositive().isEqualTo(reproduced.get("events").asLong());
    }
    assertThat(variant(runs, "base").get("fingerprint").asText()).as("the hold changes the run")
        .isNotEqualTo(variant(runs, "long-hold").get("fingerprint").asText());
  }

  @Test
  void reproductionPlugin_setBoundParameter_labelledWhatIfWhereMoreWritersWaitLonger() throws Exception {
    Run plain = reproduction("reproduce", REPRODUCTION, "--quick", "--format", "json");
    Run whatIf = reproduction("reproduce", REPRODUCTION, "--quick", "--set", "writers=4", "--format", "json");

    assertThat(plain.exit()).as("stderr: %s", plain.err()).isZero();
    assertThat(whatIf.exit()).as("stderr: %s", whatIf.err()).isIn(0, 1);
    JsonNode own = JSON.readTree(plain.out());
    JsonNode set = JSON.readTree(whatIf.out());
    assertThat(set.get("headline").asText()).startsWith("WHAT-IF");
    assertThat(set.at("/whatIf/parameters/writers").asText()).isEqualTo("4");
    assertThat(set.at("/whatIf/paths").toString()).contains("vms[0].workloads[0].options.nwriters");
    double twoWriters = own.at("/metrics/short_hold.wait_ns_per_acquisition").asDouble();
    double fourWriters = set.at("/metrics/short_hold.wait_ns_per_acquisition").asDouble();
    assertThat(fourWriters).as("1 us hold: wait per acquisition with 4 writers vs 2 (%s ns)", twoWriters)
        .isGreaterThan(2 * twoWriters);
  }

  @Test
  void reproductionPlugin_badSet_oneLineExit2() throws Exception {
    Run outOfRange = reproduction("reproduce", REPRODUCTION, "--set", "writers=9");
    Run misspelt = reproduction("reproduce", REPRODUCTION, "--set", "writer=3");

    for (Run r : List.of(outOfRange, misspelt)) {
      assertThat(r.exit()).as("stderr: %s", r.err()).isEqualTo(2);
      assertThat(r.err().strip().lines().toList()).hasSize(1);
      assertThat(r.err()).startsWith("lockvisor: ").doesNotContain("Exception", "\tat ");
    }
    assertThat(outOfRange.err()).contains("writers=9").contains("[1, 4]");
    assertThat(misspelt.err()).contains("did you mean [writers]");
  }

  /**
   * Shipped files of every jar share one class-path folder: a second plugin jar shipping a file
   * of the reproduction's name would be read instead of (or shadow) its own, so lockvisor refuses
   * to start, in one line naming both jars.
   */
  @Test
  void reproductionPlugin_anotherJarShipsItsFileName_refusedAtStartUp() throws Exception {
    Path clash = temp.resolve("clash.jar");
    try (OutputStream file = Files.newOutputStream(clash); JarOutputStream jar = new JarOutputStream(file)) {
      jar.putNextEntry(new JarEntry("org/lockvisor/reproductions/experiments/" + REPRODUCTION_FILE + ".yaml"));
      jar.write("name: not-the-plugins-file\n".getBytes(StandardCharsets.UTF_8));
      jar.closeEntry();
    }
    Run run = lockvisor(List.of("--plugins", clash + ":" + reproductionJar(), "plugins"));

    assertThat(run.exit()).as("stderr: %s", run.err()).isEqualTo(2);
    assertThat(run.err().strip().lines().toList()).hasSize(1);
    assertThat(run.err()).contains("reproduction [" + REPRODUCTION + "]", reproductionJar().toString(),
        clash.toString(), REPRODUCTION_FILE + ".yaml");
  }

  private static JsonNode find(JsonNode plugins, String kind, String name) {
    for (JsonNode p : plugins) {
      if (p.get("kind").asText().equals(kind) && p.get("name").asText().equals(name)) {
        return p;
      }
    }
    throw new AssertionError("no " + kind + " plugin [" + name + "] in " + plugins);
  }

  private static JsonNode variant(JsonNode result, String name) {
    for (JsonNode r : result.get("runs")) {
      if (r.get("variant").asText().equals(name)) {
        return r;
      }
    }
    throw new AssertionError("no run of variant [" + name + "]");
  }

  private static JsonNode workload(JsonNode run, String name) {
    for (JsonNode w : run.get("workloads")) {
      if (w.get("name").asText().equals(name)) {
        return w.get("figures");
      }
    }
    throw new AssertionError("no workload [" + name + "] in " + run.get("workloads"));
  }

  /** {@code mvn archetype:generate} of {@code lockvisor-archetype-<archetype>}, non-interactive. */
  private static void generate(Path repository, Path directory, String archetype, String name) throws Exception {
    maven(repository, directory, ARCHETYPE_GENERATE,
        "-DarchetypeGroupId=org.lockvisor", "-DarchetypeArtifactId=lockvisor-archetype-" + archetype,
        "-DarchetypeVersion=" + version, "-DgroupId=com.example", "-DartifactId=" + name, "-Dversion=1.0.0",
        "-Dpackage=com.example." + name.replace("-", ""), "-DpluginName=" + name, "-DinteractiveMode=false");
  }

  private static void maven(Path repository, Path directory, String... goals) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(mavenHome.isEmpty() ? "mvn" : Path.of(mavenHome, "bin", "mvn").toString());
    command.addAll(List.of("-o", "-B", "-q", "-Dmaven.repo.local=" + repository));
    command.addAll(List.of(goals));
    Run run = exec(command, directory, Map.of());
    assertThat(run.exit()).as("%s in %s:%n%s%n%s", command, directory, run.out(), run.err()).isZero();
  }

  private static Run lockvisor(List<String> arguments) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(root.resolve("lockvisor").toString());
    command.addAll(arguments);
    // The jar was packaged by this reactor; the launcher must not start a nested build.
    return exec(command, temp, Map.of("LOCKVISOR_NO_BUILD", "1"));
  }

  record Run(int exit, String out, String err) {}

  private static Run exec(List<String> command, Path directory, Map<String, String> environment) throws Exception {
    Path out = Files.createTempFile(temp, "out", ".txt");
    Path err = Files.createTempFile(temp, "err", ".txt");
    ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile())
        .redirectOutput(out.toFile()).redirectError(err.toFile());
    builder.environment().putAll(environment);
    builder.environment().remove("LOCKVISOR_PLUGINS");
    Process process = builder.start();
    if (!process.waitFor(MAVEN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new AssertionError(command + " did not finish in " + MAVEN_TIMEOUT);
    }
    return new Run(process.exitValue(), Files.readString(out), Files.readString(err));
  }

  /**
   * A local Maven repository private to one test: third-party artifacts are symbolic links into the
   * user's repository (read, and at most completed, never changed in lockvisor's name), lockvisor's
   * artifacts are copies of this reactor's poms and packaged jars.
   */
  static final class PrivateRepository {
    private static final Pattern ARTIFACT_ID = Pattern.compile("<artifactId>([^<]+)</artifactId>");
    private static final Pattern PACKAGING = Pattern.compile("<packaging>([^<]+)</packaging>");

    private PrivateRepository() {}

    static Path create(Path repository, Path user, Path root, String version) throws IOException {
      Files.createDirectories(repository.resolve("org"));
      try (Stream<Path> top = Files.list(user)) {
        for (Path entry : top.sorted().toList()) {
          if (!entry.getFileName().toString().equals("org")) {
            Files.createSymbolicLink(repository.resolve(entry.getFileName().toString()), entry);
          }
        }
      }
      try (Stream<Path> org = Files.list(user.resolve("org"))) {
        for (Path entry : org.sorted().toList()) {
          if (!entry.getFileName().toString().equals("lockvisor")) {
            Files.createSymbolicLink(repository.resolve("org").resolve(entry.getFileName().toString()), entry);
          }
        }
      }
      List<Path> poms = new ArrayList<>();
      try (Stream<Path> found = Files.walk(root, 3)) {
        found.filter(p -> p.getFileName().toString().equals("pom.xml"))
            .filter(p -> !root.relativize(p).toString().contains("src/"))
            .filter(p -> !root.relativize(p).toString().contains("target/"))
            .sorted().forEach(poms::add);
      }
      for (Path pom : poms) {
        String text = Files.readString(pom, StandardCharsets.UTF_8);
        String own = text.contains("</parent>") ? text.substring(text.indexOf("</parent>")) : text;
        Matcher artifact = ARTIFACT_ID.matcher(own);
        if (!artifact.find()) {
          continue;
        }
        String artifactId = artifact.group(1);
        if (!artifactId.startsWith("lockvisor-")) {
          continue;
        }
        Matcher packaging = PACKAGING.matcher(own);
        String kind = packaging.find() ? packaging.group(1) : "jar";
        Path target = repository.resolve("org/lockvisor").resolve(artifactId).resolve(version);
        Files.createDirectories(target);
        Files.copy(pom, target.resolve(artifactId + "-" + version + ".pom"));
        if (!kind.equals("pom")) {
          Path jar = pom.resolveSibling("target/" + artifactId + "-" + version + ".jar");
          assertThat(jar).as("packaged jar of %s (run the test with mvn verify)", artifactId).isRegularFile();
          Files.copy(jar, target.resolve(artifactId + "-" + version + ".jar"));
        }
      }
      return repository;
    }
  }
}
