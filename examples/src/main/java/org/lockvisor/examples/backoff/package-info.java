/**
 * Example lock plugin: a ticket spinlock whose waiters back off by queue position (the worked lock
 * of docs/plugins/writing-a-lock.md).
 */
package org.lockvisor.examples.backoff;
