package org.lockvisor.reports;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntPredicate;
import org.lockvisor.core.account.CpuTimeAccount;
import org.lockvisor.core.account.SymbolTable;

/**
 * Folded stacks ({@code frame;frame;frame weight}, one per line) from the exact CPU-time account,
 * ready for {@code flamegraph.pl}, {@code difffolded.pl} and speedscope. Stacks start with the
 * thread's name (the machine roots each task's stacks at it), so a flame graph splits by thread
 * first, as {@code perf script | stackcollapse-perf.pl} does with {@code --tid}. Weights are
 * nanoseconds of simulated CPU time (integers, as the tools expect); lines are sorted so two runs
 * diff cleanly, and a baseline/patched pair written with the same filters feeds
 * {@code difffolded.pl} directly.
 */
public final class FoldedStacks {

  private FoldedStacks() {}

  /**
   * Folds the account.
   *
   * @param cpus which CPU ids to include (e.g. only the host's physical CPUs, or one VM's guest CPUs)
   * @param leafFilter which leaf symbols to include (everything, or only spin symbols for a spin graph)
   */
  public static String fold(CpuTimeAccount account, SymbolTable symbols, IntPredicate cpus, IntPredicate leafFilter) {
    Map<String, Long> weights = new TreeMap<>();
    account.forEach((cpu, thread, stack, ns) -> {
      if (ns <= 0 || stack == 0 || !cpus.test(cpu) || !leafFilter.test(symbols.leaf(stack))) {
        return;
      }
      weights.merge(sanitize(symbols.folded(stack)), ns, Long::sum);
    });
    StringBuilder out = new StringBuilder();
    weights.forEach((stack, ns) -> out.append(stack).append(' ').append(ns).append('\n'));
    return out.toString();
  }

  /** Names the root frame of a (cpu, thread) pair, or returns {@code null} to leave it out. */
  @FunctionalInterface
  public interface Root {
    String of(int cpu, int thread);
  }

  /**
   * Folds the account with a root frame before the thread (e.g. {@code host} or the VM's name);
   * {@code root} returning {@code null} leaves the entry out (e.g. idle tasks).
   */
  public static String foldRooted(CpuTimeAccount account, SymbolTable symbols, Root root,
      IntPredicate leafFilter) {
    Map<String, Long> weights = new TreeMap<>();
    account.forEach((cpu, thread, stack, ns) -> {
      if (ns <= 0 || stack == 0 || !leafFilter.test(symbols.leaf(stack))) {
        return;
      }
      String r = root.of(cpu, thread);
      if (r != null) {
        weights.merge(sanitize(r) + ";" + sanitize(symbols.folded(stack)), ns, Long::sum);
      }
    });
    StringBuilder out = new StringBuilder();
    weights.forEach((stack, ns) -> out.append(stack).append(' ').append(ns).append('\n'));
    return out.toString();
  }

  /**
   * The differential pair as one file in {@code difffolded.pl}'s output layout ({@code stack
   * before after}, a stack missing on one side counts 0 there), which {@code flamegraph.pl} draws
   * as a differential flame graph (red: grew, blue: shrank).
   */
  public static String diff(String before, String after) {
    Map<String, long[]> both = new TreeMap<>();
    parse(before).forEach((stack, ns) -> both.computeIfAbsent(stack, k -> new long[2])[0] = ns);
    parse(after).forEach((stack, ns) -> both.computeIfAbsent(stack, k -> new long[2])[1] = ns);
    StringBuilder out = new StringBuilder();
    both.forEach((stack, w) -> out.append(stack).append(' ').append(w[0]).append(' ').append(w[1]).append('\n'));
    return out.toString();
  }

  /**
   * Parses folded stacks back (weights of repeated stacks add up).
   *
   * @throws IllegalArgumentException naming the first malformed line
   */
  public static Map<String, Long> parse(String folded) {
    Map<String, Long> out = new TreeMap<>();
    int n = 0;
    for (String line : folded.split("\n")) {
      n++;
      if (line.isEmpty()) {
        continue;
      }
      int sp = line.lastIndexOf(' ');
      if (sp <= 0 || line.substring(0, sp).contains(" ") || line.startsWith(";") || line.contains(";;")) {
        throw new IllegalArgumentException("folded line " + n + " is not [frame;frame weight]: [" + line + "]");
      }
      long w;
      try {
        w = Long.parseLong(line.substring(sp + 1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("folded line " + n + " has no integer weight: [" + line + "]");
      }
      out.merge(line.substring(0, sp), w, Long::sum);
    }
    return out;
  }

  /** Frames may not contain the weight separator or a newline. */
  private static String sanitize(String folded) {
    return folded.replace(' ', '_').replace('\n', '_');
  }
}
