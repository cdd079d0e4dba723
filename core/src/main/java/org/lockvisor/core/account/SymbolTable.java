package org.lockvisor.core.account;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Interns symbol names (e.g. kernel function names) and call stacks made of them, so that hot
 * paths charge time to an {@code int} stack id. Stack 0 is the empty stack. Each symbol carries
 * a small integer tag chosen by the layer above (the machine uses it for the domain: kernel,
 * user, hypervisor); core gives it no meaning.
 */
public final class SymbolTable {
  private final Map<String, Integer> ids = new HashMap<>();
  private final List<String> names = new ArrayList<>();
  private final List<Integer> tags = new ArrayList<>();
  // stack id -> (parent, symbol)
  private int[] stackParent = new int[256];
  private int[] stackSymbol = new int[256];
  private int[] stackDepth = new int[256];
  private int stacks = 1;
  private final LongLongMap stackIndex = new LongLongMap(256);

  public SymbolTable() {
    stackParent[0] = -1;
    stackSymbol[0] = -1;
  }

  /** The id of {@code name}, interning it with tag 0 if new. */
  public int symbol(String name) {
    return symbol(name, 0);
  }

  /** The id of {@code name}; a new symbol gets {@code tag}, an existing one keeps its own. */
  public int symbol(String name, int tag) {
    checkArgument(name != null && !name.isEmpty(), "symbol name must not be empty");
    Integer id = ids.get(name);
    if (id != null) {
      return id;
    }
    int n = names.size();
    ids.put(name, n);
    names.add(name);
    tags.add(tag);
    return n;
  }

  public String name(int symbol) {
    return names.get(symbol);
  }

  public int tag(int symbol) {
    return tags.get(symbol);
  }

  public int symbolCount() {
    return names.size();
  }

  /** The stack made of {@code parentStack} with {@code symbol} pushed on top. */
  public int push(int parentStack, int symbol) {
    long key = ((long) parentStack << 32) | symbol;
    long found = stackIndex.get(key, -1);
    if (found >= 0) {
      return (int) found;
    }
    if (stacks == stackParent.length) {
      int n = stacks * 2;
      stackParent = java.util.Arrays.copyOf(stackParent, n);
      stackSymbol = java.util.Arrays.copyOf(stackSymbol, n);
      stackDepth = java.util.Arrays.copyOf(stackDepth, n);
    }
    int id = stacks++;
    stackParent[id] = parentStack;
    stackSymbol[id] = symbol;
    stackDepth[id] = parentStack == 0 ? 1 : stackDepth[parentStack] + 1;
    stackIndex.put(key, id);
    return id;
  }

  /** The top (leaf) symbol of a stack, or -1 for the empty stack. */
  public int leaf(int stack) {
    return stackSymbol[stack];
  }

  public int parent(int stack) {
    return stackParent[stack];
  }

  public int depth(int stack) {
    return stackDepth[stack];
  }

  public int stackCount() {
    return stacks;
  }

  /** Symbol ids of a stack from the outermost frame to the leaf. */
  public int[] frames(int stack) {
    int[] out = new int[stackDepth[stack]];
    for (int s = stack, i = out.length - 1; s > 0; s = stackParent[s], i--) {
      out[i] = stackSymbol[s];
    }
    return out;
  }

  /** The stack as {@code a;b;c} (folded-stack form). */
  public String folded(int stack) {
    StringBuilder sb = new StringBuilder();
    for (int f : frames(stack)) {
      if (sb.length() > 0) {
        sb.append(';');
      }
      sb.append(names.get(f));
    }
    return sb.toString();
  }
}
