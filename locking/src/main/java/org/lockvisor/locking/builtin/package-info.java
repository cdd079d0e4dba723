/**
 * The kernel's lock primitives as plugins: spinlocks (ticket, pv-ticket, qspinlock,
 * pv-qspinlock, the virt_spin_lock test-and-set fallback, the powerpc SPLPAR lock), the
 * optimistic spin queue (osq) and the sleeping locks that spin on it (count- and owner-based
 * mutexes, rwsem-xadd), and the rwlock_t families (qrwlock, the powerpc SPLPAR rwlock). Each algorithm is a state machine over the machine model: spinning is
 * a {@code Task.startSpin} that ends on a poke (hand-off, owner change) or on a watched CPU
 * changing state, never on polling.
 *
 * <p>Conventions: per-task wait state lives in a {@link org.lockvisor.locking.builtin.NodeTable}
 * (no allocation per acquisition); an op that needs another lock's op (a mutex's wait_lock, the
 * OSQ) runs it inline with {@link org.lockvisor.locking.builtin.Inline}, so its time is charged
 * under the caller's frame as in the kernel, where those paths are inlined or direct calls.
 */
package org.lockvisor.locking.builtin;
