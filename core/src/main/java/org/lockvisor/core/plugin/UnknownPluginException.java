package org.lockvisor.core.plugin;

import com.google.common.collect.ImmutableSortedSet;
import java.util.Collection;

/**
 * A plugin was chosen by a name that no registered plugin of that kind has. This is the user's
 * mistake, not a bug: the CLI reports the message alone and exits with status 2.
 */
public final class UnknownPluginException extends IllegalArgumentException {

  private final String kind;
  private final String name;
  private final ImmutableSortedSet<String> known;

  public UnknownPluginException(String kind, String name, Collection<String> known) {
    super(DidYouMean.unknownMessage(kind, name, known));
    this.kind = kind;
    this.name = name;
    this.known = ImmutableSortedSet.copyOf(known);
  }

  public String kind() {
    return kind;
  }

  public String name() {
    return name;
  }

  public ImmutableSortedSet<String> known() {
    return known;
  }
}
