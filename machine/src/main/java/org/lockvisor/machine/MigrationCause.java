package org.lockvisor.machine;

/**
 * Why a task changed CPU, as the load balancer paths of kernel/sched/fair.c name them: the
 * wakeup path ({@code select_task_rq_fair} choosing another CPU than the previous one), fork
 * placement ({@code SD_BALANCE_FORK}), periodic balancing from the tick ({@code
 * rebalance_domains}), newidle balancing ({@code idle_balance}), nohz idle balancing ({@code
 * nohz_idle_balance}) and active balancing ({@code active_load_balance_cpu_stop}).
 */
public enum MigrationCause {
  WAKE, FORK, PERIODIC, NEWIDLE, NOHZ, ACTIVE;

  /** Lower-case name for outputs. */
  public String key() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
