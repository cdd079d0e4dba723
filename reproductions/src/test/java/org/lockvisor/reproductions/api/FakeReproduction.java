package org.lockvisor.reproductions.api;

import com.google.common.collect.ImmutableMap;
import java.util.List;

/** Test-only reproduction, registered in src/test/resources/META-INF/services. */
public final class FakeReproduction implements Reproduction {

  @Override
  public String name() {
    return "fake-repro";
  }

  @Override
  public String summary() {
    return "a reproduction that always reproduces";
  }

  @Override
  public ReproductionResult run(ReproductionOptions options) {
    return ReproductionResult.of(name(), true, "reproduced", List.of("a | b"),
        ImmutableMap.of("quick", options.quick() ? 1.0 : 0.0));
  }
}
