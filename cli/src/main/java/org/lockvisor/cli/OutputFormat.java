package org.lockvisor.cli;

import java.util.Arrays;
import java.util.Locale;
import org.lockvisor.core.plugin.DidYouMean;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** {@code --format}: human-readable text or JSON. */
public enum OutputFormat {
  TEXT,
  JSON;

  String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses lower-case labels, failing with the house "unknown ... did you mean" message. */
  static final class Converter implements ITypeConverter<OutputFormat> {
    @Override
    public OutputFormat convert(String value) {
      for (OutputFormat format : values()) {
        if (format.label().equals(value)) {
          return format;
        }
      }
      throw new TypeConversionException(DidYouMean.unknownMessage(
          "format", value, Arrays.stream(values()).map(OutputFormat::label).toList()));
    }
  }
}
