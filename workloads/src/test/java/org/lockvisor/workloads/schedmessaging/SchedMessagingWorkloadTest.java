package org.lockvisor.workloads.schedmessaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.machine.Kernel;
import org.lockvisor.locking.spi.LockFactory.LockKind;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.locking.spi.KernelLocks;
import org.lockvisor.core.plugin.BoundOptions;
import org.lockvisor.arch.spi.ArchCosts;
import org.lockvisor.devices.testing.TestMachines;
import org.lockvisor.locking.builtin.CountMutexFactory;
import org.lockvisor.locking.builtin.QueuedRwlockFactory;
import org.lockvisor.locking.builtin.QueuedSpinLockFactory;
import org.lockvisor.locking.builtin.XaddRwsemFactory;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.arch.spi.ArchCosts;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Vm;
import org.lockvisor.workloads.spi.WorkloadContext;

/**
 * sched-messaging runs the whole benchmark: every message written is read, every child exits and
 * is reaped, full pipes make writers sleep, threads do not touch the mapped files' rwsems, and
 * the options are strict.
 */
class SchedMessagingWorkloadTest {
  private static final ArchCosts COSTS = ArchCosts.ofLocks(6, 60, 4, 1 << 13, 1_500, 300, 1_000);

  private record Run(Machine machine, SchedMessagingWorkload bench, List<String> locks, List<KernelLock> created) {}

  private static Run run(SchedMessagingConfig config, long seed) {
    Machine m = TestMachines.machine(seed, 4);
    Vm vm = TestMachines.vm(m, 4);
    List<String> names = new ArrayList<>();
    List<KernelLock> created = new ArrayList<>();
    KernelLocks locks = new KernelLocks() {
      @Override
      public String algorithm(Kernel kernel, LockKind kind) {
        return factory(kind).name();
      }

      @Override
      public KernelLock create(Kernel kernel, String name, String algorithm, LockKind kind,
          Map<String, String> options, String... callSites) {
        names.add(name);
        KernelLock lock = LockContext.builder(kernel, COSTS).name(name).options(options).create(factory(kind));
        created.add(lock);
        return lock;
      }
    };
    SchedMessagingWorkload bench = new SchedMessagingWorkload("bench", config, null);
    bench.start(WorkloadContext.of("bench", BoundOptions.none("workload sched-messaging"), TestMachines.X86_COSTS, locks,
        vm, Map.of()));
    m.sim().setEventBudget(50_000_000);
    for (long t = 0; !bench.finished() && t < 20_000 * TestMachines.MS; ) {
      t += 10 * TestMachines.MS;
      m.sim().runUntil(t);
    }
    return new Run(m, bench, names, created);
  }

  private static SchedMessagingConfig small() {
    return SchedMessagingConfig.perfDefaults().withGroups(2).withLoops(10);
  }

  @Test
  void processes_everyMessageDeliveredAndEveryChildReaped() {
    Run r = run(small(), 1);
    SchedMessagingWorkload b = r.bench();
    assertThat(b.finished()).isTrue();
    assertThat(b.messagesTotal()).isEqualTo(2L * 20 * 20 * 10);
    assertThat(b.messagesWritten()).isEqualTo(b.messagesTotal());
    assertThat(b.messagesRead()).isEqualTo(b.messagesTotal());
    assertThat(b.exited()).isEqualTo(80);
    assertThat(b.totalTimeNs()).isPositive();
    assertThat(b.figures().get("wait4_scans").longValue()).isGreaterThanOrEqualTo(80);
    assertThat(b.perfBenchText()).contains("# 2 groups == 80 processes run").contains("Total time:");
    // one mutex per pipe, an i_mmap rwsem per mapped file (perf, its 19 libraries, ld64.so.2), one
    // root anon_vma rwsem per anon_vma of the parent (anon_vma_fork: root = pvma->anon_vma->root;
    // the 21 objects' data plus bss, heap, stack), perf's ready and wakeup pipes (every child
    // closes an end of each at exit), tasklist_lock
    assertThat(r.locks()).hasSize(2 * 20 + 21 + 24 + 2 + 1)
        .contains("libc.so.6.i_mmap_rwsem", "perf.i_mmap_rwsem", "ld64.so.2.i_mmap_rwsem", "heap.anon_vma.rwsem",
            "libc.so.6.anon_vma.rwsem", "ready_pipe.mutex", "wake_pipe.mutex", "tasklist_lock");
    // the earlier synthetic space keeps its names
    assertThat(run(small().withAddressSpace("uniform"), 1).locks()).hasSize(2 * 20 + 10 + 12 + 2 + 1)
        .contains("file0.i_mmap_rwsem", "anon_vma0.rwsem", "anon_vma11.rwsem").doesNotContain("anon_vma12.rwsem");
  }

  /**
   * tasklist_lock is an rwlock_t (4.8 kernel/exit.c do_wait: read_lock; copy_process, exit_notify,
   * release_task: write_lock_irq): the parent's scans take it for read, forks, exits and reaps
   * for write, and the time shows as _raw_write_lock_irq.
   */
  @Test
  void tasklistLock_rwlock_readByWaitAndWrittenByForkExitReap() {
    Run r = run(small(), 1);
    KernelLock tasklist = r.created().stream().filter(l -> l.name().equals("tasklist_lock")).findFirst().orElseThrow();
    assertThat(tasklist.algorithm()).isEqualTo("qrwlock");
    // 80 forks, 80 exit_notify, 80 release_task
    assertThat(tasklist.stats().writes().acquisitions()).isEqualTo(3 * 80);
    assertThat(tasklist.stats().reads().acquisitions()).isEqualTo(r.bench().figures().get("wait4_scans").longValue());
    r.machine().syncAccounting();
    long[] ns = new long[1];
    r.machine().account().forEach((cpu, thread, stack, t) -> {
      if (r.machine().symbols().name(r.machine().symbols().leaf(stack)).equals("_raw_write_lock_irq")) {
        ns[0] += t;
      }
    });
    assertThat(ns[0]).isPositive();
  }

  @Test
  void pipeHoldingOneMessage_writersSleepAndNothingIsLost() {
    SchedMessagingConfig c = small();
    SchedMessagingConfig tiny = new SchedMessagingConfig(c.groups(), c.fds(), c.loops(), 4096, false, c.mappedFiles(),
        c.vmasPerFile(), c.anonVmas(), 1, 4096, c.copySymbol(), c.copyPageSymbol(), c.addressSpace(), 0);
    assertThat(tiny.pipeCapacityMessages()).isEqualTo(1);
    Run r = run(tiny, 1);
    assertThat(r.bench().finished()).isTrue();
    assertThat(r.bench().figures().get("writer_sleeps").longValue()).isPositive();
    assertThat(r.bench().messagesRead()).isEqualTo(r.bench().messagesTotal());
  }

  @Test
  void defaultPipe_smallRun_writersNeverFindItFull() {
    // 10 loops x 20 senders = 200 messages per pipe < 16 pages x 40 messages: never full
    Run r = run(small(), 1);
    assertThat(r.bench().figures().get("writer_sleeps").longValue()).isZero();
    assertThat(r.bench().figures().get("reader_sleeps").longValue()).isPositive();
  }

  @Test
  void perfDefaultLoops_fullPipesWith4KiBPages_neverWith64KiBPages() {
    // perf's 100 loops x 20 senders = 2,000 messages per pipe: more than 16 x 40 with 4 KiB pages
    // (fs/pipe.c merges a write into the last buffer only while it fits in the page), fewer than
    // 16 x 655 with the 64 KiB pages of a ppc64 kernel
    SchedMessagingConfig c = SchedMessagingConfig.perfDefaults().withGroups(1);
    assertThat(c.withPageSize(65536).pipeCapacityMessages()).isEqualTo(16 * 655);
    assertThat(run(c, 1).bench().figures().get("writer_sleeps").longValue()).isPositive();
    Run big = run(c.withPageSize(65536), 1);
    assertThat(big.bench().finished()).isTrue();
    assertThat(big.bench().figures().get("writer_sleeps").longValue()).isZero();
  }

  @Test
  void processes_rootAnonVmaRwsem_twicePerForkOncePerExitPlusRelocksWhenLocked() {
    Run r = run(small().withAddressSpace("uniform"), 1);
    assertThat(r.bench().finished()).isTrue();
    long children = r.bench().exited();
    long relocks = 0;
    for (KernelLock l : r.created()) {
      if (!l.name().startsWith("anon_vma")) {
        continue;
      }
      long acq = l.stats().acquisitions();
      // anon_vma_fork: anon_vma_clone + anon_vma_lock_write of the child's anon_vma; exit:
      // unlink_anon_vmas; anon_vma_free: at most once more per exit, only when it finds the lock held
      assertThat(acq).as(l.name()).isBetween(3 * children, 4 * children);
      relocks += acq - 3 * children;
    }
    // anon_vma_free relocks exactly when it found the root rwsem held (rare: the window is the
    // few instructions between unlock_anon_vma_root and put_anon_vma)
    assertThat(relocks).isEqualTo(r.bench().figures().get("anon_vma_free_relocks").longValue());
  }

  @Test
  void threads_useTheSharedMmapSemAndNoFileRwsems() {
    Run r = run(small().withThreads(true), 1);
    assertThat(r.bench().finished()).isTrue();
    assertThat(r.locks()).contains("mm.mmap_sem").noneMatch(n -> n.contains("i_mmap") || n.contains("anon_vma"));
    assertThat(r.bench().perfBenchText()).contains("80 threads run");
  }

  /**
   * vma-cost-jitter (a what-if) varies the price of each interval-tree step from a stream of its
   * own and leaves the walk alone: every mapping lock is taken as often as without it, the run
   * differs, and the same seed gives the same run.
   */
  @Test
  void vmaCostJitter_preservesTheWalk_changesTheTiming_reproducible() {
    Run plain = run(small(), 3);
    Run noisy = run(small().withVmaCostJitter(0.5), 3);
    Run again = run(small().withVmaCostJitter(0.5), 3);
    assertThat(noisy.bench().finished()).isTrue();
    assertThat(noisy.machine().sim().fingerprint()).isNotEqualTo(plain.machine().sim().fingerprint())
        .isEqualTo(again.machine().sim().fingerprint());
    for (int i = 0; i < plain.created().size(); i++) {
      KernelLock a = plain.created().get(i);
      KernelLock b = noisy.created().get(i);
      if (a.name().endsWith(".i_mmap_rwsem")) {
        assertThat(b.stats().acquisitions()).as(a.name()).isEqualTo(a.stats().acquisitions()).isEqualTo(2L * 80
            * AddressSpaceLayout.perf48(4096, AddressSpaceLayout.unwindArch(TestMachines.X86_COSTS.arch())).vmas().stream()
                .filter(v -> a.name().equals(v.object() + ".i_mmap_rwsem")).count());
      }
    }
  }

  @Test
  void sameSeed_sameRun() {
    Run a = run(small(), 7);
    Run b = run(small(), 7);
    assertThat(a.bench().totalTimeNs()).isEqualTo(b.bench().totalTimeNs());
    assertThat(a.machine().sim().fingerprint()).isEqualTo(b.machine().sim().fingerprint());
  }

  @Test
  void factory_strictOptions() {
    SchedMessagingFactory f = new SchedMessagingFactory();
    assertThat(SchedMessagingFactory.config(Map.of())).isEqualTo(SchedMessagingConfig.perfDefaults());
    assertThat(SchedMessagingFactory.config(Map.of("groups", "400")).tasks()).isEqualTo(16_000);
    assertThat(SchedMessagingFactory.config(Map.of("mode", "thread")).threads()).isTrue();
    assertThatThrownBy(() -> SchedMessagingFactory.config(Map.of("group", "4"))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("group");
    assertThatThrownBy(() -> SchedMessagingFactory.config(Map.of("mode", "socket"))).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> SchedMessagingFactory.config(Map.of("groups", "0"))).isInstanceOf(IllegalArgumentException.class);
    assertThat(SchedMessagingFactory.config(Map.of("page-size", "65536")).pageSize()).isEqualTo(65536);
    assertThatThrownBy(() -> SchedMessagingFactory.config(Map.of("page-size", "8000"))).isInstanceOf(IllegalArgumentException.class);
    // the synthetic space's sizes cannot take effect on perf's real mappings: refused
    assertThat(SchedMessagingFactory.config(Map.of("address-space", "uniform", "mapped-files", "3")).layout().files())
        .hasSize(3);
    assertThatThrownBy(() -> SchedMessagingFactory.config(Map.of("mapped-files", "3")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[mapped-files]").hasMessageContaining("uniform");
    assertThat(SchedMessagingFactory.config(Map.of("vma-cost-jitter", "0.5")).vmaCostJitter()).isEqualTo(0.5);
    assertThatThrownBy(() -> SchedMessagingFactory.config(Map.of("vma-cost-jitter", "1.5")))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static LockFactory factory(LockKind kind) {
    return switch (kind) {
      case MUTEX -> new CountMutexFactory();
      case RWSEM -> new XaddRwsemFactory();
      case RWLOCK -> new QueuedRwlockFactory();
      default -> new QueuedSpinLockFactory();
    };
  }
}
