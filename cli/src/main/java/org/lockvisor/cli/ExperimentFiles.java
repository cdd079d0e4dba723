package org.lockvisor.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
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

  private ExperimentFiles() {}

  /**
   * The experiment tree in {@code file} with {@code sets} applied in order, then {@code seed} if given
   * (bind and validate it with {@code ExperimentRunner.validateTree}).
   *
   * @throws UserInputException when the file cannot be read
   * @throws InvalidExperimentException listing every problem of the file and the overrides
   */
  static ObjectNode load(Path file, List<String> sets, Long seed) {
    String source = file.toString();
    byte[] content;
    try {
      if (Files.isDirectory(file)) {
        throw new UserInputException("cannot read experiment [" + file + "]: it is a directory");
      }
      if (Files.size(file) > ExperimentYaml.MAX_BYTES) {
        throw new UserInputException("cannot read experiment [" + file + "]: " + Files.size(file)
            + " bytes; an experiment file is at most " + ExperimentYaml.MAX_BYTES + " bytes");
      }
      content = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new UserInputException("cannot read experiment [" + file + "]: no such file");
    } catch (IOException e) {
      throw new UserInputException("cannot read experiment [" + file + "]: " + e.getMessage());
    }
    ObjectNode tree = (ObjectNode) ExperimentYaml.parse(source, content);
    List<Problem> problems = new ArrayList<>();
    for (String set : sets) {
      int eq = set.indexOf('=');
      if (eq <= 0) {
        problems.add(new Problem("--set", "[" + set + "] is not path=value, e.g. [vms[0].locks.spinlock=ticket]"));
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
