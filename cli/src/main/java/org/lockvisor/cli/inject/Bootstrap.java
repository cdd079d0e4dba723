package org.lockvisor.cli.inject;

import com.google.common.collect.ImmutableList;
import com.google.inject.AbstractModule;
import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Module;
import com.google.inject.Stage;

/**
 * The one place that builds injectors (after Airlift's {@code Bootstrap}). Strict on purpose:
 * production stage (singletons are created, and fail, at start-up), explicit bindings only (no
 * just-in-time surprises), no circular proxies, and {@code @Inject} required on constructors.
 */
public final class Bootstrap {

  private Bootstrap() {}

  /** The injector the command line uses: built-in plugin kinds discovered in {@code loader}. */
  public static Injector standard(ClassLoader loader) {
    return createInjector(ImmutableList.of(
        PluginModule.discover(PluginKinds.BUILT_IN, loader),
        new ReproductionModule(),
        new ExperimentModule()));
  }

  public static Injector createInjector(Module... modules) {
    return createInjector(ImmutableList.copyOf(modules));
  }

  public static Injector createInjector(Iterable<? extends Module> modules) {
    ImmutableList<Module> all = ImmutableList.<Module>builder().add(new StrictModule()).addAll(modules).build();
    return Guice.createInjector(Stage.PRODUCTION, all);
  }

  private static final class StrictModule extends AbstractModule {
    @Override
    protected void configure() {
      binder().requireExplicitBindings();
      binder().disableCircularProxies();
      binder().requireAtInjectOnConstructors();
    }
  }
}
