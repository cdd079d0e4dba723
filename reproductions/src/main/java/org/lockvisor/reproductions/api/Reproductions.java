package org.lockvisor.reproductions.api;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSortedMap;
import java.util.Map;
import org.lockvisor.core.plugin.PluginChoice;

/** The registered reproductions, sorted by name, chosen by name with "did you mean". */
public final class Reproductions {

  private final PluginChoice<Reproduction> choice;

  public Reproductions(Map<String, ? extends Reproduction> reproductions) {
    this.choice = PluginChoice.of(Reproduction.KIND, reproductions);
  }

  /** @throws org.lockvisor.core.plugin.UnknownPluginException for an unknown name */
  public Reproduction choose(String name) {
    return choice.choose(name);
  }

  public ImmutableSortedMap<String, Reproduction> all() {
    return choice.all();
  }

  public ImmutableList<String> names() {
    return choice.all().keySet().asList();
  }

  public boolean isEmpty() {
    return choice.all().isEmpty();
  }
}
