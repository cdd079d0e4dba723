package org.lockvisor.scheduler.builtin;

/** The kernel generation whose CFS domain parameters and balancing gates apply ({@link CfsScheduler#era}).
 *
 * <p>Split out of {@link CfsScheduler}, so the domains and the balancer read the era without the scheduler.
 */
public enum CfsEra {
  /** Linux 3.0–3.15 (the x86 seeds' hosts): SD_*_INIT domains, no wake_wide, no overload gate. */
  LINUX_3_0,
  /** Linux 4.8 (R3's guest): sd_init domains, wake_wide, newidle gated by rd->overload. */
  LINUX_4_8
}
