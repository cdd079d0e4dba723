/** Named random streams derived from one root seed. */
package org.lockvisor.core.random;
