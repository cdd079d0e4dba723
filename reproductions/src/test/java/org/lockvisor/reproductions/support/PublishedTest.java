package org.lockvisor.reproductions.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The seeds' figures live only in the published/*.properties files: the reproductions read them
 * there, and no main source file of any module spells one of them out.
 */
class PublishedTest {

  static final List<String> REPRODUCTIONS = List.of("vhost-wakeup", "virtio-blk-notify", "vcpu-preempted");

  @Test
  void filesLoad_listsAndFiguresResolve() {
    Published r3 = Published.of("vcpu-preempted");
    assertThat(r3.ordered("before")).containsKeys("osq_lock", "rwsem_spin_on_owner", "mutex_spin_on_owner");
    assertThat(r3.ordered("after")).containsKey("[H]");
    assertThat(Published.of("vhost-wakeup").list("threads")).containsExactly("1", "8", "64", "256");
    assertThat(Published.of("virtio-blk-notify").get("arm64.nj4.patched.iops"))
        .isGreaterThan(Published.of("virtio-blk-notify").get("arm64.nj4.baseline.iops"));
    REPRODUCTIONS.forEach(r -> assertThat(Published.of(r).source()).isNotBlank());
  }

  @Test
  void missingFileOrKey_saysWhich() {
    assertThatThrownBy(() -> Published.of("no-such")).hasMessageContaining("no-such.properties");
    assertThatThrownBy(() -> Published.of("vhost-wakeup").get("7.baseline.vhostCpuPercent"))
        .hasMessageContaining("vhost-wakeup.properties").hasMessageContaining("[7.baseline.vhostCpuPercent]");
  }

  @Test
  void noMainSourceSpellsOutAPublishedFigure() throws IOException {
    List<Pattern> figures = new ArrayList<>();
    for (String r : REPRODUCTIONS) {
      Properties p = new Properties();
      try (InputStream in = Published.class.getResourceAsStream(
          "/org/lockvisor/reproductions/published/" + r + ".properties")) {
        p.load(in);
      }
      for (String key : p.stringPropertyNames()) {
        String v = p.getProperty(key);
        if (v.matches("\\d+\\.\\d+|\\d{4,}")) {
          figures.add(figurePattern(v));
        }
      }
    }
    assertThat(figures).hasSizeGreaterThan(20);
    List<String> hits = new ArrayList<>();
    Path root = Path.of("..");
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java") && p.toString().contains("/src/main/java/"))
          .toList()) {
        String text = Files.readString(f);
        for (Pattern fig : figures) {
          if (fig.matcher(text).find()) {
            hits.add(root.relativize(f) + ": " + fig.pattern());
          }
        }
      }
    }
    assertThat(hits).as("published figures in main code").isEmpty();
  }

  /** 28.82 as a number token; 14000 also as 14_000. */
  private static Pattern figurePattern(String v) {
    String body = v.contains(".") ? Pattern.quote(v)
        : Pattern.quote(v) + "|" + Pattern.quote(v.substring(0, v.length() - 3) + "_" + v.substring(v.length() - 3));
    return Pattern.compile("(?<![\\d.])(" + body + ")(?![\\d])");
  }
}
