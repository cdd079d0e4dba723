package org.lockvisor.devices.virtioblk;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * Options of one virtio-blk instance (what an experiment chooses; costs come from the arch
 * profile instead, see {@link VirtioBlkCosts}).
 *
 * @param notifyMode where {@code virtio_queue_rq} notifies the device: inside vq_lock (3.13–3.15) or
 *     after dropping it (e8edca6f7f92, 3.16 and stable)
 * @param notifyPath how the notify reaches the device model ({@link NotifyPath#named})
 * @param vmmGlobalLock whether the VMM serialises device emulation under one global lock (QEMU BQL)
 * @param queueSize descriptors in the ring (a power of two; QEMU virtio-blk: 128)
 * @param eventIdx VIRTIO_RING_F_EVENT_IDX negotiated
 * @param indirect VIRTIO_RING_F_INDIRECT_DESC negotiated: one ring descriptor per request, else
 *     three (header, data, status) for a single-segment request
 * @param irqCpu guest CPU that receives the completion interrupt; -1 spreads round robin
 * @param vmmCpu host CPU the VMM's main-loop thread is pinned to; -1 lets it float
 * @param backendDepth parallel requests the backend serves
 * @param backendServiceNs service time of one request at the backend (mean if exponential)
 * @param backendExponential exponential service times (else constant)
 * @param postedInterrupts the hypervisor delivers the completion interrupt to a running vCPU
 *     without an exit (APICv / GICv4); without them (2014) a vCPU in guest mode takes an external
 *     interrupt exit first. Set from the arch profile's hypervisor behaviour.
 */
public record VirtioBlkConfig(
    NotifyMode notifyMode,
    String notifyPath,
    boolean vmmGlobalLock,
    int queueSize,
    boolean eventIdx,
    boolean indirect,
    int irqCpu,
    int vmmCpu,
    int backendDepth,
    long backendServiceNs,
    boolean backendExponential,
    boolean postedInterrupts) {

  /** Where the notify happens relative to vq_lock. */
  public enum NotifyMode {
    INSIDE_LOCK("inside-lock"),
    OUTSIDE_LOCK("outside-lock");

    private final String option;

    NotifyMode(String option) {
      this.option = option;
    }

    public String option() {
      return option;
    }

    public static NotifyMode of(String option) {
      for (NotifyMode m : values()) {
        if (m.option.equals(option)) {
          return m;
        }
      }
      throw new IllegalArgumentException("unknown notify mode [" + option + "]; known: [inside-lock, outside-lock]");
    }
  }

  public VirtioBlkConfig {
    checkArgument(notifyMode != null, "notifyMode must be set");
    NotifyPath.named(notifyPath); // validates
    checkArgument(queueSize >= 2 && queueSize <= 32768 && Integer.bitCount(queueSize) == 1,
        "queue-size must be a power of two in [2, 32768]: %s", queueSize);
    checkArgument(irqCpu >= -1, "irq-cpu must be a cpu index or -1: %s", irqCpu);
    checkArgument(vmmCpu >= -1, "vmm-cpu must be a cpu index or -1: %s", vmmCpu);
    checkArgument(backendDepth > 0, "backend-depth must be positive: %s", backendDepth);
    checkArgument(backendServiceNs >= 0, "backend-service-ns must not be negative: %s", backendServiceNs);
  }

  /** Defaults: patched notify, x86 ioeventfd, BQL, 128 entries, EVENT_IDX, indirect, irq on cpu 0, no posted interrupts. */
  public static VirtioBlkConfig defaults() {
    return new VirtioBlkConfig(NotifyMode.OUTSIDE_LOCK, "ioeventfd", true, 128, true, true, 0, -1, 32, 20_000, true, false);
  }

  public VirtioBlkConfig withNotify(NotifyMode m) {
    return new VirtioBlkConfig(m, notifyPath, vmmGlobalLock, queueSize, eventIdx, indirect, irqCpu, vmmCpu, backendDepth,
        backendServiceNs, backendExponential, postedInterrupts);
  }

  public VirtioBlkConfig withNotifyPath(String p) {
    return new VirtioBlkConfig(notifyMode, p, vmmGlobalLock, queueSize, eventIdx, indirect, irqCpu, vmmCpu, backendDepth,
        backendServiceNs, backendExponential, postedInterrupts);
  }

  public VirtioBlkConfig withQueueSize(int n) {
    return new VirtioBlkConfig(notifyMode, notifyPath, vmmGlobalLock, n, eventIdx, indirect, irqCpu, vmmCpu, backendDepth,
        backendServiceNs, backendExponential, postedInterrupts);
  }

  public VirtioBlkConfig withEventIdx(boolean on) {
    return new VirtioBlkConfig(notifyMode, notifyPath, vmmGlobalLock, queueSize, on, indirect, irqCpu, vmmCpu, backendDepth,
        backendServiceNs, backendExponential, postedInterrupts);
  }

  public VirtioBlkConfig withPostedInterrupts(boolean on) {
    return new VirtioBlkConfig(notifyMode, notifyPath, vmmGlobalLock, queueSize, eventIdx, indirect, irqCpu, vmmCpu,
        backendDepth, backendServiceNs, backendExponential, on);
  }

  public VirtioBlkConfig withIndirect(boolean on) {
    return new VirtioBlkConfig(notifyMode, notifyPath, vmmGlobalLock, queueSize, eventIdx, on, irqCpu, vmmCpu, backendDepth,
        backendServiceNs, backendExponential, postedInterrupts);
  }

  public VirtioBlkConfig withBackend(int depth, long serviceNs, boolean exponential) {
    return new VirtioBlkConfig(notifyMode, notifyPath, vmmGlobalLock, queueSize, eventIdx, indirect, irqCpu, vmmCpu, depth,
        serviceNs, exponential, postedInterrupts);
  }

  public VirtioBlkConfig withVmmCpu(int cpu) {
    return new VirtioBlkConfig(notifyMode, notifyPath, vmmGlobalLock, queueSize, eventIdx, indirect, irqCpu, cpu,
        backendDepth, backendServiceNs, backendExponential, postedInterrupts);
  }

  public VirtioBlkConfig withIrqCpu(int cpu) {
    return new VirtioBlkConfig(notifyMode, notifyPath, vmmGlobalLock, queueSize, eventIdx, indirect, cpu, vmmCpu, backendDepth,
        backendServiceNs, backendExponential, postedInterrupts);
  }
}
