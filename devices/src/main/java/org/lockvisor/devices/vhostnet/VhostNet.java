package org.lockvisor.devices.vhostnet;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import com.google.common.collect.ImmutableMap;
import java.util.function.ToIntFunction;
import org.lockvisor.devices.spi.DeviceContext;
import org.lockvisor.devices.spi.NetDevice;
import org.lockvisor.devices.spi.Virtqueue;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;

/**
 * virtio-net in a 3.0 guest over vhost-net in a 3.0 host ({@code drivers/net/virtio_net.c},
 * {@code drivers/vhost/vhost.c}, {@code drivers/vhost/net.c}), with the host NIC's link to an
 * external peer. Built to reproduce ac9fde2474d0 "vhost: wake up worker outside spin_lock" (seed
 * R1, KERNEL-MODEL 7).
 *
 * <p>Guest TX ({@code dev_hard_start_xmit}, any guest context): {@code HARD_TX_LOCK} (a guest
 * spinlock) · {@code free_old_xmit_skbs} · {@code xmit_skb} + {@code virtqueue_add_buf} ·
 * {@code virtqueue_kick} = kick_prepare ({@code vring_need_event}) + notify, a PIO exit handled
 * in the host kernel: {@code ioeventfd_write -> eventfd_signal} takes the eventfd's wait-queue
 * lock with interrupts off and calls {@code vhost_poll_wakeup -> vhost_work_queue(TX)} under it.
 *
 * <p>{@code vhost_work_queue} ({@link VhostNetConfig.WorkQueue}): {@code spin_lock_irqsave(
 * work_lock)}; if the work is not queued, add it and {@code wake_up_process(worker)} — before the
 * unlock (3.0), after it (the patch), or without any lock (llist, 4.6). The wake is the machine's
 * try_to_wake_up with its phases and cost classes; the lock is the host spinlock the experiment
 * chose (ticket on a 3.0 host).
 *
 * <p>The vhost worker is a host kernel thread running the 3.0 loop: {@code set_current_state(
 * TASK_INTERRUPTIBLE)}, {@code spin_lock_irq(work_lock)}, pop, unlock, then run the work or
 * {@code schedule()}. A waker that holds {@code work_lock} through its try_to_wake_up makes a
 * worker that is back at the top of its loop spin on {@code work_lock}: that spin is charged to
 * the worker, which is what the patch removes.
 *
 * <p>{@code handle_tx}: pop descriptors ({@code vhost_get_vq_desc}, which leaves avail_event
 * alone), {@code tun_sendmsg} (copy + the host stack down to the NIC), add used (TX interrupts
 * stay suppressed unless the guest stopped its queue), until the ring is empty
 * ({@code vhost_enable_notify} publishes avail_event and re-checks) or 512 KiB
 * ({@code VHOST_NET_WEIGHT}) moved, then requeue. The NIC's qdisc holds {@code txqueuelen}
 * packets and drops beyond; the link serialises frames at the line rate; the peer ACKs each
 * packet (GRO coalesces a TSO burst) after {@code ack-delay-ns}, a dropped packet comes back as a
 * duplicate ACK reporting the loss.
 *
 * <p>RX: an ACK arrives on the host NIC queue its flow hashes to; that queue's interrupt runs on
 * its host CPU (charged to whatever task it interrupts, as 3.0 accounting does) and NAPI takes
 * every pending packet through the bridge to the tap socket, whose {@code sk_data_ready} calls
 * {@code vhost_poll_wakeup -> vhost_work_queue(RX)} under the socket wait-queue lock.
 * {@code handle_rx} copies packets into posted guest buffers and signals (irqfd) when EVENT_IDX
 * asks; the guest's interrupt runs NAPI, hands each packet to the protocol, refills buffers when
 * half are used and kicks the RX queue if needed.
 *
 * <p>Simplifications: the guest's receive softirq runs in the RX interrupt handler (so the TX lock
 * is taken with interrupts off, standing for {@code local_bh_disable}); TCP segmentation is done
 * by the NIC (TSO), so a packet is one descriptor and one host-stack pass; no zero-copy TX; irqfd
 * injection is priced on the worker, not a kworker.
 *
 * <p>This class attaches the device and answers the {@code NetDevice} SPI. At attach it builds
 * what its parts share ({@link VhostNetState}: locks, rings, the NIC, link and peer {@link
 * NicLink}), then composes the parts and wires them: the host side {@link VhostWorker}, the guest
 * driver {@link VirtioNetDriver} (each given the other's programs, not the other), the statistics
 * {@link VhostNetStats}. Every dependency runs from this class to a part and from a part to the
 * shared state; no part calls the device.
 *
 * <p>Above 30 methods on purpose: one method per call of the NetDevice SPI (transmit paths, each
 * field of the packet being received, guest-receive) plus the figures, each a short delegation.
 */
public final class VhostNet implements NetDevice {
  private final String name;
  private final VhostNetConfig config;
  private final VhostNetCosts costOverride;
  /** What the parts share, built at attach; null before. */
  private VhostNetState state;
  private final Packet.Pool pool = new Packet.Pool(512);
  final VhostNetStats stats = new VhostNetStats();
  private final VirtioNetDriver driver = new VirtioNetDriver();
  /** The host half: vhost_work_queue, the worker thread and its handlers, irqfd signalling. */
  VhostWorker vhost;

  public VhostNet(String name, VhostNetConfig config) {
    this(name, config, null);
  }

  /** A device with explicit costs (tests, what-ifs); null takes them from the context at attach. */
  public VhostNet(String name, VhostNetConfig config, VhostNetCosts costs) {
    checkArgument(name != null && !name.isEmpty(), "device needs a name");
    checkArgument(config != null, "config must be set");
    this.name = name;
    this.config = config;
    this.costOverride = costs;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String model() {
    return VhostNetFactory.NAME;
  }

  public VhostNetConfig config() {
    return config;
  }

  public VhostNetCosts costs() {
    return state == null ? null : state.costs;
  }

  /** The vhost worker thread ({@code vhost-<pid>}) on the host. */
  public Task worker() {
    return vhost == null ? null : vhost.worker;
  }

  /** {@code vhost_dev.work_lock}, or null in the llist variant. */
  public KernelLock workLock() {
    return state == null ? null : state.workLock;
  }

  /** The work-queue path of the TX kick work as acquirer {@code by} runs it (tests, what-ifs). */
  public Program txWorkQueuePath(WorkLockAcquirers.Acquirer by) {
    return vhost.txKickWork.queueBy[by.ordinal()];
  }

  /** Who acquires {@code work_lock} and at what cost (issue 32), or null in the llist variant. */
  public WorkLockAcquirers workLockAcquirers() {
    return state == null ? null : state.workLockAcquirers;
  }

  public Virtqueue txVirtqueue() {
    return state == null ? null : state.txVq;
  }

  public Virtqueue rxVirtqueue() {
    return state == null ? null : state.rxVq;
  }

  @Override
  public int mss() {
    return config.mss();
  }

  @Override
  public int gsoMaxBytes() {
    return 65536 - 1 - 40 - 14; // GSO_MAX_SIZE minus headers, as tcp_xmit_size_goal in 3.0
  }

  @Override
  public void setProtocol(NetProtocol protocol) {
    checkArgument(protocol != null, "protocol must be set");
    driver.setProtocol(protocol);
  }

  // -------------------------------------------------------------------------------------------
  // Attach: the shared state first, then the parts, each given what it calls of the others.

  @Override
  public void attach(DeviceContext ctx) {
    checkState(state == null, "%s is attached already", name);
    String vmName = ctx.vm().name();
    VhostNetState s = new VhostNetState(ctx, name, config, costOverride, pool, stats);
    this.state = s;
    this.vhost = new VhostWorker(s);
    vhost.buildPrograms(vmName);
    driver.build(s, vhost.txKickHandler, vhost.rxKickHandler);
    vhost.signals(driver.txInject, driver.rxInject);
    vhost.spawn(vmName);
    stats.attached(s, vhost.worker, vhost.irqfd.kworkers);
  }

  @Override
  public Program xmitPath(ToIntFunction<Task> flow, ToIntFunction<Task> bytes) {
    return xmitPath(flow, bytes, t -> false);
  }

  @Override
  public Program xmitPath(ToIntFunction<Task> flow, ToIntFunction<Task> bytes,
      java.util.function.Predicate<Task> retransmission) {
    checkState(state != null, "%s: attach the device before building transmit paths", name);
    return driver.xmitPath(flow, bytes, retransmission);
  }

  @Override
  public Program xmitPath(ToIntFunction<Task> flow, ToIntFunction<Task> bytes,
      java.util.function.ToLongFunction<Task> seq, java.util.function.Predicate<Task> retransmission) {
    checkState(state != null, "%s: attach the device before building transmit paths", name);
    return driver.xmitPath(flow, bytes, seq, retransmission);
  }

  @Override
  public void receiveFromExternalSender(int streams, long windowBytes) {
    checkState(state != null, "%s: attach the device before starting an external sender", name);
    NicLink link = state.link;
    checkState(link.guestReceive == null, "%s: an external sender is running already", name);
    GuestReceive rx = new GuestReceive(state.machine.sim(), state.host, config, stats, pool, streams, windowBytes,
        link.queues(), link.flowDirector());
    link.guestReceive = rx;
    vhost.guestReceive(rx);
    driver.guestReceive(rx);
    rx.start();
  }

  @Override
  public int rxFlow(Task t) {
    return driver.receiving().flow;
  }

  @Override
  public long rxAcked(Task t) {
    return driver.receiving().acked;
  }

  @Override
  public long rxLost(Task t) {
    return driver.receiving().lost;
  }

  @Override
  public long rxAckSeq(Task t) {
    return driver.receiving().ackSeq;
  }

  @Override
  public long rxTsecr(Task t) {
    return driver.receiving().tsecr;
  }

  @Override
  public int rxSackBlocks(Task t, long[] out) {
    Packet p = driver.receiving();
    System.arraycopy(p.sack, 0, out, 0, 2 * p.sacks);
    return p.sacks;
  }

  // -------------------------------------------------------------------------------------------
  // Statistics.

  @Override
  public double deliveredBitsPerSecond() {
    return stats.deliveredBitsPerSecond();
  }

  /**
   * CPU time of the worker thread since the last reset as the host's {@code top} shows it, ns:
   * everything it ran, minus the hardirq and softirq time in its context when the host has
   * {@code irq-time-accounting} (CONFIG_IRQ_TIME_ACCOUNTING).
   */
  public long workerCpuNs() {
    return stats.workerCpuNs();
  }

  /** CPU time of the kworkers (3.0 irqfd injection) since the last reset, top view, ns; 0 with direct injection. */
  public long kworkerCpuNs() {
    return stats.kworkerCpuNs();
  }

  /**
   * Worker CPU time spent acquiring {@code work_lock} (its own {@code spin_lock_irq} and any
   * {@code vhost_work_queue} it runs, in interrupts too), ns since the last reset.
   */
  public long workerWorkLockNs() {
    return stats.workerWorkLockNs();
  }

  /** Worker CPU time in host interrupts that hit it (3.0 accounting charges them to it), ns. */
  public long workerIrqNs() {
    return stats.workerIrqNs();
  }

  /** Worker CPU time in the receive softirq {@code netif_rx_ni} runs in its context (handle_tx), ns. */
  public long workerSoftirqNs() {
    return stats.workerSoftirqNs();
  }

  /** Elapsed simulated time since the last reset, ns. */
  public long elapsedNs() {
    return stats.elapsedNs();
  }

  @Override
  public ImmutableMap<String, Number> stats() {
    return stats.map();
  }

  @Override
  public void resetStats() {
    stats.reset();
  }

  @Override
  public String toString() {
    return name + "(" + config.workQueue().option() + ")";
  }
}
