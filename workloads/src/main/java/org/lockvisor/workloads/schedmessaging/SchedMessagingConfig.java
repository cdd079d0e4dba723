package org.lockvisor.workloads.schedmessaging;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * The benchmark's options, named as in {@code perf bench sched messaging}, plus the shape of the
 * address space its processes share.
 *
 * @param groups groups of senders and receivers ({@code -g})
 * @param fds senders and receivers per group ({@code -f}; 20 in perf and hackbench)
 * @param loops messages each sender writes to each receiver of its group ({@code -l})
 * @param dataSize bytes per message (100 in perf and hackbench)
 * @param threads threads ({@code -t}) instead of processes
 * @param mappedFiles file-backed mappings each process shares with the others (the perf binary
 *     and its shared libraries); fork and exit take each file's i_mmap rwsem for write
 * @param vmasPerFile VMAs per mapped file (text, read-only data, data, ...)
 * @param anonVmas anonymous VMAs per process (heap, stack, the written data of each mapped
 *     file); fork and exit take, for each, the rwsem of its root anon_vma (one root per VMA of
 *     the parent, shared by all children)
 * @param pipeBuffers pipe buffers (pages) per pipe ({@code PIPE_DEF_BUFFERS})
 * @param pageSize the guest kernel's PAGE_SIZE: bytes per pipe buffer page and per copy-on-write
 *     page copy (4096 on x86_64; 65536 on a ppc64 kernel with CONFIG_PPC_64K_PAGES)
 * @param copySymbol the architecture's user-copy routine (the perf symbol of the message copy)
 * @param copyPageSymbol the architecture's page-copy routine (copy-on-write faults after fork)
 * @param addressSpace the processes' VMAs ({@link AddressSpaceLayout}): {@code perf-4.8} (the perf
 *     binary and its libraries as mapped) or {@code uniform} (mappedFiles, vmasPerFile, anonVmas)
 * @param vmaCostJitter what-if: each interval-tree step of a fork or exit costs its price times a
 *     uniform draw from [1 - j, 1 + j) (a seeded stream of its own); 0 = off. Order-preserving
 *     noise to test whether a convoy is an artefact of identical step-locked walks
 */
public record SchedMessagingConfig(
    int groups,
    int fds,
    int loops,
    int dataSize,
    boolean threads,
    int mappedFiles,
    int vmasPerFile,
    int anonVmas,
    int pipeBuffers,
    int pageSize,
    String copySymbol,
    String copyPageSymbol,
    String addressSpace,
    double vmaCostJitter) {

  public SchedMessagingConfig {
    checkArgument(groups > 0, "groups must be positive: %s", groups);
    checkArgument(fds > 0, "fds must be positive: %s", fds);
    checkArgument(loops > 0, "loops must be positive: %s", loops);
    checkArgument(dataSize > 0, "datasize must be positive: %s", dataSize);
    checkArgument(mappedFiles >= 0 && vmasPerFile >= 0 && anonVmas >= 0, "mapped files and VMAs must not be negative");
    checkArgument(pageSize > 0 && Integer.bitCount(pageSize) == 1, "page size must be a power of two: %s", pageSize);
    checkArgument(pipeBuffers > 0 && pageSize >= dataSize, "a pipe must hold at least one message");
    checkArgument(copySymbol != null && !copySymbol.isBlank(), "copy symbol must be set");
    checkArgument(copyPageSymbol != null && !copyPageSymbol.isBlank(), "copy-page symbol must be set");
    checkArgument(AddressSpaceLayout.PERF_4_8.equals(addressSpace) || AddressSpaceLayout.UNIFORM.equals(addressSpace),
        "unknown address space [%s]; known: [%s, %s]", addressSpace, AddressSpaceLayout.PERF_4_8, AddressSpaceLayout.UNIFORM);
    checkArgument(vmaCostJitter >= 0 && vmaCostJitter < 1, "vma-cost-jitter must be in [0, 1): %s", vmaCostJitter);
  }

  /** The VMAs every process of the benchmark walks at fork and exit (perf built for ppc64). */
  public AddressSpaceLayout layout() {
    return layout("ppc64");
  }

  /** The VMAs for a perf built with {@code unwindArch}'s libunwind (see {@link AddressSpaceLayout#unwindArch}). */
  public AddressSpaceLayout layout(String unwindArch) {
    return AddressSpaceLayout.of(addressSpace, mappedFiles, vmasPerFile, anonVmas, pageSize, unwindArch);
  }

  /** The same benchmark over another address space ({@link AddressSpaceLayout}). */
  public SchedMessagingConfig withAddressSpace(String layout) {
    return new SchedMessagingConfig(groups, fds, loops, dataSize, threads, mappedFiles, vmasPerFile, anonVmas, pipeBuffers,
        pageSize, copySymbol, copyPageSymbol, layout, vmaCostJitter);
  }

  /** The same benchmark with the what-if jitter of per-VMA costs. */
  public SchedMessagingConfig withVmaCostJitter(double j) {
    return new SchedMessagingConfig(groups, fds, loops, dataSize, threads, mappedFiles, vmasPerFile, anonVmas, pipeBuffers,
        pageSize, copySymbol, copyPageSymbol, addressSpace, j);
  }

  /** perf bench's defaults (10 groups, 20 fds, 100 loops, 100 B, processes with pipes), perf 4.8's mappings. */
  public static SchedMessagingConfig perfDefaults() {
    return new SchedMessagingConfig(10, 20, 100, 100, false, 10, 4, 12, 16, 4096, "__copy_tofrom_user", "copy_page",
        AddressSpaceLayout.PERF_4_8, 0);
  }

  public SchedMessagingConfig withGroups(int g) {
    return new SchedMessagingConfig(g, fds, loops, dataSize, threads, mappedFiles, vmasPerFile, anonVmas, pipeBuffers, pageSize,
        copySymbol, copyPageSymbol, addressSpace, vmaCostJitter);
  }

  public SchedMessagingConfig withLoops(int l) {
    return new SchedMessagingConfig(groups, fds, l, dataSize, threads, mappedFiles, vmasPerFile, anonVmas, pipeBuffers, pageSize,
        copySymbol, copyPageSymbol, addressSpace, vmaCostJitter);
  }

  public SchedMessagingConfig withThreads(boolean t) {
    return new SchedMessagingConfig(groups, fds, loops, dataSize, t, mappedFiles, vmasPerFile, anonVmas, pipeBuffers, pageSize,
        copySymbol, copyPageSymbol, addressSpace, vmaCostJitter);
  }

  /** The same benchmark with pipe buffers of {@code bytes} (the guest kernel's PAGE_SIZE). */
  public SchedMessagingConfig withPageSize(int bytes) {
    return new SchedMessagingConfig(groups, fds, loops, dataSize, threads, mappedFiles, vmasPerFile, anonVmas, pipeBuffers, bytes,
        copySymbol, copyPageSymbol, addressSpace, vmaCostJitter);
  }

  public SchedMessagingConfig withSymbols(String copy, String copyPage) {
    return new SchedMessagingConfig(groups, fds, loops, dataSize, threads, mappedFiles, vmasPerFile, anonVmas, pipeBuffers,
        pageSize, copy, copyPage, addressSpace, vmaCostJitter);
  }

  /** Tasks the benchmark creates: a sender and a receiver per fd per group. */
  public int tasks() {
    return 2 * fds * groups;
  }

  /**
   * Messages a pipe holds before a writer must wait: anonymous pipe buffers merge small writes
   * into their page ({@code anon_pipe_buf_ops.can_merge}), so each page takes as many whole
   * messages as fit.
   */
  public int pipeCapacityMessages() {
    return pipeBuffers * (pageSize / dataSize);
  }
}
