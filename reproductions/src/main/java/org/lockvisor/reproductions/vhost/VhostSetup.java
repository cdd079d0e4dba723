package org.lockvisor.reproductions.vhost;

import java.util.List;
import org.lockvisor.devices.vhostnet.VhostNetConfig;
import org.lockvisor.experiment.ReproductionOptions;
import org.lockvisor.experiment.ReproductionParameter;

/**
 * The seed's setup as declared parameters of the {@code vhost-wakeup} reproduction, each with the
 * range its sources allow and a default chosen by the evidence (docs/reproductions/vhost-wakeup.md,
 * "Setup"). The seed says only: host kernel 3.0.27, SLES 11 SP2 guest, iperf, 10 GbE implied by
 * ~9.6 Gbit/s.
 *
 * @param mtu link MTU: 1500 or 9000. Default 9000: the published iperf goodput (the seed's table) exceeds the
 *     ceiling of MTU 1500 on 10 GbE (1448 / 1538 x 10 = 9.41 with timestamps), MTU 9000 allows
 *     8948 / 9038 x 10 = 9.90
 * @param peerQueues the peer NIC's RSS queues, 1-16 (ixgbe caps RSS at 16). Default 16: ixgbe's
 *     default on a peer with at least 16 CPUs, like the modelled host
 * @param peerIrqIntervalUs the peer's interrupt moderation interval, 10-125 µs (ixgbe dynamic ITR:
 *     100000 to 8000 interrupts/s). Default 125: ixgbe_update_itr classes more than 20 bytes/µs per
 *     vector as bulk_latency, 8000 interrupts/s
 * @param vcpus guest vCPUs, 1-8. Default 4 (not in the seed; the previous default, kept)
 * @param irqTimeAccounting the host's CONFIG_IRQ_TIME_ACCOUNTING. Default false: the Kconfig
 *     default is n ("If in doubt, say N"); SLES 11 SP2's config not verified
 * @param tunRead the host's tun_do_read era. Default 3.0 (the seed's host kernel)
 * @param irqfdInject the host's irqfd injection. Default kworker (3.0 virt/kvm/eventfd.c)
 *
 * <p>The first five declare their plausible range (an envelope samples them); {@code tun-read}
 * and {@code irqfd-inject} are fixed by the seed's 3.0 host, their other values are later kernels'
 * what-ifs, not setups the seed leaves open.
 */
record VhostSetup(int mtu, int peerQueues, int peerIrqIntervalUs, int vcpus, boolean irqTimeAccounting,
    VhostNetConfig.TunRead tunRead, VhostNetConfig.IrqfdInject irqfdInject) {

  static final ReproductionParameter<Integer> MTU = ReproductionParameter.oneOf("mtu",
      "link MTU (default 9000: the published goodput exceeds MTU 1500's ceiling)", 1500, 9000)
      .declareChoice("9000", List.of("1500", "9000"), "seed: 10 GbE, MTU not stated; docs/reproductions/vhost-wakeup.md"
          + " Setup: the published goodput exceeds MTU 1500's 9.41 ceiling");
  static final ReproductionParameter<Integer> PEER_QUEUES = ReproductionParameter.integer("peer-queues",
      "the peer NIC's RSS receive queues (default 16, ixgbe's maximum)", 1, 16)
      .declareRange("16", 1, 16, true, "ixgbe 3.0 ixgbe_set_rss_queues: RSS up to 16 queues, min(16, online CPUs);"
          + " the peer is not described in the seed");
  static final ReproductionParameter<Integer> PEER_IRQ_US = ReproductionParameter.integer("peer-irq-interval-us",
      "the peer NIC's interrupt moderation interval in us (default 125: ixgbe bulk ITR, 8000/s)", 10, 125)
      .declareRange("125", 10, 125, true, "ixgbe 3.0 ixgbe_update_itr: dynamic ITR from lowest_latency (100000/s, 10 us)"
          + " to bulk_latency (8000/s, 125 us)");
  static final ReproductionParameter<Integer> VCPUS = ReproductionParameter.integer("vcpus",
      "guest vCPUs (default 4)", 1, 8)
      .declareRange("4", 1, 8, false, "not in the seed (SLES 11 SP2 guest, vCPUs unstated); 1-8 vCPUs of a 2013 KVM"
          + " guest on the modelled 16-CPU host, docs/reproductions/vhost-wakeup.md Setup");
  static final ReproductionParameter<Boolean> IRQ_TIME = ReproductionParameter.bool("irq-time-accounting",
      "host CONFIG_IRQ_TIME_ACCOUNTING: top excludes irq/softirq time from threads (default false)")
      .declareChoice("false", List.of("false", "true"), "init/Kconfig 3.0 IRQ_TIME_ACCOUNTING default n; SLES 11 SP2's"
          + " host config not verified");
  static final ReproductionParameter<VhostNetConfig.TunRead> TUN_READ = ReproductionParameter.of("tun-read",
      "host tun_do_read era (default 3.0)", "one of [3.0, noblock-guard, ring]", VhostNetConfig.TunRead::of);
  static final ReproductionParameter<VhostNetConfig.IrqfdInject> IRQFD = ReproductionParameter.of("irqfd-inject",
      "host irqfd injection (default kworker, 3.0)", "one of [kworker, direct]", VhostNetConfig.IrqfdInject::of);

  static final VhostSetup DEFAULTS = new VhostSetup(9000, 16, 125, 4, false, VhostNetConfig.TunRead.V3_0,
      VhostNetConfig.IrqfdInject.KWORKER);

  static List<ReproductionParameter<?>> parameters() {
    return List.of(MTU, PEER_QUEUES, PEER_IRQ_US, VCPUS, IRQ_TIME, TUN_READ, IRQFD);
  }

  static VhostSetup from(ReproductionOptions o) {
    VhostSetup d = DEFAULTS;
    return new VhostSetup(o.parameter(MTU).orElse(d.mtu), o.parameter(PEER_QUEUES).orElse(d.peerQueues),
        o.parameter(PEER_IRQ_US).orElse(d.peerIrqIntervalUs), o.parameter(VCPUS).orElse(d.vcpus),
        o.parameter(IRQ_TIME).orElse(d.irqTimeAccounting), o.parameter(TUN_READ).orElse(d.tunRead),
        o.parameter(IRQFD).orElse(d.irqfdInject));
  }

  /** The device configuration of this setup for a work-queue variant. */
  VhostNetConfig device(VhostNetConfig.WorkQueue variant) {
    return VhostNetConfig.defaults().withWorkQueue(variant).withMtu(mtu)
        .withPeer(peerQueues, peerIrqIntervalUs * 1000L).withTunRead(tunRead).withIrqfdInject(irqfdInject);
  }

  String describe() {
    return "MTU " + mtu + ", peer " + peerQueues + " RSS queues at " + peerIrqIntervalUs + " us moderation, "
        + vcpus + " vCPUs, irq-time-accounting " + (irqTimeAccounting ? "on" : "off") + ", tun_do_read "
        + tunRead.option() + ", irqfd " + irqfdInject.option();
  }
}
