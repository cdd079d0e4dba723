package org.lockvisor.experiment.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code --set} path language, one override at a time: {@code vms[0].locks.spinlock=ticket}
 * applied to the tree of the YAML form. Paths are dot-separated keys, each optionally indexed
 * ({@code key[1]}, {@code key[0][2]}); the value is read as a YAML scalar or flow collection. The
 * same language serves {@code --set}, named variants and sweep points ({@link ExperimentVariants}).
 */
final class OverridePath {

  /** The longest {@code --set} path; an experiment's paths are a few dozen characters. */
  static final int MAX_PATH_LENGTH = 256;

  private static final Pattern SEGMENT = Pattern.compile("([a-zA-Z0-9_-]+)((?:\\[\\d+])*)");

  private OverridePath() {}


  /**
   * Applies {@code path=value} to {@code tree}: the value is read as a YAML scalar or flow
   * collection ({@code 8}, {@code true}, {@code ticket}, {@code [0, 1]}); missing mappings on the
   * way are created; a list index may be at most the list's size (which appends).
   *
   * @return the problem, or null when applied
   */
  static Problem set(ObjectNode tree, String path, String value) {
    if (path == null || path.isBlank()) {
      return new Problem("", "empty override path in [" + path + "=" + value + "]");
    }
    JsonNode parsedValue;
    try {
      parsedValue = value == null || value.isEmpty() ? JsonNodeFactory.instance.textNode("")
          : YamlTree.read(ExperimentYamlParser.MAPPER, value);
      if (parsedValue == null || parsedValue.isMissingNode()) {
        parsedValue = JsonNodeFactory.instance.textNode(value);
      }
    } catch (JsonProcessingException e) {
      return new Problem(path, "cannot read value [" + Problem.echo(value) + "]: " + ExperimentYamlParser.firstLine(e.getOriginalMessage()));
    } catch (YamlTree.YamlException e) {
      return new Problem(path, "cannot read value [" + Problem.echo(value) + "]: " + e.getMessage());
    }
    if (path.length() > MAX_PATH_LENGTH) {
      return new Problem(Problem.echo(path), "override path of " + path.length() + " characters; at most "
          + MAX_PATH_LENGTH);
    }
    String[] parts = path.split("\\.", -1);
    JsonNode current = tree;
    StringBuilder walked = new StringBuilder();
    for (int p = 0; p < parts.length; p++) {
      Matcher m = SEGMENT.matcher(parts[p]);
      if (!m.matches()) {
        return new Problem(path, "bad path segment [" + parts[p] + "]; expected key or key[index]");
      }
      String key = m.group(1);
      List<Integer> indexes = new ArrayList<>();
      Matcher idx = Pattern.compile("\\[(\\d+)]").matcher(m.group(2));
      while (idx.find()) {
        try {
          indexes.add(Integer.parseInt(idx.group(1)));
        } catch (NumberFormatException e) {
          return new Problem(path, "index [" + idx.group(1) + "] is too large");
        }
      }
      if (!current.isObject()) {
        return new Problem(walked.toString(), "cannot set [" + key + "] inside " + ExperimentBinder.describe(current));
      }
      ObjectNode object = (ObjectNode) current;
      walked.append(walked.length() == 0 ? "" : ".").append(key);
      boolean last = p == parts.length - 1;
      if (indexes.isEmpty()) {
        if (last) {
          object.set(key, parsedValue);
          return null;
        }
        JsonNode next = object.get(key);
        if (next == null || next.isNull()) {
          next = object.putObject(key);
        }
        current = next;
        continue;
      }
      JsonNode list = object.get(key);
      if (list == null || list.isNull()) {
        list = object.putArray(key);
      }
      for (int i = 0; i < indexes.size(); i++) {
        int index = indexes.get(i);
        if (!list.isArray()) {
          return new Problem(walked.toString(), "is " + ExperimentBinder.describe(list) + ", not a list");
        }
        ArrayNode array = (ArrayNode) list;
        if (index > array.size()) {
          return new Problem(walked + "[" + index + "]", "index [" + index + "] is out of range; the list has "
              + array.size() + " entries");
        }
        walked.append('[').append(index).append(']');
        boolean lastIndex = last && i == indexes.size() - 1;
        if (lastIndex) {
          if (index == array.size()) {
            array.add(parsedValue);
          } else {
            array.set(index, parsedValue);
          }
          return null;
        }
        if (index == array.size()) {
          array.add(i == indexes.size() - 1 ? JsonNodeFactory.instance.objectNode()
              : JsonNodeFactory.instance.arrayNode());
        }
        list = array.get(index);
      }
      current = list;
    }
    return null;
  }
}
