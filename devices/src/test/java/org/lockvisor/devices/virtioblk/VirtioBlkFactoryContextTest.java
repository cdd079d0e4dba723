package org.lockvisor.devices.virtioblk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.plugin.OptionBinder;
import org.lockvisor.devices.spi.DeviceContext;

/**
 * The factory builds its device from the context alone (issue 35): the name and the options the
 * framework bound, honoured as given; it reads neither the VM nor the locks, which exist only at
 * attach. The context is an interface, so a mock stands in for the framework.
 */
class VirtioBlkFactoryContextTest {

  @Test
  void create_mockedContext_honoursTheBoundOptions() {
    VirtioBlkFactory factory = new VirtioBlkFactory();
    DeviceContext context = mock(DeviceContext.class);
    when(context.name()).thenReturn("vdz");
    when(context.options()).thenReturn(OptionBinder.bind(factory, Map.of("queue-size", "256", "event-idx", "false")));

    VirtioBlk device = (VirtioBlk) factory.create(context);

    assertThat(device.name()).isEqualTo("vdz");
    assertThat(device.config().queueSize()).isEqualTo(256);
    assertThat(device.config().eventIdx()).isFalse();
    verify(context, never()).vm();
    verify(context, never()).locks();
  }
}
