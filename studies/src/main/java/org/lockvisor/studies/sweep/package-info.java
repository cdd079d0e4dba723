/**
 * Sweeps and replications: {@link org.lockvisor.studies.sweep.SweepRunner} runs an experiment's
 * sweep points (each with its replications) in parallel on the local cores, writes each point
 * atomically, resumes after an interruption, cuts the points into deterministic shards for cluster
 * schedulers and merges shard directories.
 */
package org.lockvisor.studies.sweep;
