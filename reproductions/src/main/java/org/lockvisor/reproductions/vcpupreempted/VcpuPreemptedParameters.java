package org.lockvisor.reproductions.vcpupreempted;


import java.util.List;
import java.util.Locale;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.reproductions.api.DerivedBindings;
import org.lockvisor.reproductions.api.ReproductionParameter;

/**
 * R3's setup as declared parameters ({@link VcpuPreemptedReproduction#parameters()}), each applied
 * as experiment paths of the shipped files: {@code groups} and {@code wake-affine} by their own
 * targets ({@link ReproductionParameter#at}), {@code vps}, {@code pool-cpus} and {@code smt} by the
 * derived bindings {@link #LPAR} ({@link VcpuPreemptedReproduction#derivedBindings()}); {@code
 * seeds} is the reproduction's to read. Split out of {@link VcpuPreemptedReproduction}, which
 * reads the parameters; they read only the setup both share ({@link Scale}, the file names here).
 */
final class VcpuPreemptedParameters {

  private VcpuPreemptedParameters() {}

  /** The shipped experiment files the parameters are bound in: the PowerVM row and the x86 one. */
  static final String POWERVM_FILE = "vcpu-preempted-powervm";
  static final String KVM_FILE = "vcpu-preempted-kvm";
  private static final Scale FULL = Scale.FULL;
  private static final Scale QUICK = Scale.QUICK;

  /** perf bench sched messaging's {@code -g} in both files. */
  static final String GROUPS_PATH = "vms[0].workloads[0].options.groups";
  /** The simulated-time limit of each run when {@link #GROUPS} is given. */
  static final long GROUPS_LIMIT_NS = 600_000_000_000L;

  // What-if parameters (reproduce vcpu-preempted --set NAME=VALUE); the verdict of the
  // reproduction itself uses none of them.
  static final ReproductionParameter<Integer> GROUPS = ReproductionParameter.integer("groups",
      "-g of the PowerVM runs (default 400, the seed's 16,000 tasks, ~45-60 s of CPU per run; --quick 6)", 1, 100_000)
      // an envelope samples the scale over 4-40 (its default there 40): 64 runs at the verdict's -g 400 are out
      // of its budget, and the test suite's --quick envelope samples this range
      .declareRange("40", 4, 40, true, "simulation scale, not setup: the verdict runs the seed's -g 400 (16,000"
          + " tasks), out of an envelope's budget; an envelope samples 4-40 (default 40), docs/reproductions/"
          + "vcpu-preempted.md")
      // a derived binding: the PowerVM row's -g and, in both files, the longer run limit any -g gets
      .at(POWERVM_FILE, GROUPS_PATH)
      .at(POWERVM_FILE, "max-duration", g -> GROUPS_LIMIT_NS / 1_000_000_000L + "s")
      .at(KVM_FILE, "max-duration", g -> GROUPS_LIMIT_NS / 1_000_000_000L + "s");
  static final ReproductionParameter<Integer> SMT = ReproductionParameter.oneOf("smt",
      "hardware threads per PowerVM VP, dispatched together by powervm-dispatch smt (default 1)", 1, 2, 4, 8)
      .declareChoice("1", List.of("1", "2", "4", "8"), "the seed states no SMT mode; a POWER8 core runs SMT1, 2, 4"
          + " or 8 (ppc64_cpu --smt) [M]");
  /**
   * The guest's CONFIG_HZ, a seed unknown (the cover letter gives no kernel config): 100 in 4.8's
   * arch/powerpc/configs/pseries_defconfig ({@code CONFIG_HZ_100=y}, there from 2.6 to 6.x), 250 in
   * distribution ppc64 kernels of 2016 (Ubuntu 16.04 xenial, debian.master/config/ppc64el/
   * config.common.ppc64el: {@code CONFIG_HZ_250=y}; 250 is also kernel/Kconfig.hz's default), 1000
   * offered by Kconfig.hz but in no ppc64 server configuration found. Default 100: the profile's
   * guestHz, the value every figure so far was measured with.
   */
  static final ReproductionParameter<Integer> HZ = ReproductionParameter.oneOf("hz",
      "the LPAR kernel's CONFIG_HZ: tick period 1e9/HZ ns (default 100, pseries_defconfig; 250: Ubuntu 16.04 ppc64el"
          + " and Kconfig.hz's default)", 100, 250, 1000)
      .declareChoice("100", List.of("100", "250", "1000"), "seed unknown: 4.8 arch/powerpc/configs/pseries_defconfig"
          + " CONFIG_HZ_100=y [V]; Ubuntu 16.04 xenial debian.master/config/ppc64el/config.common.ppc64el"
          + " CONFIG_HZ_250=y [V]; kernel/Kconfig.hz offers HZ_1000 [V]")
      .at(POWERVM_FILE, "vms[0].kernel.hz");
  /** No domain: 4.8's select_task_rq_fair always has wake_affine; false is the model before issue 17. */
  static final ReproductionParameter<Boolean> WAKE_AFFINE = ReproductionParameter.bool("wake-affine",
      "the guest CFS's wake_affine of select_task_rq_fair (default true, as in 4.8; false: the pre-issue-17 placement)")
      .at("vms[0].scheduler-options.wake-affine");
  static final ReproductionParameter<Integer> VPS = ReproductionParameter.integer("vps",
      "LPAR size: virtual processors of the PowerVM LPAR (default 16, --quick 8; PowerVM allows up to 20 VPs per "
          + "processing unit of entitlement, entitlement here 0.5 per VP)", 1, 160);
  static final ReproductionParameter<Integer> POOL_CPUS = ReproductionParameter.integer("pool-cpus",
      "pool load: physical processors of the shared pool free for the LPAR (default 8, --quick 4; the profile's "
          + "server has 20 cores; fewer free processors = more load from other LPARs); must cover the LPAR's "
          + "entitlement of 0.5 per VP", 1, 160);
  /**
   * The LPAR's shape as derived paths of the PowerVM file ({@link DerivedBindings}): {@code
   * pool-cpus} processors of {@code smt} threads each for the host, {@code vps} VPs of {@code smt}
   * threads for the guest, an entitlement of the profile's units per VP (an entitled capacity above
   * the pool is refused, as PowerVM refuses to activate such a partition), and POWER8's SMT mode
   * for the dispatcher and the guest topology. Defaults: the scale's LPAR, 2 VPs per processor.
   */
  static final DerivedBindings LPAR = DerivedBindings.builder()
      .input(VPS.name(), String.valueOf(2 * FULL.powervmCpus()), String.valueOf(2 * QUICK.powervmCpus()))
      .input(POOL_CPUS.name(), String.valueOf(FULL.powervmCpus()), String.valueOf(QUICK.powervmCpus()))
      .input(SMT.name(), "1", "1")
      .at(POWERVM_FILE, "host.cpus", List.of("pool-cpus", "smt"),
          in -> String.valueOf(in.integer("pool-cpus") * in.integer("smt")))
      .at(POWERVM_FILE, "host.scheduler-options.entitlement", List.of("vps", "pool-cpus"),
          VcpuPreemptedParameters::entitlement)
      .at(POWERVM_FILE, "vms[0].vcpus", List.of("vps", "smt"),
          in -> String.valueOf(in.integer("vps") * in.integer("smt")))
      // POWER8 SMT mode: the pool keeps its cores and the LPAR its VPs; each is smt threads, dispatched together
      .at(POWERVM_FILE, "host.scheduler-options.smt", List.of("smt"), in -> in.text("smt"))
      .at(POWERVM_FILE, "vms[0].kernel.threads-per-core", List.of("smt"), in -> in.text("smt"))
      .build();
  static final ReproductionParameter<List<Long>> SEEDS_PARAMETER = ReproductionParameter.seeds(
      "the seeds of the replications, each running every variant (default 1,2,3)");

  /** Every parameter, in the order {@code plugins --options vcpu-preempted} lists them. */
  static final List<ReproductionParameter<?>> ALL = List.of(GROUPS, SMT, WAKE_AFFINE, VPS, POOL_CPUS, HZ,
      SEEDS_PARAMETER);

  /**
   * The LPAR's processing units: {@code vps} x the profile's units per VP.
   *
   * @throws UserInputException when they exceed the pool's {@code pool-cpus} processors
   */
  static String entitlement(DerivedBindings.Inputs in) {
    int vps = in.integer("vps");
    int poolCpus = in.integer("pool-cpus");
    double entitlement = in.profile("ppc64-powervm").hypervisor().entitlement() * vps;
    if (entitlement > poolCpus) {
      throw new UserInputException(String.format(Locale.ROOT,
          "vcpu-preempted: the LPAR's entitled capacity [%.1f] (vps %d x %.2f) exceeds the pool's free processors "
              + "[%d]; PowerVM refuses such a partition: raise pool-cpus or lower vps", entitlement, vps,
          entitlement / vps, poolCpus));
    }
    return String.valueOf(entitlement);
  }
}
