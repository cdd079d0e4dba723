package org.lockvisor.devices.spi;

import java.util.Map;
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
   * A new, not yet attached device instance called {@code instanceName} (e.g. {@code vdb}),
   * configured by {@code options}. Unknown option keys and bad values are errors, all reported
   * at once (see {@link OptionValues}).
   */
  Device create(String instanceName, Map<String, String> options);
}
