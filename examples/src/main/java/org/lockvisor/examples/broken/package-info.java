/**
 * A deliberately broken plugin for the schedule explorer: a vhost-like worker that checks its
 * work list before it sets its task state and joins the wait queue, the classic lost wakeup.
 * See docs/correctness.md and docs/plugins/broken-worker.md.
 */
package org.lockvisor.examples.broken;
