package org.lockvisor.locking.builtin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockCapability;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.machine.VcpuPreemptedHook;

/**
 * Built-ins are discoverable under stable unique names; options are strict; capabilities are a
 * closed vocabulary, so a capability outside it fails when the lock is made.
 */
class RegistryAndOptionsTest {

  @Test
  void serviceLoader_findsEveryBuiltinOnceByName() {
    List<String> names = ServiceLoader.load(LockFactory.class).stream().map(p -> p.get().name()).sorted().toList();
    assertThat(names).containsExactly("mutex-count", "mutex-owner", "osq", "ppc-splpar", "ppc-splpar-rwlock",
        "pv-qspinlock", "pv-ticket", "qrwlock", "qspinlock", "rwsem-xadd", "tas", "ticket");
  }

  @Test
  void create_unknownOption_failsWithDidYouMean() {
    Rig rig = new Rig(1, 1, 1, 0, VcpuPreemptedHook.NEVER);
    assertThatThrownBy(() -> rig.lock(new CountMutexFactory(), false, Map.of("wait-lok", "ticket")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[wait-lok]")
        .hasMessageContaining("did you mean [wait-lock]");
  }

  @Test
  void create_badEnumValue_listsAllowedValues() {
    Rig rig = new Rig(1, 1, 1, 0, VcpuPreemptedHook.NEVER);
    assertThatThrownBy(() -> rig.lock(new CountMutexFactory(), false, Map.of("wait-lock", "qspinlok")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[qspinlok]")
        .hasMessageContaining("qspinlock");
  }

  @Test
  void create_validOptions_accepted() {
    Rig rig = new Rig(1, 1, 1, 0, VcpuPreemptedHook.NEVER);
    assertThat(rig.lock(new CountMutexFactory(), false, Map.of("wait-lock", "ticket", "wake", "inside-wait-lock"))
        .algorithm()).isEqualTo("mutex-count");
  }

  @Test
  void capabilities_everyBuiltin_inTheClosedVocabulary() {
    ServiceLoader.load(LockFactory.class).forEach(f -> {
      LockCapability.check(f);
      assertThat(f.capabilities()).allMatch(c -> LockCapability.ofLabel(c) != null);
    });
    assertThat(new TicketSpinLockFactory().capabilities()).containsExactly("fifo");
  }

  @Test
  void capabilities_typoOutsideTheVocabulary_refusedWithTheKnownLabels() {
    LockFactory typo = new TicketLike(Set.of("FIFO"));
    Rig rig = new Rig(1, 1, 1, 0, VcpuPreemptedHook.NEVER);
    assertThatThrownBy(() -> rig.lock(typo, false, Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[FIFO]")
        .hasMessageContaining("did you mean [fifo]");
  }

  /** A ticket lock whose capabilities are given as free strings (an old-style plugin). */
  private static final class TicketLike implements LockFactory {
    private final Set<String> capabilities;

    TicketLike(Set<String> capabilities) {
      this.capabilities = capabilities;
    }

    @Override
    public String name() {
      return "ticket";
    }

    @Override
    public String summary() {
      return "a ticket lock declaring free-string capabilities";
    }

    @Override
    public LockKind lockKind() {
      return LockKind.SPINLOCK;
    }

    @Override
    public Set<String> capabilities() {
      return capabilities;
    }

    @Override
    public KernelLock create(LockContext context) {
      return new TicketSpinLockFactory().create(context);
    }
  }
}
