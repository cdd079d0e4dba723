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
 * @param vmm the QEMU device model ({@link Vmm})
 * @param queuePolicy the device's ring behaviour ({@link QueuePolicies}), or {@code auto} for the
 *     VMM's own
 * @param interruptTransport how the completion interrupt reaches the guest ({@link InterruptTransport})
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
    boolean postedInterrupts,
    Vmm vmm,
    String queuePolicy,
    InterruptTransport interruptTransport) {

  /**
   * The QEMU device model behind the ring. {@code qemu-2.0-main-loop}: QEMU 2.0 virtio-blk
   * ({@code hw/block/virtio-blk.c}) run by the main loop under the BQL, completions through the
   * block layer's coroutine and a bottom half ({@code block.c bdrv_co_do_rw -> bdrv_co_em_bh}),
   * the loop keeping the BQL across zero-timeout polls while bottom halves are pending
   * ({@code main-loop.c os_host_main_loop_wait}). {@code qemu-2.0-dataplane}: QEMU 2.0
   * {@code x-data-plane=on} ({@code hw/block/dataplane/virtio-blk.c}): its own thread, no BQL,
   * burst pop and one {@code ioq_submit}, one irqfd notify per completion batch; needs ioeventfd
   * and irqfd (x86 in 2014, not KVM/ARM before 4.1).
   */
  public enum Vmm {
    QEMU_2_0_MAIN_LOOP("qemu-2.0-main-loop"),
    QEMU_2_0_DATAPLANE("qemu-2.0-dataplane");

    private final String option;

    Vmm(String option) {
      this.option = option;
    }

    public String option() {
      return option;
    }

    public static Vmm of(String option) {
      for (Vmm m : values()) {
        if (m.option.equals(option)) {
          return m;
        }
      }
      throw new IllegalArgumentException("unknown vmm [" + option + "]; known: [qemu-2.0-main-loop, qemu-2.0-dataplane]");
    }
  }

  /**
   * How the completion interrupt reaches the guest. {@code msi}: an edge interrupt (virtio-pci
   * MSI-X, irqfd or KVM_IRQ_LINE), handled by {@code vring_interrupt}. {@code mmio-level}:
   * virtio-mmio on the 2014 arm64 {@code virt} board: a level-triggered SPI raised and lowered by
   * QEMU with {@code KVM_IRQ_LINE}; the guest's {@code vm_interrupt} (drivers/virtio/virtio_mmio.c
   * 3.15) reads {@code INTERRUPT_STATUS} and writes {@code INTERRUPT_ACK} (two MMIO exits to QEMU,
   * each under the BQL), and the 3.15 vGIC requests an EOI maintenance interrupt for level
   * interrupts (virt/kvm/arm/vgic.c {@code vgic_queue_irq}: {@code GICH_LR_EOI}).
   */
  public enum InterruptTransport {
    MSI("msi"),
    MMIO_LEVEL("mmio-level");

    private final String option;

    InterruptTransport(String option) {
      this.option = option;
    }

    public String option() {
      return option;
    }

    public static InterruptTransport of(String option) {
      for (InterruptTransport m : values()) {
        if (m.option.equals(option)) {
          return m;
        }
      }
      throw new IllegalArgumentException("unknown interrupt transport [" + option + "]; known: [msi, mmio-level]");
    }
  }

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
    checkArgument(vmm != null, "vmm must be set");
    checkArgument(interruptTransport != null, "interrupt-transport must be set");
    checkArgument(queuePolicy != null, "queue-policy must be set");
    if (!queuePolicy.equals("auto")) {
      QueuePolicies.named(queuePolicy); // validates
    }
    checkArgument(!(vmm == Vmm.QEMU_2_0_DATAPLANE && notifyPath.equals("userspace")),
        "vmm qemu-2.0-dataplane needs the ioeventfd notify path (x-data-plane polls the ioeventfd in its own thread; "
            + "a userspace notify is handled under the BQL in the vCPU thread)");
    checkArgument(!(vmm == Vmm.QEMU_2_0_DATAPLANE && interruptTransport == InterruptTransport.MMIO_LEVEL),
        "vmm qemu-2.0-dataplane needs irqfd, which a level-triggered virtio-mmio interrupt lowered by QEMU does not "
            + "have (interrupt-transport msi)");
  }

  /** The queue policy the options select: {@code auto} is the VMM's own. */
  public QueuePolicy resolveQueuePolicy() {
    if (!queuePolicy.equals("auto")) {
      return QueuePolicies.named(queuePolicy);
    }
    return vmm == Vmm.QEMU_2_0_DATAPLANE ? QueuePolicies.qemu20Dataplane() : QueuePolicies.qemu20();
  }

  /** Defaults: patched notify, x86 ioeventfd, BQL, 128 entries, EVENT_IDX, indirect, irq on cpu 0, no posted interrupts. */
  public static VirtioBlkConfig defaults() {
    return new VirtioBlkConfig(NotifyMode.OUTSIDE_LOCK, "ioeventfd", true, 128, true, true, 0, -1, 32, 20_000, true, false,
        Vmm.QEMU_2_0_MAIN_LOOP, "auto", InterruptTransport.MSI);
  }

  public VirtioBlkConfig withNotify(NotifyMode m) {
    return new VirtioBlkConfig(m, notifyPath, vmmGlobalLock, queueSize, eventIdx, indirect, irqCpu, vmmCpu, backendDepth,
        backendServiceNs, backendExponential, postedInterrupts, vmm,
        queuePolicy, interruptTransport);
  }

  public VirtioBlkConfig withNotifyPath(String p) {
    return new VirtioBlkConfig(notifyMode, p, vmmGlobalLock, queueSize, eventIdx, indirect, irqCpu, vmmCpu, backendDepth,
        backendServiceNs, backendExponential, postedInterrupts, vmm,
        queuePolicy, interruptTransport);
  }

  public VirtioBlkConfig withQueueSize(int n) {
    return new VirtioBlkConfig(notifyMode, notifyPath, vmmGlobalLock, n, eventIdx, indirect, irqCpu, vmmCpu, backendDepth,
        backendServiceNs, backendExponential, postedInterrupts, vmm,
        queuePolicy, interruptTransport);
  }

  public VirtioBlkConfig withEventIdx(boolean on) {
    return new VirtioBlkConfig(notifyMode, notifyPath, vmmGlobalLock, queueSize, on, indirect, irqCpu, vmmCpu, backendDepth,
        backendServiceNs, backendExponential, postedInterrupts, vmm,
        queuePolicy, interruptTransport);
  }

  public VirtioBlkConfig withPostedInterrupts(boolean on) {
    return new VirtioBlkConfig(notifyMode, notifyPath, vmmGlobalLock, queueSize, eventIdx, indirect, irqCpu, vmmCpu,
        backendDepth, backendServiceNs, backendExponential, on, vmm,
        queuePolicy, interruptTransport);
  }

  public VirtioBlkConfig withIndirect(boolean on) {
    return new VirtioBlkConfig(notifyMode, notifyPath, vmmGlobalLock, queueSize, eventIdx, on, irqCpu, vmmCpu, backendDepth,
        backendServiceNs, backendExponential, postedInterrupts, vmm,
        queuePolicy, interruptTransport);
  }

  public VirtioBlkConfig withBackend(int depth, long serviceNs, boolean exponential) {
    return new VirtioBlkConfig(notifyMode, notifyPath, vmmGlobalLock, queueSize, eventIdx, indirect, irqCpu, vmmCpu, depth,
        serviceNs, exponential, postedInterrupts, vmm,
        queuePolicy, interruptTransport);
  }

  public VirtioBlkConfig withVmmCpu(int cpu) {
    return new VirtioBlkConfig(notifyMode, notifyPath, vmmGlobalLock, queueSize, eventIdx, indirect, irqCpu, cpu,
        backendDepth, backendServiceNs, backendExponential, postedInterrupts, vmm,
        queuePolicy, interruptTransport);
  }

  public VirtioBlkConfig withIrqCpu(int cpu) {
    return new VirtioBlkConfig(notifyMode, notifyPath, vmmGlobalLock, queueSize, eventIdx, indirect, cpu, vmmCpu, backendDepth,
        backendServiceNs, backendExponential, postedInterrupts, vmm,
        queuePolicy, interruptTransport);
  }

  public VirtioBlkConfig withVmm(Vmm v) {
    return new VirtioBlkConfig(notifyMode, notifyPath, vmmGlobalLock, queueSize, eventIdx, indirect, irqCpu, vmmCpu,
        backendDepth, backendServiceNs, backendExponential, postedInterrupts, v, queuePolicy, interruptTransport);
  }

  public VirtioBlkConfig withQueuePolicy(String policy) {
    return new VirtioBlkConfig(notifyMode, notifyPath, vmmGlobalLock, queueSize, eventIdx, indirect, irqCpu, vmmCpu,
        backendDepth, backendServiceNs, backendExponential, postedInterrupts, vmm, policy, interruptTransport);
  }

  public VirtioBlkConfig withInterruptTransport(InterruptTransport t) {
    return new VirtioBlkConfig(notifyMode, notifyPath, vmmGlobalLock, queueSize, eventIdx, indirect, irqCpu, vmmCpu,
        backendDepth, backendServiceNs, backendExponential, postedInterrupts, vmm, queuePolicy, t);
  }
}
