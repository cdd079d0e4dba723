package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.lockvisor.cli.CliFixture.Run;

/**
 * Device options the arch profile decides ({@code notify-path}, {@code interrupt-transport})
 * follow the profile when the experiment leaves them out: virtio-blk on arm64-kvm without {@code
 * notify-path} runs exactly as with {@code userspace} (the profile's exit to the VMM under its
 * global lock), not as with {@code ioeventfd}; without {@code interrupt-transport} exactly as with
 * {@code mmio-level} (no irqfd where the notify exits to QEMU), not as with {@code msi}; a value
 * given in the experiment still wins.
 */
class DeviceProfileDefaultsTest {

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final String FILE = "../examples/experiments/quick-virtio-blk.yaml";

  private static String fingerprint(String... sets) throws IOException {
    java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("run", FILE, "--variant", "base",
        "--format", "json", "--set", "arch=arm64-kvm"));
    for (String s : sets) {
      args.add("--set");
      args.add(s);
    }
    Run run = CliFixture.run(args.toArray(String[]::new));
    assertThat(run.exitCode()).as(run.err()).isZero();
    return MAPPER.readTree(run.out()).get("runs").get(0).get("fingerprint").asText();
  }

  @Test
  void notifyPath_leftOut_followsTheArm64Profile() throws IOException {
    String derived = fingerprint();
    String userspace = fingerprint("vms[0].devices[0].options.notify-path=userspace");
    String ioeventfd = fingerprint("vms[0].devices[0].options.notify-path=ioeventfd");

    assertThat(derived).isEqualTo(userspace).isNotEqualTo(ioeventfd);
  }

  @Test
  void interruptTransport_leftOut_followsTheArm64Profile() throws IOException {
    String derived = fingerprint();
    String level = fingerprint("vms[0].devices[0].options.interrupt-transport=mmio-level");
    String msi = fingerprint("vms[0].devices[0].options.interrupt-transport=msi");

    assertThat(derived).isEqualTo(level).isNotEqualTo(msi);
  }
}
