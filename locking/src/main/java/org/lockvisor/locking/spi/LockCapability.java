package org.lockvisor.locking.spi;

import com.google.common.collect.ImmutableSortedSet;
import java.util.Locale;
import java.util.Set;

/**
 * What a lock plugin declares about its algorithm: a closed vocabulary, so a typo fails at
 * discovery instead of silently skipping the contract tests the capability gates (after
 * Caffeine's {@code Policy.Characteristic}). {@code lockvisor plugins} prints the kebab-case
 * {@link #label()}s.
 */
public enum LockCapability {
  /** Acquisition order equals arrival order (contract test: FIFO with and without preemption). */
  FIFO,
  /** Deliberately unfair: any spinner may take a released lock (tas, ppc-splpar). */
  UNFAIR,
  /** Paravirtual: waiters halt (pv_wait) and are kicked (pv_kick) (contract test: halts and kicks). */
  PV,
  /** Waiters sleep (contract test: long holds make waiters sleep). */
  SLEEPING,
  /** Readers share the lock (contract test: readers overlap). */
  SHARED,
  /** Spin loops consult {@code vcpu_is_preempted} when the kernel has the check. */
  VCPU_PREEMPTED_CHECK,
  /** A sleeping lock that spins on its owner before sleeping (CONFIG_MUTEX_SPIN_ON_OWNER). */
  OPTIMISTIC_SPIN,
  /** Ownership can be handed directly to a waiter (mutex HANDOFF). */
  HANDOFF,
  /** Waiters give their cycles to the holder's vCPU (H_CONFER, directed yield). */
  CONFER;

  /** Each constant's {@link #label()}, by ordinal: checking a plugin allocates nothing. */
  private static final String[] LABELS;
  private static final LockCapability[] ALL = values();

  static {
    LockCapability[] all = ALL;
    LABELS = new String[all.length];
    for (LockCapability c : all) {
      LABELS[c.ordinal()] = c.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
  }

  /** The declared spelling, e.g. {@code vcpu-preempted-check}. */
  public String label() {
    return LABELS[ordinal()];
  }

  /** The constant for a label, or null. */
  public static LockCapability ofLabel(String label) {
    for (int i = 0; i < LABELS.length; i++) {
      if (LABELS[i].equals(label)) {
        return ALL[i];
      }
    }
    return null;
  }

  /** Every label, sorted (for messages). */
  public static ImmutableSortedSet<String> labels() {
    ImmutableSortedSet.Builder<String> b = ImmutableSortedSet.naturalOrder();
    for (LockCapability c : values()) {
      b.add(c.label());
    }
    return b.build();
  }

  /**
   * Checks what {@code factory} declares: every capability string must be a label of this
   * vocabulary. Discovery calls it, so a plugin declaring {@code "FIFO"} or {@code "fifo "} fails
   * loudly with the known labels.
   *
   * @throws IllegalArgumentException naming the plugin, the bad capability and the known ones
   */
  public static void check(LockFactory factory) {
    Set<String> declared = factory.capabilities();
    if (declared.stream().allMatch(c -> ofLabel(c) != null)) {
      return;
    }
    // the first bad one in sorted order, so the message does not depend on the set's order
    String bad = ImmutableSortedSet.copyOf(declared).stream().filter(c -> ofLabel(c) == null).findFirst().orElseThrow();
    throw new IllegalArgumentException(org.lockvisor.core.plugin.DidYouMean.unknownMessage(
        "capability of lock plugin [" + factory.name() + "]:", bad, labels()));
  }
}
