package org.lockvisor.machine;

/** What a task that is current on its CPU is doing between op boundaries. */
enum Activity {
  /** Executing ops; no time passes until an op starts something. */
  NONE,
  /** Burning CPU for a known remaining time (completion event pending while it runs). */
  WORK,
  /** Spinning on a condition; ends on a poke, a bail-out or a budget timer, never by polling. */
  SPIN,
  /** A guest task whose vCPU left guest mode for a VM exit; resumes at re-entry. */
  EXIT,
  /** A vCPU thread in guest mode: while it runs, its guest CPU runs. */
  GUEST,
  /** The idle loop. */
  IDLE
}
