package org.lockvisor.reproductions.vhost;

import java.util.List;
import java.util.Map;
import org.lockvisor.core.plugin.Plugin;
import org.lockvisor.core.plugin.PluginOption;
import org.lockvisor.devices.vhostnet.VhostNetConfig;
import org.lockvisor.experiment.model.ComponentSpec;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.model.VmSpec;
import org.lockvisor.reproductions.api.ReproductionParameter;

/**
 * The seed's setup as declared parameters of the {@code vhost-wakeup} reproduction, each with the
 * range its sources allow, a default chosen by the evidence (docs/reproductions/vhost-wakeup.md,
 * "Setup") and the path of the shipped experiment file {@code r1-vhost-wakeup.yaml} it is applied
 * as ({@link ReproductionParameter#at}); the file holds the defaults. The seed says only: host
 * kernel 3.0.27, SLES 11 SP2 guest, iperf, 10 GbE implied by ~9.6 Gbit/s.
 *
 * <ul>
 *   <li>{@code mtu}: link MTU, 1500 or 9000. Default 9000: the published iperf goodput (the seed's
 *       table) exceeds the ceiling of MTU 1500 on 10 GbE (1448 / 1538 x 10 = 9.41 with
 *       timestamps), MTU 9000 allows 8948 / 9038 x 10 = 9.90
 *   <li>{@code peer-queues}: the peer NIC's RSS queues, 1-16 (ixgbe caps RSS at 16). Default 16:
 *       ixgbe's default on a peer with at least 16 CPUs, like the modelled host
 *   <li>{@code peer-irq-interval-us}: the peer's interrupt moderation interval, 10-125 us (ixgbe
 *       dynamic ITR: 100000 to 8000 interrupts/s). Default 125: ixgbe_update_itr classes more than
 *       20 bytes/us per vector as bulk_latency, 8000 interrupts/s
 *   <li>{@code vcpus}: guest vCPUs, 1-8. Default 4 (not in the seed; the previous default, kept)
 *   <li>{@code irq-time-accounting}: the host's CONFIG_IRQ_TIME_ACCOUNTING. Default false: the
 *       Kconfig default is n ("If in doubt, say N"); SLES 11 SP2's config not verified
 *   <li>{@code tun-read}: the host's tun_do_read era. Default 3.0 (the seed's host kernel)
 *   <li>{@code irqfd-inject}: the host's irqfd injection. Default kworker (3.0 virt/kvm/eventfd.c)
 * </ul>
 *
 * <p>The first five declare their plausible range (an envelope samples them); {@code tun-read}
 * and {@code irqfd-inject} are fixed by the seed's 3.0 host, their other values are later kernels'
 * what-ifs, not setups the seed leaves open.
 */
final class VhostSetup {
  /** The device's options in the shipped file. */
  static final String DEVICE = "vms[0].devices[0].options.";

  static final ReproductionParameter<Integer> MTU = ReproductionParameter.oneOf("mtu",
      "link MTU (default 9000: the published goodput exceeds MTU 1500's ceiling)", 1500, 9000)
      .declareChoice("9000", List.of("1500", "9000"), "seed: 10 GbE, MTU not stated; docs/reproductions/vhost-wakeup.md"
          + " Setup: the published goodput exceeds MTU 1500's 9.41 ceiling")
      .at(DEVICE + "mtu");
  static final ReproductionParameter<Integer> PEER_QUEUES = ReproductionParameter.integer("peer-queues",
      "the peer NIC's RSS receive queues (default 16, ixgbe's maximum)", 1, 16)
      .declareRange("16", 1, 16, true, "ixgbe 3.0 ixgbe_set_rss_queues: RSS up to 16 queues, min(16, online CPUs);"
          + " the peer is not described in the seed")
      .at(DEVICE + "peer-queues");
  static final ReproductionParameter<Integer> PEER_IRQ_US = ReproductionParameter.integer("peer-irq-interval-us",
      "the peer NIC's interrupt moderation interval in us (default 125: ixgbe bulk ITR, 8000/s)", 10, 125)
      .declareRange("125", 10, 125, true, "ixgbe 3.0 ixgbe_update_itr: dynamic ITR from lowest_latency (100000/s, 10 us)"
          + " to bulk_latency (8000/s, 125 us)")
      .at(DEVICE + "peer-irq-interval-ns", us -> us + "us");
  static final ReproductionParameter<Integer> VCPUS = ReproductionParameter.integer("vcpus",
      "guest vCPUs (default 4)", 1, 8)
      .declareRange("4", 1, 8, false, "not in the seed (SLES 11 SP2 guest, vCPUs unstated); 1-8 vCPUs of a 2013 KVM"
          + " guest on the modelled 16-CPU host, docs/reproductions/vhost-wakeup.md Setup")
      .at("vms[0].vcpus");
  static final ReproductionParameter<Boolean> IRQ_TIME = ReproductionParameter.bool("irq-time-accounting",
      "host CONFIG_IRQ_TIME_ACCOUNTING: top excludes irq/softirq time from threads (default false)")
      .declareChoice("false", List.of("false", "true"), "init/Kconfig 3.0 IRQ_TIME_ACCOUNTING default n; SLES 11 SP2's"
          + " host config not verified")
      .at("host.kernel.irq-time-accounting");
  static final ReproductionParameter<VhostNetConfig.TunRead> TUN_READ = ReproductionParameter.of("tun-read",
      "host tun_do_read era (default 3.0)", "one of [3.0, noblock-guard, ring]", VhostNetConfig.TunRead::of)
      .at(DEVICE + "tun-read", v -> "'" + v + "'"); // a string, not the number 3.0
  static final ReproductionParameter<VhostNetConfig.IrqfdInject> IRQFD = ReproductionParameter.of("irqfd-inject",
      "host irqfd injection (default kworker, 3.0)", "one of [kworker, direct]", VhostNetConfig.IrqfdInject::of)
      .at(DEVICE + "irqfd-inject");

  /** The iperf workload's direction option in the shipped file (absent there: guest-send, the plugin's default). */
  static final String DIRECTION_PATH = "vms[0].workloads[0].options.direction";
  static final String[] DIRECTIONS = {"guest-send", "guest-receive"};
  /**
   * Which way iperf's streams run (issue 32). Not given: {@code reproduce vhost-wakeup} runs both and
   * reports them side by side, the bands and the verdict on guest-send (the shipped file's); given,
   * only that direction runs and is judged (an envelope or calibration picks one this way).
   */
  static final ReproductionParameter<String> DIRECTION = ReproductionParameter.of("direction",
      "which way iperf's streams run: guest-send (the guest is the iperf 2 client) or guest-receive (an external"
          + " client sends to the guest); default: both are run and reported, guest-send judged",
      "one of [guest-send, guest-receive]", v -> v.equals("guest-send") || v.equals("guest-receive") ? v : null)
      .at(DIRECTION_PATH);

  private VhostSetup() {}

  static List<ReproductionParameter<?>> parameters() {
    return List.of(MTU, PEER_QUEUES, PEER_IRQ_US, VCPUS, IRQ_TIME, TUN_READ, IRQFD, DIRECTION);
  }

  /**
   * The setup of experiment {@code e} (the shipped file with every setting applied) in words, read
   * from the experiment itself: the vhost-net device's options (the plugin's defaults where the
   * file leaves one out), the guest's vCPUs and the host kernel's IRQ time accounting.
   */
  static String describe(Experiment e, ExperimentPlugins plugins) {
    VmSpec vm = e.vms().get(0);
    ComponentSpec device = vm.devices().get(0);
    Plugin f = plugins.devices().get(device.type());
    Map<String, String> o = ExperimentPlugins.normalizeOptions(f, device.options());
    return "MTU " + option(f, o, "mtu") + ", peer " + option(f, o, "peer-queues") + " RSS queues at "
        + Long.parseLong(option(f, o, "peer-irq-interval-ns")) / 1000 + " us moderation, " + vm.vcpus()
        + " vCPUs, irq-time-accounting " + (e.host().kernel().irqTimeAccounting() ? "on" : "off") + ", tun_do_read "
        + option(f, o, "tun-read") + ", irqfd " + option(f, o, "irqfd-inject");
  }

  private static String option(Plugin f, Map<String, String> given, String name) {
    String v = given.get(name);
    if (v != null) {
      return v;
    }
    for (PluginOption o : f.options()) {
      if (o.name().equals(name)) {
        return o.defaultValue();
      }
    }
    throw new IllegalStateException("device [" + f.name() + "] has no option [" + name + "]");
  }
}
