/** Trace sink interface for timelines; no-op by default. */
package org.lockvisor.core.trace;
