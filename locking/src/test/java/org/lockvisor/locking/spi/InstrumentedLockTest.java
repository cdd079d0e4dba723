package org.lockvisor.locking.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.inOrder;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import org.junit.jupiter.api.Test;
import org.mockito.InOrder;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Task;

/**
 * The one wrapper calls what is added at a lock's op boundaries as nested wrappers would: the
 * last added sees an arrival and a release first and an acquisition last, all around the plugin's
 * own op. Mocks are the right tool: the boundaries and the lock are interfaces, and what is tested
 * is the order of the calls, not a simulation.
 */
class InstrumentedLockTest {
  private final Task task = mock(Task.class);
  private final Op innerLock = mock(Op.class);
  private final Op innerUnlock = mock(Op.class);
  private final KernelLock lock = mock(KernelLock.class);
  private final LockBoundaries first = mock(LockBoundaries.class);
  private final LockBoundaries second = mock(LockBoundaries.class);

  private InstrumentedLock wrapped() {
    when(lock.supports(LockMode.PLAIN)).thenReturn(true);
    when(lock.lock(LockMode.PLAIN)).thenReturn(innerLock);
    when(lock.unlock(LockMode.PLAIN)).thenReturn(innerUnlock);
    when(innerLock.execute(task, 0)).thenReturn(Op.NEXT);
    when(innerUnlock.execute(task, 0)).thenReturn(Op.NEXT);
    InstrumentedLock w = InstrumentedLock.observe(lock, first);
    assertThat(InstrumentedLock.observe(w, second)).as("one wrapper, not a second around it").isSameAs(w);
    return w;
  }

  @Test
  void lockAndUnlock_twoBoundaries_calledAsNestedWrappers() {
    InstrumentedLock w = wrapped();

    assertThat(w.lock(LockMode.PLAIN).execute(task, 0)).isEqualTo(Op.NEXT);
    assertThat(w.unlock(LockMode.PLAIN).execute(task, 0)).isEqualTo(Op.NEXT);

    InOrder order = inOrder(second, first, innerLock, innerUnlock);
    order.verify(second).acquiring(task, false, 0);
    order.verify(first).acquiring(task, false, 0);
    order.verify(innerLock).execute(task, 0);
    order.verify(first).acquired(task, false);
    order.verify(second).acquired(task, false);
    order.verify(second).releasing(task, false);
    order.verify(first).releasing(task, false);
    order.verify(innerUnlock).execute(task, 0);
    order.verifyNoMoreInteractions();
  }

  @Test
  void lockThatReportsItsOwnAccounting_wrappedOnlyForTheBoundaries_itsOwnStats() {
    LockStats stats = new LockStats();
    when(lock.stats()).thenReturn(stats);
    InstrumentedLock w = wrapped();

    assertThat(w.stats()).isSameAs(stats);
    assertThat(w.delegate()).isSameAs(lock);
  }
}
