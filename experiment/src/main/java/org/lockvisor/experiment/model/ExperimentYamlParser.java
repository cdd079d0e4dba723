package org.lockvisor.experiment.model;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Experiment text to tree: size, encoding and syntax checks, each refused with one line that
 * names the line and column (SnakeYAML's event classes and source excerpts translated into
 * words). The tree is bound to the model by {@link ExperimentBinder}; callers go through {@link
 * ExperimentYaml}.
 */
final class ExperimentYamlParser {

  /** The one mapper of the YAML form: strict on duplicate keys, plain output without "---". */
  static final YAMLMapper MAPPER = YAMLMapper.builder(
          YAMLFactory.builder().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
              .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES).build())
      .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
      .build();

  private ExperimentYamlParser() {}

  /**
   * The YAML text as a tree.
   *
   * @throws InvalidExperimentException for empty input, binary content or a syntax error
   */
  static JsonNode parse(String source, byte[] content) {
    if (content.length > ExperimentYaml.MAX_BYTES) {
      throw invalid(source, "", "file is " + content.length + " bytes; an experiment file is at most "
          + ExperimentYaml.MAX_BYTES + " bytes");
    }
    for (byte b : content) {
      if (b == 0) {
        throw invalid(source, "", "not a YAML text file (contains NUL bytes)");
      }
    }
    String text;
    try {
      text = java.nio.charset.StandardCharsets.UTF_8.newDecoder()
          .decode(java.nio.ByteBuffer.wrap(content)).toString();
    } catch (java.nio.charset.CharacterCodingException e) {
      throw invalid(source, "", "not a YAML text file (not valid UTF-8)");
    }
    return parse(source, text);
  }

  /** The YAML text as a tree; see {@link #parse(String, byte[])}. */
  static JsonNode parse(String source, String text) {
    if (text.isBlank()) {
      throw invalid(source, "", "the file is empty; an experiment needs at least [vms]");
    }
    String unprintable = firstUnprintable(text);
    if (unprintable != null) {
      throw invalid(source, "", "YAML syntax error at " + unprintable);
    }
    JsonNode tree;
    try {
      tree = YamlTree.read(MAPPER, text); // aliases expanded, one document, bounded size and depth
    } catch (YamlTree.YamlException e) {
      throw invalid(source, "", "YAML error" + e.where() + e.getMessage());
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      String where = at == null ? "" : "line " + at.getLineNr() + ", column " + at.getColumnNr() + ": ";
      throw invalid(source, "", "YAML syntax error at " + where + syntaxMessage(e.getOriginalMessage()));
    }
    if (tree == null || tree.isMissingNode() || tree.isNull()) {
      throw invalid(source, "", "the file is empty; an experiment needs at least [vms]");
    }
    if (!tree.isObject()) {
      throw invalid(source, "", "expected a mapping of experiment keys at the top, got " + ExperimentBinder.describe(tree));
    }
    return tree;
  }

  /**
   * Where the first character YAML does not allow in a stream is, in words: {@code line 19, column 8:
   * control character [\u001a] is not allowed in YAML text}; null when there is none. YAML 1.1
   * (SnakeYAML's StreamReader.isPrintable) allows tab, line feed, carriage return, the printable
   * ASCII, NEL and the non-control Unicode ranges; SnakeYAML's own error for the others names the
   * start of the stream, since Jackson reports where its parser stood, not where the reader did.
   */
  static String firstUnprintable(String text) {
    int line = 1;
    int column = 1;
    for (int i = 0; i < text.length(); ) {
      int c = text.codePointAt(i);
      boolean printable = c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0x7E) || c == 0x85
          || (c >= 0xA0 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF);
      if (!printable) {
        return "line " + line + ", column " + column + ": control character [" + String.format("\\u%04x", c)
            + "] is not allowed in YAML text";
      }
      if (c == '\n') {
        line++;
        column = 1;
      } else {
        column++;
      }
      i += Character.charCount(c);
    }
    return null;
  }

  /**
   * SnakeYAML's message without its source excerpts: {@code while parsing a flow mapping (line 2,
   * column 7); expected ',' or '}', but got :}.
   */
  static String syntaxMessage(String message) {
    if (message == null) {
      return "";
    }
    if (message.startsWith("Expected a field name")) {
      // Jackson's words for a list or mapping used as a key, with SnakeYAML's event class in them
      return "a key must be a plain name, not a list or a mapping (YAML complex keys are not supported)";
    }
    message = SNAKEYAML_EVENT.matcher(message).replaceAll(r -> switch (r.group(1)) {
      case "SequenceStart" -> "a list";
      case "MappingStart" -> "a mapping";
      case "Scalar" -> "a value";
      default -> "[" + r.group(1).replaceAll("([a-z])([A-Z])", "$1 $2").toLowerCase(java.util.Locale.ROOT) + "]";
    });
    List<String> parts = new ArrayList<>();
    String[] lines = message.split("\\R");
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].strip();
      Matcher at = Pattern.compile("in '[^']*', line (\\d+), column (\\d+):?").matcher(line);
      if (at.matches()) {
        if (!parts.isEmpty()) {
          parts.set(parts.size() - 1, parts.get(parts.size() - 1) + " (line " + at.group(1) + ", column "
              + at.group(2) + ")");
        }
        i += 2; // the excerpt and its caret
      } else if (!line.isEmpty()) {
        parts.add(line);
      }
    }
    return String.join("; ", parts);
  }

  /** SnakeYAML's event objects as Jackson prints them: {@code <org.yaml.snakeyaml.events.ScalarEvent(...)>}. */
  private static final Pattern SNAKEYAML_EVENT = Pattern.compile("<?org\\.yaml\\.snakeyaml\\.events\\.(\\w+?)Event(\\([^)]*\\))?>?");

  static String firstLine(String message) {
    String m = message == null ? "" : message.strip();
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl).strip();
  }

  private static InvalidExperimentException invalid(String source, String path, String message) {
    return new InvalidExperimentException(source, List.of(new Problem(path, message)));
  }
}
