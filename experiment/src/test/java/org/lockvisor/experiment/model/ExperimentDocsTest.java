package org.lockvisor.experiment.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The YAML reference in docs/experiments.md documents every key the binder accepts, and its
 * example reads as a valid model: the reference cannot drift from the code.
 */
class ExperimentDocsTest {

  private static final Path DOC = Path.of("../docs/experiments.md");

  private static String referenceBlock() throws IOException {
    String doc = Files.readString(DOC);
    int start = doc.indexOf("## YAML reference");
    int open = doc.indexOf("```yaml", start);
    int close = doc.indexOf("```", open + 7);
    return doc.substring(open + 7, close);
  }

  @Test
  void reference_mentionsEveryKey() throws IOException {
    String block = referenceBlock();
    Stream.of(ExperimentYaml.TOP_KEYS, ExperimentYaml.HOST_KEYS, ExperimentYaml.VM_KEYS, ExperimentYaml.LOCK_KEYS,
            ExperimentYaml.HOST_KERNEL_KEYS, ExperimentYaml.VM_KERNEL_KEYS,
            ExperimentYaml.COMPONENT_KEYS, ExperimentYaml.BACKGROUND_KEYS, ExperimentYaml.BACKGROUND_VM_KEYS)
        .flatMap(Set::stream)
        .forEach(key -> assertThat(block).as("docs/experiments.md documents [%s]", key)
            .containsPattern("(?m)(^\\s*(- )?|[{,] )" + java.util.regex.Pattern.quote(key) + ":"));
  }

  @Test
  void reference_bindsToAValidStructure() throws IOException {
    Experiment e = ExperimentYaml.read("docs/experiments.md", referenceBlock());
    assertThat(e.vms()).hasSize(1);
    assertThat(e.background().vms()).hasSize(1);
    assertThat(e.variants()).containsKeys("ticket", "no-check");
  }
}
