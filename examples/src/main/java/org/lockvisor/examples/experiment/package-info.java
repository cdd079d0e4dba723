/**
 * A custom experiment assembled in Java: the builder front door, with a lock plugin from outside
 * the built-ins (the example MCS spinlock) chosen by name like any other.
 */
package org.lockvisor.examples.experiment;
