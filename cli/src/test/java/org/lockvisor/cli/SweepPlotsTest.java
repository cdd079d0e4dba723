package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Sweep plots: one per metric against the first swept parameter, lines per variant and other parameters. */
class SweepPlotsTest {

  private static final ObjectMapper MAPPER = new ObjectMapper();

  @TempDir
  Path dir;

  private static JsonNode merged() {
    ObjectNode root = MAPPER.createObjectNode().put("experiment", "demo");
    ArrayNode points = root.putArray("points");
    int index = 0;
    for (String lock : List.of("ticket", "qspinlock")) {
      for (int vcpus : new int[] {2, 4, 8}) {
        ObjectNode p = points.addObject().put("point", index++);
        p.putObject("overrides").put("vms[0].vcpus", Integer.toString(vcpus)).put("vms[0].locks.spinlock", lock);
        ObjectNode summary = p.putObject("summary");
        for (String variant : List.of("base", "tas")) {
          ObjectNode v = summary.putObject(variant);
          v.putObject("vm0/torture.acquisitions_per_s").put("mean", 1000.0 * vcpus).put("ci95", 50.0).put("n", 3);
          v.putObject("vm0/torture.fail").put("mean", 0.0).put("ci95", 0.0).put("n", 3);
          if (variant.equals("tas")) {
            v.putObject("paired").putObject("vm0/torture.acquisitions_per_s").put("mean", 1.0);
          }
        }
      }
    }
    return root;
  }

  @Test
  void onePlotPerMetric_pngAndSvg_pairedDifferencesNotPlotted() throws Exception {
    List<String> plotted = SweepPlots.write(merged(), dir);

    assertThat(plotted).containsExactly("vm0/torture.acquisitions_per_s", "vm0/torture.fail");
    for (String metric : plotted) {
      String base = SweepPlots.fileName(metric);
      BufferedImage png = ImageIO.read(dir.resolve(base + ".png").toFile());
      assertThat(png.getWidth()).isEqualTo(800);
      assertThat(Files.readString(dir.resolve(base + ".svg"))).contains("<svg");
    }
    assertThat(SweepPlots.fileName("vm0/torture.fail")).isEqualTo("vm0_torture.fail");
  }

  @Test
  void noSweptParameter_noPlots() throws Exception {
    ObjectNode root = MAPPER.createObjectNode();
    root.putArray("points").addObject().putObject("overrides");

    assertThat(SweepPlots.write(root, dir)).isEmpty();
    try (var files = Files.list(dir)) {
      assertThat(files).isEmpty();
    }
  }
}
