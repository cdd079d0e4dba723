/** Binds arch profiles to the machine: kernel configurations, hypervisor costs, hooks. */
package org.lockvisor.platform;
