/** Symbols, call stacks and exact CPU-time accounting per (cpu, thread, stack). */
package org.lockvisor.core.account;
