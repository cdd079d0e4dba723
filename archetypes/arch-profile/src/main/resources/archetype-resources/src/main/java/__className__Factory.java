package ${package};

import com.google.auto.service.AutoService;
import java.util.List;
import org.lockvisor.arch.builtin.X86KvmArchProfile;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.ArchProfileFactory;
import org.lockvisor.core.plugin.PluginContext;
import org.lockvisor.arch.spi.Cost;
import org.lockvisor.arch.spi.CostKey;

/**
 * The plugin's entry class: an arch profile derived from {@code x86_64-kvm} with one cost changed
 * (a host with modern halt polling, KVM's default {@code halt_poll_ns=200000} since Linux 4.x). A profile is shared by
 * every experiment on it, so every cost it changes carries its source. Replace the change with
 * what your hardware or hypervisor does differently, with where the value comes from.
 */
@AutoService(ArchProfileFactory.class)
public final class ${className}Factory implements ArchProfileFactory {

  /** What experiments write to choose this profile ({@code arch: ...}). */
  public static final String NAME = "${pluginName}";

  private static final ArchProfile BASE = new X86KvmArchProfile().create();

  private static final ArchProfile PROFILE = BASE
      .withName(NAME, "x86_64-kvm with halt polling of 200 us (KVM_HALT_POLL_NS_DEFAULT)")
      .withCosts(BASE.costs().with(List.of(
          Cost.of(CostKey.HALT_POLL, 200_000, Cost.Confidence.M,
              "arch/x86/include/asm/kvm_host.h KVM_HALT_POLL_NS_DEFAULT 200000 (Linux 4.x-5.x), the halt_poll_ns default"))));

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String summary() {
    return PROFILE.summary();
  }

  @Override
  public ArchProfile create(PluginContext context) {
    return PROFILE;
  }
}
