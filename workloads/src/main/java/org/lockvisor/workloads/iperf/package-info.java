/** The {@code iperf} workload plugin: N TCP streams from guest tasks through a guest network device. */
package org.lockvisor.workloads.iperf;
