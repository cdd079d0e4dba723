package org.lockvisor.experiment.inject;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import java.util.Map;
import org.lockvisor.experiment.Reproduction;
import org.lockvisor.experiment.Reproductions;

/** Exposes the multibound reproductions as a {@link Reproductions} registry. */
public final class ReproductionModule extends AbstractModule {

  @Provides
  @Singleton
  Reproductions reproductions(Map<String, Reproduction> byName) {
    return new Reproductions(byName);
  }
}
