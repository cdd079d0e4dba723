package org.lockvisor.devices.vhostnet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.lockvisor.devices.testing.TestMachines.MS;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.plugin.BoundOptions;
import org.lockvisor.devices.spi.DeviceContext;
import org.lockvisor.devices.testing.TestLocks;
import org.lockvisor.devices.testing.TestMachines;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.TaskState;
import org.lockvisor.machine.Vm;

/**
 * handle_rx's reads through the host's tun_do_read (drivers/net/tun.c) by era: in 3.0 every read,
 * non-blocking ones included, sets the worker TASK_INTERRUPTIBLE around skb_dequeue and
 * tun_put_user and puts it on tun->wq.wait (where tun_net_xmit's wakeup can wake it a second time); with
 * the noblock guard (3.3) the wait queue is skipped; in 4.8+ (tun_ring_recv) a non-blocking read
 * changes neither. peek_head_len and skb_dequeue take sk_receive_queue.lock.
 */
class TunReadTest {

  private static final class Run {
    final VhostNet dev;
    int inside;
    int insideInterruptible;

    Run(VhostNetConfig.TunRead era) {
      Machine m = TestMachines.machine(11, 6);
      Vm vm = TestMachines.vm(m, 2);
      // RSS, not ATR: with ATR the ACKs' NIC softirq lands on the worker's CPU and, interrupting the
      // worker, takes tun->wq.wait.lock in its context; the tests count the worker's own reads
      dev = new VhostNet("eth0", VhostNetConfig.defaults().withTunRead(era).withHostAtr(false),
          VhostNetCosts.ESTIMATES);
      dev.attach(DeviceContext.of("dev", BoundOptions.none("test device"), TestMachines.X86_COSTS, new TestLocks(60), vm));
      dev.setProtocol(() -> Program.named("tcp_v4_rcv").run(t -> dev.rxAcked(t)).build());
      Program xmit = dev.xmitPath(t -> (int) (t.id() % 8), t -> 30_000);
      Program loop = Program.named("sender").loopWhile(t -> true,
          Program.named("send").work(5_000, "tcp_transmit_skb").call(xmit).build()).build();
      for (int i = 0; i < 2; i++) {
        vm.guest().spawn("sender" + i, loop);
      }
      m.sim().setEventBudget(50_000_000);
      m.sim().runUntil(5 * MS);
      dev.resetStats();
      Task w = dev.worker();
      for (long now = 5 * MS; now < 15 * MS; now += 37) {
        m.sim().runUntil(now);
        if (dev.vhost.workerInTunRead && w.onCpu()) {
          inside++;
          if (w.state() == TaskState.INTERRUPTIBLE) {
            insideInterruptible++;
          }
        }
      }
    }

    Map<String, Number> stats() {
      return dev.stats();
    }
  }

  @Test
  void tunRead30_workerIsInterruptibleInsideTunDoRead_andOnTheWaitQueueEveryRead() {
    Run r = new Run(VhostNetConfig.TunRead.V3_0);

    assertThat(r.inside).isPositive();
    assertThat(r.insideInterruptible).isPositive();
    // add_wait_queue and remove_wait_queue on every read (plus any NIC interrupt that hit the worker)
    assertThat(r.stats().get("worker.tun.wq.wait.lock.acquisitions").longValue())
        .isGreaterThanOrEqualTo(2 * r.stats().get("rx_packets").longValue()).isPositive();
  }

  @Test
  void tunReadRing_workerStaysRunningInsideTunDoRead_andNeverJoinsTheWaitQueue() {
    Run r = new Run(VhostNetConfig.TunRead.RING);

    assertThat(r.inside).isPositive();
    assertThat(r.insideInterruptible).isZero();
    assertThat(r.stats().get("worker.tun.wq.wait.lock.acquisitions").longValue()).isZero();
    assertThat(r.stats().get("tun_second_wakes").longValue()).isZero();
    assertThat(r.stats().get("worker.ttwu_remote_in_tun_read").longValue()).isZero();
  }

  @Test
  void tunReadNoblockGuard_interruptibleButOffTheWaitQueue() {
    Run r = new Run(VhostNetConfig.TunRead.NOBLOCK_GUARD);

    assertThat(r.insideInterruptible).isPositive();
    assertThat(r.stats().get("tun_second_wakes").longValue()).isZero();
  }

  @Test
  void handleRx_peeksTwiceAroundEachDequeue_underTheReceiveQueueLock() {
    Run r = new Run(VhostNetConfig.TunRead.RING);
    Map<String, Number> s = r.stats();
    long packets = s.get("rx_packets").longValue();

    // per packet: peek_head_len + skb_dequeue; per handle_rx run: the final empty peek
    assertThat(s.get("worker.sk_receive_queue.lock.acquisitions").longValue())
        .isGreaterThanOrEqualTo(2 * packets);
  }
}
