package org.lockvisor.reproductions.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PlotTest {

  @TempDir
  Path dir;

  @Test
  void writesReadablePngAndSvgWithEverySeriesNamed() throws Exception {
    new Plot("vhost CPU vs streams", "streams", "vhost CPU %").logX()
        .line("baseline", new double[] {1, 8, 64}, new double[] {30, 35, 50})
        .line("patched", new double[] {1, 8, 64}, new double[] {29, 30, 40})
        .published("published baseline", new double[] {1, 8, 64}, new double[] {28, 33, 46})
        .write(dir, "plot");

    BufferedImage png = ImageIO.read(dir.resolve("plot.png").toFile());
    assertThat(png.getWidth()).isEqualTo(800);
    assertThat(png.getHeight()).isEqualTo(500);
    String svg = Files.readString(dir.resolve("plot.svg"));
    assertThat(svg).contains("<svg").contains("</svg>");
    try (var files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("plot.png", "plot.svg");
    }
  }

  @Test
  void emptyPlotIsRejected() {
    assertThatThrownBy(() -> new Plot("t", "x", "y").write(dir, "p")).hasMessageContaining("no series");
  }

  @Test
  void tableAlignsNumbersRightAndTextLeft() {
    var lines = new TextTable("variant", "IOPS").row("baseline", 14000.0).row("patched-long-name", 3.5).lines();
    assertThat(lines).containsExactly(
        "variant                IOPS",
        "-----------------  --------",
        "baseline           14000.00",
        "patched-long-name      3.50");
  }
}
