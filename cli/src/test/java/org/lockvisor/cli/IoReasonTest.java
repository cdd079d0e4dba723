package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystemException;
import javax.xml.transform.TransformerException;
import org.junit.jupiter.api.Test;
import org.xml.sax.SAXException;

/**
 * A disk that fills while an envelope writes its SVG plots reaches the user as the file system's
 * reason, in one line: the XML writer's chain (a transformer exception around a SAX exception
 * around the I/O error) and the class names in its messages are left out.
 */
class IoReasonTest {

  @Test
  void diskFullUnderTheSvgWriter_reasonWithoutTheSaxChain() {
    IOException disk = new IOException("No space left on device");
    IOException wrapped = new IOException("javax.xml.transform.TransformerException: org.xml.sax.SAXException:"
        + " No space left on device\njava.io.IOException: No space left on device",
        new TransformerException(new SAXException(disk)));

    String reason = Lockvisor.ioReason(wrapped);

    assertThat(reason).isEqualTo("No space left on device");
  }

  @Test
  void fileSystemReason_wins_evenDeepInTheChain() {
    IOException chain = new IOException("org.xml.sax.SAXException: write failed",
        new SAXException(new FileSystemException("/out/plots/x.svg", null, "No space left on device")));

    assertThat(Lockvisor.ioReason(chain)).isEqualTo("No space left on device");
  }

  @Test
  void envelopeReportFailure_oneLineNamesTheDirectoryAndTheReason() {
    UncheckedIOException e = new UncheckedIOException("cannot write the envelope into [/out]",
        new IOException("org.xml.sax.SAXException: x", new SAXException(new IOException("No space left on device"))));

    String line = Lockvisor.oneLine(e.getMessage()) + ": " + Lockvisor.ioReason(e.getCause());

    assertThat(line).isEqualTo("cannot write the envelope into [/out]: No space left on device")
        .doesNotContain("SAX", "javax", "java.io");
  }
}
