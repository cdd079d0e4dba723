/** JMH benchmarks; {@code benchmarks/run.sh} runs the hold-model comparison. */
package org.lockvisor.benchmarks;
