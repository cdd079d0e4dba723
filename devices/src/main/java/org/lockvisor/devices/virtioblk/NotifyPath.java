package org.lockvisor.devices.virtioblk;

import org.lockvisor.machine.Program;

/**
 * How a guest's {@code virtqueue_notify} reaches the device model: the exit reason and the host
 * handler program the vCPU thread runs before re-entering the guest. The hardware exit/entry
 * round trip is added by the machine ({@code HypervisorConfig.exitRoundtripNs}).
 */
public interface NotifyPath {

  /** Option value and name, e.g. {@code ioeventfd}. */
  String name();

  /** The VM exit reason as {@code perf kvm stat} would show it. */
  String exitReason();

  /** The handler program run on the vCPU thread for one notify. */
  Program hostHandler(VmmSide vmm);

  /**
   * x86 with KVM ioeventfd: the PIO write is handled in the host kernel, which signals the
   * eventfd QEMU's main loop polls (waking that thread) and re-enters the guest; the queue is
   * processed asynchronously by the VMM thread.
   */
  static NotifyPath ioeventfd() {
    return new NotifyPath() {
      @Override
      public String name() {
        return "ioeventfd";
      }

      @Override
      public String exitReason() {
        return "IO_INSTRUCTION";
      }

      @Override
      public Program hostHandler(VmmSide vmm) {
        return Program.named("handle_io")
            .work(vmm.costs().ioeventfdExitNs(), "ioeventfd_write")
            .run(t -> vmm.signalMainLoop())
            .op(org.lockvisor.machine.Ops.wake(t -> vmm.mainLoopThread()))
            .build();
      }
    };
  }

  /**
   * arm64 in 2014 (no ioeventfd for MMIO on ARM yet): the MMIO write exits to the userspace VMM
   * in the vCPU thread, which takes the VMM's global lock, pops every new request and submits it
   * to the backend synchronously, then drops the lock and re-enters the guest.
   */
  static NotifyPath userspace() {
    return new NotifyPath() {
      @Override
      public String name() {
        return "userspace";
      }

      @Override
      public String exitReason() {
        return "MMIO";
      }

      @Override
      public Program hostHandler(VmmSide vmm) {
        long half = vmm.costs().userspaceExitNs() / 2;
        Program.Builder b = Program.named("kvm_handle_mmio")
            .work(half, "kvm_arch_vcpu_ioctl_run")
            .op(org.lockvisor.machine.Ops.vmmUserspace(true));
        if (vmm.globalLock() != null) {
          b.op(vmm.globalLock().lock(org.lockvisor.locking.spi.LockMode.SLEEPING));
        }
        b.work(vmm.costs().mmioDispatchNs(), "virtio_mmio_write").call(vmm.handleOutput());
        if (vmm.globalLock() != null) {
          b.op(vmm.globalLock().unlock(org.lockvisor.locking.spi.LockMode.SLEEPING));
        }
        return b.op(org.lockvisor.machine.Ops.vmmUserspace(false))
            .work(vmm.costs().userspaceExitNs() - half, "kvm_arch_vcpu_ioctl_run")
            .build();
      }
    };
  }

  /** The notify path called {@code name}. */
  static NotifyPath named(String name) {
    return switch (name) {
      case "ioeventfd" -> ioeventfd();
      case "userspace" -> userspace();
      default -> throw new IllegalArgumentException("unknown notify path [" + name + "]; known: [ioeventfd, userspace]");
    };
  }
}
