package org.lockvisor.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import org.lockvisor.arch.catalog.ArchProfiles;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.ArchProfileFactory;
import org.lockvisor.experiment.UserInputException;

/** What the envelope forms of {@code reproduce}, {@code sweep} and {@code merge} share. */
final class EnvelopeCommands {

  private EnvelopeCommands() {}

  /** {@code {i, N}} of {@code --shard i/N}; {@code {0, 1}} without one. */
  static int[] shard(String shard) {
    if (shard == null) {
      return new int[] {0, 1};
    }
    String[] parts = shard.split("/", -1);
    int i;
    int n;
    try {
      i = Integer.parseInt(parts[0].trim());
      n = Integer.parseInt(parts[1].trim());
    } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
      throw new UserInputException("--shard [" + shard + "] is not i/N, e.g. [0/4]");
    }
    if (parts.length != 2 || n < 1 || i < 0 || i >= n) {
      throw new UserInputException("--shard [" + shard + "] needs 0 <= i < N, e.g. [0/4]");
    }
    return new int[] {i, n};
  }

  /** The registered arch profiles, created once, by name. */
  static Map<String, ArchProfile> profiles() {
    Map<String, ArchProfile> out = new LinkedHashMap<>();
    for (Map.Entry<String, ArchProfileFactory> e : ArchProfiles.discover().entrySet()) {
      out.put(e.getKey(), e.getValue().create());
    }
    return out;
  }
}
