package org.lockvisor.studies.envelope;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.IntStream;
import org.lockvisor.studies.envelope.Band;

/**
 * What an envelope found, from the figures of every (sample, seed) run: for each judged quantity
 * the spread of its per-sample value (the mean over the seeds) and whether the published value lies
 * inside it; the samples that meet every band at once (the consistent region), or, when none does,
 * the closest sample by the summed {@link Band#distance}; and for each parameter its partial rank
 * correlation with each quantity. Pure computation: the same inputs give the same summary.
 *
 * @param dimensions the sampled parameters, in the plan's order
 * @param samples the Latin hypercube samples
 * @param seeds the seeds every sample ran with (common random numbers)
 * @param bands the quantities judged, in the reproduction's order (their {@code simulated} value is
 *     that of the first run read and is not used)
 * @param values per sample, per band key, the mean over the seeds ({@code NaN} where a run failed)
 * @param effect the key of the quantity the scatter plots and the headline PRCC use
 */
public record EnvelopeSummary(ImmutableList<Dimension> dimensions, ImmutableList<LatinHypercube.Sample> samples,
    ImmutableList<Long> seeds, ImmutableList<Band> bands, ImmutableList<ImmutableMap<String, Double>> values,
    String effect) {

  public EnvelopeSummary {
    checkArgument(samples.size() == values.size(), "%s samples, %s value sets", samples.size(), values.size());
    checkArgument(bands.stream().anyMatch(b -> b.key().equals(effect)), "effect [%s] is not a judged quantity", effect);
  }

  /** One quantity over the envelope. */
  public record Quantity(Band band, Optional<Spread> spread, boolean publishedInside, int samplesMeeting,
      ImmutableList<Double> prcc) {}

  /** The per-quantity summaries, in band order. */
  public ImmutableList<Quantity> quantities() {
    ImmutableList.Builder<Quantity> out = ImmutableList.builder();
    for (Band b : bands) {
      double[] v = column(b.key());
      boolean any = java.util.Arrays.stream(v).anyMatch(Double::isFinite);
      Optional<Spread> spread = any ? Optional.of(Spread.of(v)) : Optional.empty();
      int meeting = (int) java.util.Arrays.stream(v).filter(b::contains).count();
      out.add(new Quantity(b, spread, b.hasPublished() && spread.map(s -> s.contains(b.published())).orElse(false),
          meeting, prcc(v)));
    }
    return out.build();
  }

  /** The values of quantity {@code key} over the samples. */
  public double[] column(String key) {
    return values.stream().mapToDouble(m -> m.getOrDefault(key, Double.NaN)).toArray();
  }

  /** The parameters' numbers (a choice's index) of every sample, n by k. */
  public double[][] design() {
    double[][] x = new double[samples.size()][];
    for (int i = 0; i < x.length; i++) {
      x[i] = samples.get(i).numbers().stream().mapToDouble(Double::doubleValue).toArray();
    }
    return x;
  }

  /** PRCC of each parameter with {@code y}, over the samples where y is finite. */
  public ImmutableList<Double> prcc(double[] y) {
    int[] ok = IntStream.range(0, y.length).filter(i -> Double.isFinite(y[i])).toArray();
    double[][] all = design();
    double[][] x = new double[ok.length][];
    double[] yy = new double[ok.length];
    for (int i = 0; i < ok.length; i++) {
      x[i] = all[ok[i]];
      yy[i] = y[ok[i]];
    }
    double[] r = ok.length == 0 ? new double[dimensions.size()] : PartialRankCorrelation.of(x, yy);
    if (ok.length == 0) {
      java.util.Arrays.fill(r, Double.NaN);
    }
    ImmutableList.Builder<Double> out = ImmutableList.builder();
    for (double d : r) {
      out.add(d);
    }
    return out.build();
  }

  /** The indexes of the samples whose every quantity meets its band (the consistent region). */
  public ImmutableList<Integer> consistent() {
    ImmutableList.Builder<Integer> out = ImmutableList.builder();
    for (int i = 0; i < values.size(); i++) {
      if (distance(i) == 0) {
        out.add(i);
      }
    }
    return out.build();
  }

  /**
   * The sum over the bands of {@link Band#distance} of sample {@code i}'s value: 0 when it meets
   * every band; a failed quantity counts as infinitely far.
   */
  public double distance(int i) {
    double d = 0;
    for (Band b : bands) {
      double v = values.get(i).getOrDefault(b.key(), Double.NaN);
      d += Double.isFinite(v) ? b.distance(v) : Double.POSITIVE_INFINITY;
    }
    return d;
  }

  /** The sample with the smallest {@link #distance} (the first of equals); empty without samples. */
  public OptionalInt closest() {
    return IntStream.range(0, values.size()).boxed().min(Comparator.comparingDouble(this::distance)
        .thenComparingInt(i -> i)).map(OptionalInt::of).orElse(OptionalInt.empty());
  }

  /** The {@code n} parameters with the largest |PRCC| on the effect, most influential first (NaN last). */
  public ImmutableList<Integer> mostInfluential(int n) {
    List<Double> r = prcc(column(effect));
    List<Integer> idx = new ArrayList<>(IntStream.range(0, dimensions.size()).boxed().toList());
    idx.sort(Comparator.comparingDouble((Integer j) -> Double.isNaN(r.get(j)) ? -1 : Math.abs(r.get(j))).reversed()
        .thenComparingInt(j -> j));
    return ImmutableList.copyOf(idx.subList(0, Math.min(n, idx.size())));
  }

  /**
   * The summary as plain JSON values (maps in insertion order, lists, numbers, strings, booleans,
   * {@code null} for a non-finite number).
   */
  public Map<String, Object> json() {
    Map<String, Object> out = new LinkedHashMap<>();
    List<Object> params = new ArrayList<>();
    for (Dimension d : dimensions) {
      Map<String, Object> p = new LinkedHashMap<>();
      p.put("name", d.name());
      if (d instanceof Dimension.Choice c) {
        p.put("values", c.values());
      } else if (d instanceof Dimension.Whole w) {
        p.put("low", w.low());
        p.put("high", w.high());
        p.put("log", w.log());
      } else {
        Dimension.Continuous c = (Dimension.Continuous) d;
        p.put("low", c.low());
        p.put("high", c.high());
        p.put("log", c.log());
      }
      p.put("source", d.source());
      params.add(p);
    }
    out.put("parameters", params);
    out.put("samples", samples.size());
    out.put("seeds", seeds);
    out.put("effect", effect);
    List<Object> qs = new ArrayList<>();
    for (Quantity q : quantities()) {
      Band b = q.band();
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("key", b.key());
      m.put("quantity", b.quantity());
      m.put("column", b.column());
      m.put("baselineOnly", b.baselineOnly());
      m.put("published", num(b.published()));
      m.put("low", num(b.low()));
      m.put("high", num(b.high()));
      q.spread().ifPresentOrElse(s -> {
        Map<String, Object> sp = new LinkedHashMap<>();
        sp.put("n", s.n());
        sp.put("min", s.min());
        sp.put("q1", s.q1());
        sp.put("median", s.median());
        sp.put("q3", s.q3());
        sp.put("max", s.max());
        m.put("simulated", sp);
      }, () -> m.put("simulated", null));
      m.put("publishedInside", q.publishedInside());
      m.put("samplesMeetingBand", q.samplesMeeting());
      Map<String, Object> prcc = new LinkedHashMap<>();
      for (int j = 0; j < dimensions.size(); j++) {
        prcc.put(dimensions.get(j).name(), num(q.prcc().get(j)));
      }
      m.put("prcc", prcc);
      qs.add(m);
    }
    out.put("quantities", qs);
    List<Object> region = new ArrayList<>();
    for (int i : consistent()) {
      region.add(sampleJson(i));
    }
    out.put("consistent", region);
    closest().ifPresent(i -> {
      Map<String, Object> c = sampleJson(i);
      c.put("distance", num(distance(i)));
      Map<String, Object> per = new LinkedHashMap<>();
      for (Band b : bands) {
        double v = values.get(i).getOrDefault(b.key(), Double.NaN);
        per.put(b.key(), Double.isFinite(v) ? num(b.distance(v)) : null);
      }
      c.put("bandDistances", per);
      out.put("closest", c);
    });
    List<Object> rows = new ArrayList<>();
    for (int i = 0; i < samples.size(); i++) {
      rows.add(sampleJson(i));
    }
    out.put("sampleValues", rows);
    return out;
  }

  private Map<String, Object> sampleJson(int i) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("sample", i);
    m.put("setting", new LinkedHashMap<>(samples.get(i).values()));
    Map<String, Object> v = new LinkedHashMap<>();
    for (Band b : bands) {
      v.put(b.key(), num(values.get(i).getOrDefault(b.key(), Double.NaN)));
    }
    m.put("values", v);
    return m;
  }

  private static Object num(double v) {
    return Double.isFinite(v) ? v : null;
  }
}
