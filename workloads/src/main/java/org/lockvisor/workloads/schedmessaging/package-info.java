/**
 * The {@code sched-messaging} workload: {@code perf bench sched messaging} (hackbench) with
 * pipes, its fork, messaging and exit phases, over the guest kernel's pipe mutexes, the
 * mapped files' i_mmap rwsems and the tasklist lock.
 */
package org.lockvisor.workloads.schedmessaging;
