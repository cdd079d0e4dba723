package org.lockvisor.devices.vhostnet;

import static com.google.common.base.Preconditions.checkArgument;

import org.lockvisor.devices.spi.DeviceContext;
import org.lockvisor.devices.spi.Virtqueue;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockFactory.LockKind;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Vm;

/**
 * What the parts of one attached {@link VhostNet} share: the machine and its two kernels, the
 * costs, the locks (the guest's {@code HARD_TX_LOCK}; the host's {@code work_lock}, the two kick
 * eventfds' wait-queue locks, the tap's {@code tun->wq.wait.lock} and {@code
 * sk_receive_queue.lock}), the two virtqueues, the packet pool, the NIC with its link and peer,
 * and the counters. Built first at attach, in the order the device always created these (lock
 * creation order is part of a run), and handed to the parts' constructors: the guest driver
 * ({@link VirtioNetDriver}), the host side ({@link VhostWorker}) and the statistics ({@link
 * VhostNetStats}) read it, and the device composes them; none of them reaches the device.
 *
 * <p>Split out of {@link VhostNet}.
 */
final class VhostNetState {
  final String name;
  final VhostNetConfig config;
  final VhostNetCosts costs;
  final Machine machine;
  final Kernel guest;
  final Kernel host;
  final KernelLock txLock;
  /** {@code vhost_dev.work_lock}; null in the llist variant. */
  final KernelLock workLock;
  /** work_lock's acquirers (issue 32: the saving's ceiling); null in the llist variant. */
  final WorkLockAcquirers workLockAcquirers;
  final KernelLock txKickWqLock;
  final KernelLock rxKickWqLock;
  /** {@code tun->wq.wait.lock}: tun_net_xmit's wakeup, and (3.0) the worker's add/remove on every read. */
  final KernelLock sockWqLock;
  /** {@code tun->socket.sk->sk_receive_queue.lock}: tun_net_xmit's enqueue, peek_head_len, skb_dequeue. */
  final KernelLock rxqLock;
  final NicLink link;
  final Virtqueue txVq;
  final Virtqueue rxVq;
  final Packet.Pool pool;
  final VhostNetCounters stats;

  /**
   * Creates the locks, the NIC and the rings of device {@code name} in {@code ctx}'s VM, with
   * {@code costs} (null: the arch profile's) and the device's pool and counters.
   */
  VhostNetState(DeviceContext ctx, String name, VhostNetConfig config, VhostNetCosts costs, Packet.Pool pool,
      VhostNetCounters stats) {
    Vm vm = ctx.vm();
    this.name = name;
    this.config = config;
    this.pool = pool;
    this.stats = stats;
    this.machine = ctx.machine();
    this.guest = vm.guest();
    this.host = machine.host();
    this.costs = costs != null ? costs : VhostNetCosts.from(ctx.costs());
    checkArgument(config.rxIrqCpu() < guest.cpuCount(), "rx-irq-cpu %s does not exist in a guest with %s cpus",
        config.rxIrqCpu(), guest.cpuCount());
    checkArgument(config.workerCpu() < host.cpuCount(), "worker-cpu %s does not exist on a host with %s cpus",
        config.workerCpu(), host.cpuCount());
    this.txLock = ctx.locks().create(guest, name + ".txq._xmit_lock", LockKind.SPINLOCK);
    checkArgument(txLock.supports(LockMode.IRQSAVE), "guest spinlock %s does not support IRQSAVE", txLock.algorithm());
    if (config.workQueue() != VhostNetConfig.WorkQueue.LLIST) {
      this.workLock = ctx.locks().create(host, "vhost-" + vm.name() + ".work_lock", LockKind.SPINLOCK);
      checkArgument(workLock.supports(LockMode.IRQ) && workLock.supports(LockMode.IRQSAVE),
          "host spinlock %s does not support IRQ and IRQSAVE", workLock.algorithm());
      this.workLockAcquirers = new WorkLockAcquirers(machine.sim(), host, workLock);
    } else {
      this.workLock = null;
      this.workLockAcquirers = null;
    }
    this.txKickWqLock = ctx.locks().create(host, name + ".tx_kick_eventfd.wqh.lock", LockKind.SPINLOCK);
    this.rxKickWqLock = ctx.locks().create(host, name + ".rx_kick_eventfd.wqh.lock", LockKind.SPINLOCK);
    this.sockWqLock = ctx.locks().create(host, name + ".tun.wq.wait.lock", LockKind.SPINLOCK);
    this.rxqLock = ctx.locks().create(host, name + ".tun.sk_receive_queue.lock", LockKind.SPINLOCK);
    this.link = new NicLink(machine.sim(), host, config, pool, stats);
    this.txVq = new Virtqueue(name + ".txq", config.ringSize(), config.eventIdx());
    this.rxVq = new Virtqueue(name + ".rxq", config.ringSize(), config.eventIdx());
    txVq.disableCb(); // 3.0 virtio-net frees TX buffers in start_xmit; TX interrupts only when stopped
    for (int i = 0; i < config.ringSize(); i++) {
      rxVq.add(new RxBuf(), 1); // try_fill_recv at probe
    }
    rxVq.kickPrepare();
  }
}
