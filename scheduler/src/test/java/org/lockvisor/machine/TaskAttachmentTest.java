package org.lockvisor.machine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.scheduler.builtin.CfsScheduler;

/**
 * A task's attachment is typed by its key: what one owner set is read back under that key, and
 * a read under another key, a second owner or a task without one fails with a message naming the
 * keys instead of a ClassCastException somewhere in a program.
 */
class TaskAttachmentTest {
  private static final TaskAttachment<StringBuilder> JOB = TaskAttachment.of("fio job", StringBuilder.class);
  private static final TaskAttachment<StringBuilder> STREAM = TaskAttachment.of("iperf stream", StringBuilder.class);

  private static Task task() {
    Machine machine = new Machine(new Simulation(1));
    Kernel host = machine.createHost("host", 1, KernelConfig.zeroCost(1_000_000), CfsScheduler.withDefaults());
    return host.spawnSleeping("t", Program.named("idle").work(1, "nothing").build(), 0);
  }

  @Test
  void get_afterSet_returnsTheSameObject() {
    Task t = task();
    StringBuilder job = new StringBuilder("job0");

    JOB.set(t, job);

    assertThat(JOB.get(t)).isSameAs(job);
  }

  @Test
  void get_otherKeysAttachment_failsNamingBoth() {
    Task t = task();
    JOB.set(t, new StringBuilder());

    assertThatThrownBy(() -> STREAM.get(t))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("[fio job]")
        .hasMessageContaining("[iperf stream]");
  }

  @Test
  void set_secondOwner_refused() {
    Task t = task();
    JOB.set(t, new StringBuilder());

    assertThatThrownBy(() -> STREAM.set(t, new StringBuilder()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already carries attachment [fio job]");
  }

  @Test
  void get_nothingAttached_fails() {
    assertThatThrownBy(() -> JOB.get(task()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no attachment");
  }
}
