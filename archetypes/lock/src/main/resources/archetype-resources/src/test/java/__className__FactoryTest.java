package ${package};

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.plugin.OptionBinder;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.testkit.LockTestbed;

/**
 * The factory against a mocked {@link LockContext}, before any machine runs: the options the
 * framework binds (from an experiment's YAML) reach the lock as given, so a factory that ignores
 * an option and keeps its default fails here. Add a line for every option you declare.
 */
class ${className}FactoryTest {

  private static LockContext context(Map<String, String> options) {
    LockContext context = mock(LockContext.class);
    when(context.name()).thenReturn("vm0/test_lock");
    // bound as the framework binds them: unknown keys and bad values are refused here
    when(context.options()).thenReturn(OptionBinder.bind(new ${className}Factory(), options));
    when(context.costs()).thenReturn(LockTestbed.defaultCosts());
    return context;
  }

  @Test
  void create_optionsGiven_theLockHonoursThem() {
    LockContext context = context(Map.of("unit-ns", "7us", "backoff", "delay"));

    ${className} lock = (${className}) new ${className}Factory().create(context);

    assertThat(lock.name()).isEqualTo("vm0/test_lock");
    assertThat(lock.unitNs()).isEqualTo(7_000);
    assertThat(lock.readsLockWord()).isFalse();
    verify(context, never()).kernel(); // creating a lock runs nothing
  }

  @Test
  void create_noOptionGiven_theDeclaredDefaults() {
    ${className} lock = (${className}) new ${className}Factory().create(context(Map.of()));

    assertThat(lock.unitNs()).isEqualTo(500);
    assertThat(lock.readsLockWord()).isTrue();
  }
}
