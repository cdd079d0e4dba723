package org.lockvisor.locking.builtin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.machine.VcpuPreemptedHook;

/** Built-ins are discoverable under stable unique names; options are strict. */
class RegistryAndOptionsTest {

  @Test
  void serviceLoader_findsEveryBuiltinOnceByName() {
    List<String> names = ServiceLoader.load(LockFactory.class).stream().map(p -> p.get().name()).sorted().toList();
    assertThat(names).containsExactly("mutex-count", "mutex-owner", "osq", "ppc-splpar", "pv-qspinlock",
        "pv-ticket", "qspinlock", "rwsem-xadd", "tas", "ticket");
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
}
