package org.lockvisor.experiment.model;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * One YAML document as a tree, read token by token so that what Jackson's tree reader does not
 * do is done here, with a bound on each:
 *
 * <ul>
 *   <li>anchors ({@code &vm}) and aliases ({@code *vm}) are expanded, and YAML 1.1 merge keys
 *       ({@code <<: *defaults}) merged, keys written beside a merge winning; the tree may hold at
 *       most {@value #MAX_NODES} nodes after expansion (so a "billion laughs" file is refused by
 *       name instead of filling the heap);
 *   <li>nesting is at most {@value #MAX_DEPTH} levels (so a deep file cannot overflow the stack);
 *   <li>a second document ({@code ---}) is refused rather than ignored;
 *   <li>a key given twice in one mapping is refused.
 * </ul>
 */
final class YamlTree {

  /** Nodes in a tree after alias expansion; an experiment has a few hundred. */
  static final int MAX_NODES = 250_000;
  /** Levels of nested mappings and lists; an experiment has about six. */
  static final int MAX_DEPTH = 64;

  private static final String MERGE_KEY = "<<";

  /** A problem with the text, at its line and column (1-based; 0 when unknown). */
  static final class YamlException extends RuntimeException {
    final int line;
    final int column;

    YamlException(JsonLocation at, String message) {
      super(message);
      this.line = at == null ? 0 : at.getLineNr();
      this.column = at == null ? 0 : at.getColumnNr();
    }

    /** {@code "at line 3, column 5: "}, or {@code ": "} when the position is unknown. */
    String where() {
      return line > 0 ? " at line " + line + ", column " + column + ": " : ": ";
    }
  }

  /**
   * A plain scalar YAML reads as a float, with the text it was written as: {@code 5.10} is the
   * number 5.1 but the kernel era [5.10], so a key whose values are names (an era) takes the text.
   */
  static final class PlainFloat extends com.fasterxml.jackson.databind.node.DoubleNode {
    private static final long serialVersionUID = 1L;
    private final String text;

    PlainFloat(double value, String text) {
      super(value);
      this.text = text;
    }

    /** The scalar as written in the YAML text. */
    String text() {
      return text;
    }
  }

  private final ObjectMapper mapper;
  private final YAMLParser parser;
  private final Map<String, JsonNode> anchors = new HashMap<>();
  private int nodes;

  private YamlTree(ObjectMapper mapper, YAMLParser parser) {
    this.mapper = mapper;
    this.parser = parser;
  }

  /**
   * The single document of {@code text}, or null when it has none.
   *
   * @throws YamlException for aliases without anchor, too many nodes, too deep nesting, a
   *     duplicate key or a second document
   * @throws JsonProcessingException for a syntax error (SnakeYAML's message)
   */
  static JsonNode read(ObjectMapper mapper, String text) throws JsonProcessingException {
    try (JsonParser p = mapper.getFactory().createParser(text)) {
      YamlTree reader = new YamlTree(mapper, (YAMLParser) p);
      JsonToken first = p.nextToken();
      if (first == null) {
        return null;
      }
      JsonNode root = reader.value(0);
      JsonLocation end = p.currentLocation();
      JsonToken next;
      try {
        next = p.nextToken();
      } catch (JsonProcessingException e) {
        next = JsonToken.NOT_AVAILABLE; // a broken second document is still a second document
      }
      if (next != null) {
        throw new YamlException(end, "a second YAML document ('---') follows the first; an experiment file holds exactly one"
            + " document");
      }
      return root;
    } catch (JsonProcessingException e) {
      String m = e.getOriginalMessage();
      if (m != null && m.startsWith("Duplicate field '")) {
        // the parser's own check (STRICT_DUPLICATE_DETECTION), said in the words of the other problems
        throw new YamlException(e.getLocation(), "duplicate key [" + Problem.echo(m.substring(17, m.lastIndexOf('\''))) + "]; give each key once");
      }
      throw e;
    } catch (YamlException e) {
      throw e;
    } catch (IOException e) {
      throw new IllegalStateException("reading a string cannot fail", e);
    }
  }

  /** The value at the parser's current token (consumed, with its children). */
  private JsonNode value(int depth) throws IOException {
    JsonToken token = parser.currentToken();
    if (depth > MAX_DEPTH) {
      throw new YamlException(parser.currentTokenLocation(), "nested more than " + MAX_DEPTH
          + " levels deep; an experiment needs about six");
    }
    if (parser.isCurrentAlias()) {
      String name = parser.getText();
      JsonNode anchored = anchors.get(name);
      if (anchored == null) {
        throw new YamlException(parser.currentTokenLocation(), "alias [*" + Problem.echo(name)
            + "] names no anchor defined before it (define it with &" + Problem.echo(name) + ")");
      }
      count(size(anchored));
      return anchored.deepCopy();
    }
    String anchor = parser.getCurrentAnchor();
    JsonNode node;
    if (token == JsonToken.START_OBJECT) {
      node = mapping(depth);
    } else if (token == JsonToken.START_ARRAY) {
      ArrayNode list = mapper.createArrayNode();
      count(1);
      while (parser.nextToken() != JsonToken.END_ARRAY) {
        list.add(value(depth + 1));
      }
      node = list;
    } else if (token == JsonToken.VALUE_NUMBER_FLOAT) {
      count(1);
      node = new PlainFloat(parser.getDoubleValue(), parser.getText());
    } else {
      count(1);
      node = mapper.readTree(parser);
      if (node == null || node.isMissingNode()) {
        node = mapper.getNodeFactory().nullNode();
      }
    }
    if (anchor != null) {
      anchors.put(anchor, node);
    }
    return node;
  }

  private ObjectNode mapping(int depth) throws IOException {
    ObjectNode object = mapper.createObjectNode();
    count(1);
    List<JsonNode> merged = new ArrayList<>();
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String key = parser.currentName();
      JsonLocation at = parser.currentTokenLocation();
      parser.nextToken();
      JsonNode v = value(depth + 1);
      if (key.equals(MERGE_KEY)) {
        if (v.isObject()) {
          merged.add(v);
        } else if (v.isArray() && allMappings(v)) {
          v.forEach(merged::add);
        } else {
          throw new YamlException(at, "merge key [<<] needs a mapping or a list of mappings (e.g. <<: *defaults)");
        }
        continue;
      }
      if (object.has(key)) {
        throw new YamlException(at, "duplicate key [" + Problem.echo(key) + "]; give each key once");
      }
      object.set(key, v);
    }
    for (JsonNode m : merged) {
      for (Iterator<Map.Entry<String, JsonNode>> it = m.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> field = it.next();
        if (!object.has(field.getKey())) {
          object.set(field.getKey(), field.getValue());
        }
      }
    }
    return object;
  }

  private static boolean allMappings(JsonNode list) {
    for (JsonNode n : list) {
      if (!n.isObject()) {
        return false;
      }
    }
    return true;
  }

  private void count(long added) {
    nodes += (int) Math.min(added, MAX_NODES + 1L);
    if (nodes > MAX_NODES) {
      throw new YamlException(parser.currentTokenLocation(), "the document expands to more than " + MAX_NODES
          + " values (aliases included); an experiment needs a few hundred");
    }
  }

  private static long size(JsonNode node) {
    long n = 1;
    for (JsonNode child : node) {
      n += size(child);
      if (n > MAX_NODES) {
        return n;
      }
    }
    return n;
  }
}
