package org.lockvisor.experiment.report;

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

  /** Frames may not contain the weight separator or a newline. */
  private static String sanitize(String folded) {
    return folded.replace(' ', '_').replace('\n', '_');
  }
}
