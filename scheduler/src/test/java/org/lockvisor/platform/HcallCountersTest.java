package org.lockvisor.platform;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.arch.catalog.ArchProfiles;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.Vm;
import org.lockvisor.machine.WaitQueue;
import org.lockvisor.machine.config.TtwuQueueMode;
import org.lockvisor.scheduler.builtin.CfsScheduler;
import org.lockvisor.scheduler.builtin.PowervmDispatchScheduler;

/**
 * The PowerVM hypervisor calls a guest makes are counted by name: an idle guest CPU cedes
 * (H_CEDE), a cross-CPU wakeup that needs an IPI sends H_IPI and its target accepts it with
 * H_XIRR and H_EOI, one each per accepted interrupt. A KVM guest doing the same makes none.
 */
class HcallCountersTest {
  private static Vm pingPong(String profileName) {
    ArchProfile p = ArchProfiles.byName(profileName);
    boolean powervm = p.hypervisor().hostHz() == 0;
    Machine m = new Machine(new Simulation(5));
    Kernel host = m.createHost("host", 4, Platforms.hostKernel(p, TtwuQueueMode.NEVER, false),
        powervm ? new PowervmDispatchScheduler(p.hypervisor().dispatchWindowNs(), 4, false) : CfsScheduler.withDefaults());
    Platforms.configureHost(host, p, Platforms.hypervisor(p).hostActivity());
    Vm vm = m.createVm("lpar", 4, Platforms.guestKernel(p, 4, TtwuQueueMode.NEVER, false), CfsScheduler.withDefaults(),
        Platforms.hypervisor(p));
    Platforms.configureGuest(vm, p);
    Platforms.configureIpis(p, vm);
    int[] turn = {0};
    int[] rounds = {0};
    Task[] tasks = new Task[2];
    WaitQueue wq = new WaitQueue("pingpong");
    for (int i = 0; i < 2; i++) {
      int me = i;
      Program body = Program.named("round")
          .work(20_000, "work")
          .run(t -> {
            turn[0] = 1 - me;
            rounds[0]++;
          })
          .op(Ops.wake(t -> tasks[1 - me]))
          .op(Ops.sleepUntil(null, t -> turn[0] == me))
          .build();
      tasks[i] = vm.guest().spawn("pp" + i, Program.named("pp").loopWhile(t -> rounds[0] < 400, body).build(), 2 * i);
    }
    m.sim().runUntil(200_000_000L);
    return vm;
  }

  @Test
  void powervm_pingPongAcrossCpus_cedesIpisAndAcceptsCounted() {
    Map<String, Long> h = pingPong("ppc64-powervm").hcalls();
    assertThat(h.keySet()).containsExactlyElementsOf(Vm.HCALLS);
    assertThat(h.get("H_CEDE")).isPositive();
    assertThat(h.get("H_XIRR")).isEqualTo(h.get("H_EOI"));
    assertThat(h.get("H_IPI") + h.get("H_XIRR")).isPositive();
  }

  @Test
  void kvm_pingPongAcrossCpus_noHcalls() {
    Map<String, Long> h = pingPong("x86_64-kvm").hcalls();
    assertThat(h.values()).allMatch(v -> v == 0);
  }
}
