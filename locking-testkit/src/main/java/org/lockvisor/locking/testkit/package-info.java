/**
 * The lock contract test kit: {@link org.lockvisor.locking.testkit.LockContractTest}, which every
 * lock plugin's test extends (built-in or third-party), and
 * {@link org.lockvisor.locking.testkit.LockTestbed}, a small host + overcommitted VM to run locks
 * on.
 */
package org.lockvisor.locking.testkit;
