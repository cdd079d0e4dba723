package org.lockvisor.devices.spi;

import org.lockvisor.core.plugin.Plugin;

/**
 * Device plugin SPI. One small final class per device model, registered with
 * {@code @AutoService(DeviceFactory.class)}; experiments choose it by {@link #name()}
 * ({@code device: virtio-blk}).
 */
public interface DeviceFactory extends Plugin {

  @Override
  default String kind() {
    return "device";
  }

  /**
   * A new, not yet attached device instance as {@code context} describes it: its name (e.g. {@code
   * vdb}), its options bound by the framework against {@link #options()} (strict: unknown keys and
   * bad values were refused before this call, all at once), the arch profile's costs and the kernel
   * locks. The VM is not there yet ({@link DeviceContext#vm()} is read in {@link Device#attach}).
   */
  Device create(DeviceContext context);
}
