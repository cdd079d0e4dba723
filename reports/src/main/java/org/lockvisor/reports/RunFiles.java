package org.lockvisor.reports;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.lockvisor.experiment.io.AtomicFiles;
import org.lockvisor.experiment.runner.ResultJson;

/**
 * The one writer of a run directory: {@code result.json}, every file of each run's {@link
 * RunOutputs} and, for each variant beside a {@code base} run, the differential folded pairs
 * {@code oncpu-diff-<variant>.folded} and {@code spin-diff-<variant>.folded}. {@code lockvisor run
 * --out} writes its directory with it, and so does {@code reproduce --out} for each internal run
 * of a shipped experiment (the reproductions module's {@code RunDirectories}), so both directories hold the same files for
 * the same run. Every file is written atomically; the caller writes its {@code report.html}.
 */
public final class RunFiles {

  private RunFiles() {}

  /**
   * Writes {@code document} as {@code result.json} and the runs' files into {@code dir}.
   *
   * @return the names written, {@code result.json} first, for the page's links
   * @throws UncheckedIOException naming the file that could not be written
   */
  public static List<String> write(Path dir, ObjectNode document, List<RunOutputs> outputs) {
    write(dir.resolve("result.json"), ResultJson.write(document) + System.lineSeparator());
    List<String> written = new ArrayList<>();
    written.add("result.json");
    RunOutputs base = outputs.stream().filter(o -> o.variant().equals("base")).findFirst().orElse(null);
    for (RunOutputs o : outputs) {
      o.files().forEach((name, content) -> {
        if (content != null) { // a trace written (and released) while the runs went on
          write(dir.resolve(name), content);
        }
        written.add(name);
      });
      if (base != null && o != base) {
        for (String kind : List.of("oncpu", "spin")) {
          String name = kind + "-diff-" + o.variant() + ".folded";
          write(dir.resolve(name), FoldedStacks.diff(base.text(kind + ".folded"),
              o.text(RunOutputs.fileName(kind, "folded", o.variant()))));
          written.add(name);
        }
      }
    }
    return written;
  }

  /** Writes {@code content} (UTF-8) atomically. */
  public static void write(Path target, String content) {
    write(target, content.getBytes(StandardCharsets.UTF_8));
  }

  /** Writes {@code content} atomically. */
  public static void write(Path target, byte[] content) {
    try {
      AtomicFiles.writeBytes(target, content);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write [" + target + "]", e);
    }
  }
}
