package org.lockvisor.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.collect.ImmutableSortedMap;
import com.google.common.collect.ImmutableSortedSet;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import org.lockvisor.arch.spi.ArchProfileFactory;
import org.lockvisor.arch.spi.Cost;
import org.lockvisor.core.plugin.PluginDescriptor;
import org.lockvisor.core.plugin.PluginOption;
import org.lockvisor.reproductions.api.Reproduction;
import org.lockvisor.reproductions.api.ReproductionParameter;
import org.lockvisor.reproductions.api.ReproductionResult;
import org.lockvisor.reproductions.api.Reproductions;
import org.lockvisor.reproductions.api.WhatIf;
import org.lockvisor.studies.envelope.Band;

/**
 * The CLI's JSON shapes, built explicitly as trees: the model stays free of Jackson annotations
 * and the field names here are the contract scripts rely on.
 */
final class Json {

  static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private Json() {}

  static String write(Object tree) {
    try {
      return MAPPER.writeValueAsString(tree);
    } catch (JsonProcessingException e) {
      // Trees of strings and numbers always serialize; reaching here is a bug.
      throw new IllegalStateException("cannot serialize JSON", e);
    }
  }

  /**
   * {@code [{kind, name, summary, version, jar (built-in, or the jar it came from), capabilities: [..], options: [{..}]}]}. A reproduction registered in {@code reproductions} also gets {@code whatIf: {parameters:
   * [{name, allowed, doc}], profiles: [..]}}: what {@code reproduce NAME --set} accepts.
   */
  static ArrayNode plugins(List<PluginDescriptor> plugins, Reproductions reproductions,
      Function<PluginDescriptor, String> origin, ImmutableSortedMap<String, ArchProfileFactory> profiles) {
    ArrayNode array = MAPPER.createArrayNode();
    for (PluginDescriptor plugin : plugins) {
      ObjectNode node = array.addObject()
          .put("kind", plugin.kind())
          .put("name", plugin.name())
          .put("summary", plugin.summary())
          .put("version", plugin.version())
          .put("jar", origin.apply(plugin));
      plugin.capabilities().forEach(node.putArray("capabilities")::add);
      ArrayNode options = node.putArray("options");
      for (PluginOption option : plugin.options()) {
        ObjectNode o = options.addObject()
            .put("name", option.name())
            .put("type", option.type().name().toLowerCase(Locale.ROOT))
            .put("default", option.defaultValue())
            .put("doc", option.doc());
        option.allowed().forEach(o.putArray("allowed")::add);
        switch (option.type()) {
          // Whole numbers print as such: "min": 1000, not 1000.0.
          case INTEGER, DURATION_NS -> o.put("min", (long) option.min()).put("max", (long) option.max());
          case DOUBLE -> o.put("min", option.min()).put("max", option.max());
          default -> { }
        }
      }
      if (ArchProfileFactory.KIND.equals(plugin.kind()) && profiles.containsKey(plugin.name())) {
        ArrayNode costs = node.putArray("costs");
        for (Cost c : profiles.get(plugin.name()).create().costs().costs()) {
          ObjectNode o = costs.addObject().put("key", c.key().name());
          if (c.isNotApplicable()) {
            o.putNull("value");
          } else if (c.value() == Math.rint(c.value()) && Math.abs(c.value()) < 1e15) {
            o.put("value", (long) c.value()); // whole numbers print as such: 1000, not 1000.0
          } else {
            o.put("value", c.value());
          }
          o.put("unit", c.key().unit().symbol())
              .put("confidence", c.isNotApplicable() ? "n/a" : c.source().confidence().name())
              .put("source", c.source().reference());
          c.range().ifPresent(r -> o.putObject("range").put("low", r.low()).put("high", r.high())
              .put("log", r.spansDecades()));
        }
      }
      if (Reproduction.KIND.equals(plugin.kind()) && reproductions.names().contains(plugin.name())) {
        Reproduction r = reproductions.choose(plugin.name());
        ObjectNode whatIf = node.putObject("whatIf");
        ArrayNode parameters = whatIf.putArray("parameters");
        for (ReproductionParameter<?> p : r.parameters()) {
          ObjectNode param = parameters.addObject().put("name", p.name()).put("allowed", p.allowed())
              .put("doc", p.description());
          p.domain().ifPresent(d -> param.put("default", p.defaultValue().orElseThrow())
              .put("domain", ReproductionParameter.domainText(d)).put("source", d.source()));
          String path = pathText(r, p);
          if (!path.isEmpty()) {
            param.put("path", path);
          }
        }
        ImmutableSortedSet.copyOf(r.archProfiles()).forEach(whatIf.putArray("profiles")::add);
        if (!r.experimentFiles().isEmpty()) {
          r.experimentFiles().forEach(whatIf.putArray("experimentFiles")::add);
        }
      }
    }
    return array;
  }

  /**
   * Where parameter {@code p} of {@code r} is written, comma-separated: its own targets ({@code
   * path} or {@code file.yaml path}) and the derived bindings that read it ({@code file.yaml path
   * (from a, b)}: the path's value is a function of those parameters); empty when the reproduction
   * applies it itself. The {@code path} field of {@code plugins --format json}.
   */
  static String pathText(Reproduction r, ReproductionParameter<?> p) {
    java.util.List<String> out = new java.util.ArrayList<>();
    if (!p.targets().isEmpty()) {
      out.add(p.targetText());
    }
    r.derivedBindings().of(p.name()).forEach(b -> out.add(b.text()));
    return String.join(", ", out);
  }

  /**
   * {@code {experiment, name, reproduced, headline, <the reproduction's own data>, report: [..],
   * metrics: {..}}}.
   */
  static ObjectNode reproduction(ReproductionResult result) {
    return reproduction(result, WhatIf.NONE);
  }

  /**
   * {@link #reproduction(ReproductionResult)} of a what-if run: {@code whatIf: {costs: {profile:
   * {KEY: number}}, parameters: {name: "value"}}} follows the headline (absent without a what-if).
   */
  static ObjectNode reproduction(ReproductionResult result, WhatIf whatIf) {
    ObjectNode node = MAPPER.createObjectNode()
        .put("experiment", result.name())
        .put("name", result.name())
        .put("reproduced", result.reproduced())
        .put("headline", result.headline());
    if (!whatIf.isEmpty()) {
      node.set("whatIf", MAPPER.valueToTree(whatIf.json()));
    }
    result.data().forEach((key, value) -> node.set(key, MAPPER.valueToTree(value)));
    result.report().forEach(node.putArray("report")::add);
    ObjectNode metrics = node.putObject("metrics");
    result.metrics().forEach(metrics::put);
    if (!result.bands().isEmpty()) {
      node.set("bands", bands(result.bands()));
    }
    return node;
  }

  /**
   * {@code [{key, quantity, column, published, low, high, simulated, met, baselineOnly}]}; a
   * missing published figure and an open band end are {@code null}.
   */
  static ArrayNode bands(List<Band> bands) {
    ArrayNode out = MAPPER.createArrayNode();
    for (Band b : bands) {
      ObjectNode n = out.addObject().put("key", b.key()).put("quantity", b.quantity()).put("column", b.column());
      number(n, "published", b.published());
      number(n, "low", b.low());
      number(n, "high", b.high());
      number(n, "simulated", b.simulated());
      n.put("met", b.met()).put("baselineOnly", b.baselineOnly());
    }
    return out;
  }

  private static void number(ObjectNode n, String field, double v) {
    if (Double.isFinite(v)) {
      n.put(field, v);
    } else {
      n.putNull(field);
    }
  }

  /** {@code {name, error}} for a reproduction whose simulation failed. */
  static ObjectNode reproductionFailure(String name, String error) {
    return reproductionFailure(name, error, WhatIf.NONE);
  }

  /** {@code {name, error, whatIf}} for a what-if whose simulation failed ({@code whatIf} absent without one). */
  static ObjectNode reproductionFailure(String name, String error, WhatIf whatIf) {
    ObjectNode node = MAPPER.createObjectNode().put("name", name).put("error", error);
    if (!whatIf.isEmpty()) {
      node.set("whatIf", MAPPER.valueToTree(whatIf.json()));
    }
    return node;
  }
}
