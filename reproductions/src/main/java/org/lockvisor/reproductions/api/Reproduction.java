package org.lockvisor.reproductions.api;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Set;
import org.lockvisor.core.plugin.Plugin;
import org.lockvisor.experiment.SimulationFailedException;
import org.lockvisor.experiment.UserInputException;

/**
 * A seed result that lockvisor re-derives from the simulated mechanism, e.g. "vhost: wake up
 * worker outside spin_lock". Reproductions are plugins of kind {@code reproduction}: one
 * {@code final} class registered with {@code @AutoService(Reproduction.class)}, found by
 * ServiceLoader and run by {@code lockvisor reproduce <name>|all}.
 *
 * <p>A third party writes one as the built-ins are written (docs/plugins/writing-a-reproduction.md;
 * the {@code it} module builds one from a separate Maven project): experiment files shipped in its
 * jar ({@link #experimentFiles()}), loaded and run with {@code
 * org.lockvisor.reproductions.support.ShippedExperiment} of {@code lockvisor-reproductions}
 * through {@link ReproductionOptions#runner()}, parameters bound to experiment paths ({@link
 * ReproductionParameter#at}), bands on the figures it reads back.
 *
 * <p>A reproduction checks direction and bands against the published figures it prints beside
 * its own; it never fits a constant to its own answer (see DESIGN.md, calibration honesty).
 */
public interface Reproduction extends Plugin {

  String KIND = "reproduction";

  /**
   * The class-path folder of shipped experiment files: a reproduction's file {@code <file>} is the
   * resource {@code org/lockvisor/reproductions/experiments/<file>.yaml} of its own jar. The folder
   * is shared by every jar, lockvisor's and the plugins', and a plugin's loader asks lockvisor's
   * first, so discovery refuses a file that is not in the reproduction's own jar or whose name
   * another jar ships too ({@link ShippedExperimentFiles}); a plugin starts its file names with its
   * own plugin name.
   */
  String EXPERIMENTS = "org/lockvisor/reproductions/experiments/";

  @Override
  default String kind() {
    return KIND;
  }

  /**
   * Runs the experiments behind this reproduction and judges them.
   *
   * @throws SimulationFailedException when a simulation breaks (an invariant, a phase that cannot
   *     finish); the message names the plugin or phase
   * @throws UserInputException when {@code options} are unusable for this reproduction
   */
  ReproductionResult run(ReproductionOptions options);

  /**
   * The what-if parameters this reproduction accepts ({@code reproduce <name> --set
   * <parameter>=<value>}), read in {@link #run} with {@link
   * ReproductionOptions#parameter(ReproductionParameter)}. None by default.
   */
  default List<ReproductionParameter<?>> parameters() {
    return List.of();
  }

  /**
   * The experiment files this reproduction runs (resource base names under {@link #EXPERIMENTS},
   * e.g. {@code r1-vhost-wakeup}): every machine it builds is one of these experiments (a variant,
   * with settings of its own such as the number of streams of a row), run by {@link
   * ReproductionOptions#runner()}. {@code reproduce --set} takes any experiment path these files
   * have, and {@code reproduce NAME --export-experiments DIR} writes them for {@code lockvisor
   * run}. Each must be in the reproduction's own jar, under a name no other jar ships (checked at
   * discovery). None by default (a reproduction that builds no machine).
   */
  default List<String> experimentFiles() {
    return List.of();
  }

  /**
   * The experiment paths whose values are functions of several of this reproduction's parameters
   * (e.g. a host's CPUs = pool processors x SMT threads), with the defaults of their inputs at each
   * scale: applied like {@link ReproductionParameter#at} targets (by {@code reproduce} before its
   * runs, written by {@code --export-experiments}, checked by {@link WhatIf#parse}), see {@link
   * DerivedBindings}. None by default.
   */
  default DerivedBindings derivedBindings() {
    return DerivedBindings.NONE;
  }

  /**
   * The experiment paths this reproduction sets itself for each point it runs (e.g. R1's iperf
   * streams of each row): {@code reproduce --set} refuses them, since the point's own value is
   * what its report labels; {@code --export-experiments} takes them (a file for {@code run}). None
   * by default.
   */
  default Set<String> pointPaths() {
    return Set.of();
  }

  /**
   * The content of shipped experiment file {@code file} (one of {@link #experimentFiles()}), read
   * from this reproduction's class loader (a {@code --plugins} jar's for a plugin): what {@code
   * ShippedExperiment.load(this, file)} runs, {@code --export-experiments} writes and {@code
   * reproduce --set} is checked against.
   *
   * @throws IllegalStateException when the resource is missing (a packaging fault)
   */
  default byte[] experimentFile(String file) {
    String resource = EXPERIMENTS + file + ".yaml";
    try (InputStream in = getClass().getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("reproduction [" + name() + "]: shipped experiment [" + resource
            + "] is not on the class path");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("reproduction [" + name() + "]: cannot read [" + resource + "]", e);
    }
  }

  /**
   * The arch profiles this reproduction builds machines on, each obtained in {@link #run} with
   * {@link ReproductionOptions#profile}: a what-if cost override ({@code --set
   * cost.<profile>.<KEY>=<number>}) is accepted only for these, so that it never goes silently
   * unused. None by default.
   */
  default Set<String> archProfiles() {
    return Set.of();
  }

  /**
   * The estimated costs an envelope of this reproduction samples besides its declared parameters,
   * as {@code cost.<profile>.<KEY>} (a profile of {@link #archProfiles()}, an estimate with a
   * range): the constants its mechanism is known to be sensitive to. None by default.
   */
  default List<String> envelopeCosts() {
    return List.of();
  }

  /**
   * What {@code reproduce <name> --calibrate} fits by default: names of declared parameters with a
   * numeric domain ({@link ReproductionParameter#domain()}) or {@code cost.<profile>.<KEY>} of an
   * estimate with a range on a profile of {@link #archProfiles()}, few enough for the published
   * baseline figures to determine them. None by default.
   */
  default List<String> calibrationParameters() {
    return List.of();
  }

  /**
   * The keys of the bands {@link #run} judges ({@link Band#key()}), in the order of {@link
   * ReproductionResult#bands()}: what {@code reproduce <name> --envelope --effect KEY} is checked
   * against before any run, local or emitted. None by default: a reproduction that declares none
   * takes no {@code --effect} (its envelope uses the default effect).
   */
  default List<String> bandKeys() {
    return List.of();
  }
}
