/** The discrete-event engine: time, the future-event set, cancellation, fingerprint. */
package org.lockvisor.core.sim;
