package org.lockvisor.cli.inject;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import java.util.Map;
import org.lockvisor.reproductions.api.Reproduction;
import org.lockvisor.reproductions.api.Reproductions;

/** Exposes the multibound reproductions as a {@link Reproductions} registry. */
public final class ReproductionModule extends AbstractModule {

  @Provides
  @Singleton
  Reproductions reproductions(Map<String, Reproduction> byName) {
    return new Reproductions(byName);
  }
}
