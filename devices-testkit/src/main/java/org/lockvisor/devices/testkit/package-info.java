/**
 * The block device contract kit: {@link org.lockvisor.devices.testkit.BlockDeviceContractTest}
 * runs a device plugin on a small two-level machine ({@link org.lockvisor.devices.testkit.DeviceTestbed})
 * under submitters that sleep for their completions, and checks the completion protocol.
 */
package org.lockvisor.devices.testkit;
