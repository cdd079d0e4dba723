package org.lockvisor.examples.backoff;

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
 * framework bound reach the lock as given (a factory that ignored one and kept its default fails
 * here), and creating a lock asks the context for its name, options, costs, lock word and symbols
 * only; it neither builds nor reads a kernel.
 */
class BackoffTicketLockFactoryTest {

  private static LockContext context(Map<String, String> options) {
    BackoffTicketLockFactory factory = new BackoffTicketLockFactory();
    LockContext context = mock(LockContext.class);
    when(context.name()).thenReturn("vm0/t/torture_lock");
    when(context.options()).thenReturn(OptionBinder.bind(factory, options));
    when(context.costs()).thenReturn(LockTestbed.defaultCosts());
    return context;
  }

  @Test
  void create_mockedContext_honoursTheGivenOptions() {
    LockContext context = context(Map.of("unit-ns", "7us", "backoff", "delay"));

    BackoffTicketLock lock = (BackoffTicketLock) new BackoffTicketLockFactory().create(context);

    assertThat(lock.name()).isEqualTo("vm0/t/torture_lock");
    assertThat(lock.unitNs()).isEqualTo(7_000);
    assertThat(lock.readsLockWord()).isFalse();
    verify(context).lockWord();
    verify(context, never()).kernel();
  }

  @Test
  void create_mockedContext_noOptionsGiven_theDeclaredDefaults() {
    BackoffTicketLock lock = (BackoffTicketLock) new BackoffTicketLockFactory().create(context(Map.of()));

    assertThat(lock.unitNs()).isEqualTo(500);
    assertThat(lock.readsLockWord()).isTrue();
  }
}
