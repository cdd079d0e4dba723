package org.lockvisor.arch.catalog;

import java.math.BigDecimal;
import java.math.MathContext;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.Cost;
import org.lockvisor.arch.spi.CostKey;
import org.lockvisor.arch.spi.HypervisorBehaviour;

/**
 * Renders a profile's constants and hypervisor behaviour as Markdown tables. The plugin pages in
 * docs/plugins embed this output between markers, and a test fails when they drift from the code.
 */
public final class ArchProfileMarkdown {

  private ArchProfileMarkdown() {}

  /** One row per {@link CostKey}: key, value, unit, ns (for durations), tag, source. */
  public static String costTable(ArchProfile profile) {
    StringBuilder sb = new StringBuilder();
    sb.append("| key | value | unit | ns | tag | source |\n");
    sb.append("|---|---:|---|---:|---|---|\n");
    for (Cost c : profile.costs().costs()) {
      CostKey k = c.key();
      String ns = k.unit() == CostKey.Unit.CYCLES ? Long.toString(profile.costs().ns(k)) : "";
      sb.append("| `").append(k.name()).append("` | ").append(format(c.value())).append(" | ")
          .append(k.unit().symbol()).append(" | ").append(ns).append(" | ")
          .append(c.isNotApplicable() ? "n/a" : "[" + c.source().confidence() + "]").append(" | ")
          .append(escape(c.isNotApplicable()
              ? c.source().reference().substring(Cost.NOT_APPLICABLE.length())
              : c.source().reference()))
          .append(" |\n");
    }
    return sb.toString();
  }

  /** One row per hypervisor field, plus the default topology. */
  public static String hypervisorTable(ArchProfile profile) {
    HypervisorBehaviour h = profile.hypervisor();
    HypervisorBehaviour.SpinTrap t = h.spinTrap();
    StringBuilder sb = new StringBuilder();
    sb.append("| field | value |\n|---|---|\n");
    row(sb, "topology (sockets x coresPerSocket x threadsPerCore)", profile.topology().toString());
    row(sb, "vcpuPreempted", h.vcpuPreempted().name());
    row(sb, "spinTrap.enabled", Boolean.toString(t.enabled()));
    row(sb, "spinTrap.trigger", t.enabled() ? t.trigger().name() : "-");
    row(sb, "spinTrap.gapCycles", Integer.toString(t.gapCycles()));
    row(sb, "spinTrap.growFactor", Integer.toString(t.growFactor()));
    row(sb, "spinTrap.directedYield", Boolean.toString(t.directedYield()));
    row(sb, "stealTime", Boolean.toString(h.stealTime()));
    row(sb, "notifyPath", h.notifyPath().name());
    row(sb, "guestIpiExits", Boolean.toString(h.guestIpiExits()));
    row(sb, "postedInterrupts", Boolean.toString(h.postedInterrupts()));
    row(sb, "hostHz", Integer.toString(h.hostHz()));
    row(sb, "guestHz", Integer.toString(h.guestHz()));
    row(sb, "dispatchWindowNs", Long.toString(h.dispatchWindowNs()));
    row(sb, "entitlement", format(h.entitlement()));
    return sb.toString();
  }

  private static void row(StringBuilder sb, String field, String value) {
    sb.append("| `").append(field).append("` | ").append(value).append(" |\n");
  }

  /**
   * A cost value as the plugin pages and {@code lockvisor plugins --options} show it: whole numbers
   * as such, others to four significant digits.
   */
  public static String format(double v) {
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return Long.toString((long) v);
    }
    // Four significant digits, without trailing zeros: 0.4167, 0.25.
    return new BigDecimal(v).round(new MathContext(4)).stripTrailingZeros().toPlainString();
  }

  private static String escape(String s) {
    return s.replace("|", "\\|");
  }
}
