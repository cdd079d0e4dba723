package org.lockvisor.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.experiment.model.ExperimentYaml;
import org.lockvisor.experiment.model.InvalidExperimentException;
import org.lockvisor.experiment.model.Problem;

/** Reads an experiment file with command-line overrides ({@code --set path=value}, {@code --seed}). */
final class ExperimentFiles {

  /** The most {@code --set} options one command takes. */
  static final int MAX_SETS = 1_000;

  private ExperimentFiles() {}

  /**
   * At most {@link ExperimentYaml#MAX_BYTES} + 1 bytes of {@code file}, whatever it is: the size a
   * device, a FIFO or a {@code /proc} file reports (0) is not trusted, the reading stops at the
   * limit. A file over the limit is refused.
   *
   * @throws UserInputException naming the file and the reason
   */
  static byte[] read(Path file) {
    if (Files.isDirectory(file)) {
      throw new UserInputException("cannot read experiment [" + file + "]: it is a directory");
    }
    byte[] content;
    try (InputStream in = Files.newInputStream(file)) {
      content = in.readNBytes(ExperimentYaml.MAX_BYTES + 1);
    } catch (NoSuchFileException e) {
      throw new UserInputException("cannot read experiment [" + file + "]: no such file");
    } catch (AccessDeniedException e) {
      throw new UserInputException("cannot read experiment [" + file + "]: permission denied");
    } catch (IOException e) {
      throw new UserInputException("cannot read experiment [" + file + "]: "
          + (e.getMessage() == null || e.getMessage().equals(file.toString()) ? e.getClass().getSimpleName()
              : e.getMessage()));
    }
    if (content.length > ExperimentYaml.MAX_BYTES) {
      throw new UserInputException("cannot read experiment [" + file + "]: more than " + ExperimentYaml.MAX_BYTES
          + " bytes; an experiment file is at most " + ExperimentYaml.MAX_BYTES + " bytes (1 MiB)");
    }
    return content;
  }

  /**
   * The experiment tree in {@code file} with {@code sets} applied in order, then {@code seed} if given
   * (bind and validate it with {@code ExperimentRunner.validateTree}).
   *
   * @throws UserInputException when the file cannot be read
   * @throws InvalidExperimentException listing every problem of the file and the overrides
   */
  static ObjectNode load(Path file, List<String> sets, Long seed) {
    if (sets.size() > MAX_SETS) {
      throw new UserInputException(sets.size() + " --set options; at most " + MAX_SETS);
    }
    String source = file.toString();
    byte[] content = read(file);
    ObjectNode tree = (ObjectNode) ExperimentYaml.parse(source, content);
    List<Problem> problems = new ArrayList<>();
    for (String set : sets) {
      int eq = set.indexOf('=');
      if (eq <= 0) {
        problems.add(new Problem("--set", "[" + Problem.echo(set) + "] is not path=value, e.g. [vms[0].locks.spinlock=ticket]"));
        continue;
      }
      Problem p = ExperimentYaml.set(tree, set.substring(0, eq).trim(), set.substring(eq + 1).trim());
      if (p != null) {
        problems.add(new Problem("--set " + p.path(), p.message()));
      }
    }
    if (seed != null) {
      tree.put("seed", seed);
    }
    if (!problems.isEmpty()) {
      // Also what is wrong with the values that did apply.
      problems.addAll(ExperimentYaml.bindLenient(tree).problems());
      throw new InvalidExperimentException(source, problems);
    }
    return tree;
  }
}
