/**
 * A module reused on its own: a machine built by hand from {@code core}, {@code scheduler} and
 * {@code locking} only — no Guice, no experiment model — measuring one lock.
 */
package org.lockvisor.examples.standalone;
