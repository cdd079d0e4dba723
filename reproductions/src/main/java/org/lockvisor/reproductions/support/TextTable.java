package org.lockvisor.reproductions.support;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.base.Strings;
import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * A plain-text table: header, a rule, rows; numbers right-aligned, text left-aligned. Formatting
 * is locale-independent ({@link Locale#ROOT}) so reports diff cleanly across machines.
 */
public final class TextTable {

  private final String[] header;
  private final List<String[]> rows = new ArrayList<>();

  public TextTable(String... header) {
    checkArgument(header.length > 0, "a table needs columns");
    this.header = header.clone();
  }

  public TextTable row(Object... cells) {
    checkArgument(cells.length == header.length, "row has %s cells, table has %s columns", cells.length, header.length);
    rows.add(Arrays.stream(cells).map(TextTable::cell).toArray(String[]::new));
    return this;
  }

  /** {@code String.format(Locale.ROOT, ...)}: for cells. */
  public static String f(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }

  public ImmutableList<String> lines() {
    int[] width = new int[header.length];
    for (int c = 0; c < header.length; c++) {
      width[c] = header[c].length();
      for (String[] row : rows) {
        width[c] = Math.max(width[c], row[c].length());
      }
    }
    ImmutableList.Builder<String> out = ImmutableList.builder();
    out.add(render(header, width, true));
    StringBuilder rule = new StringBuilder();
    for (int c = 0; c < header.length; c++) {
      rule.append(c == 0 ? "" : "  ").append(Strings.repeat("-", width[c]));
    }
    out.add(rule.toString());
    rows.forEach(r -> out.add(render(r, width, false)));
    return out.build();
  }

  private static String render(String[] cells, int[] width, boolean isHeader) {
    StringBuilder line = new StringBuilder();
    for (int c = 0; c < cells.length; c++) {
      if (c > 0) {
        line.append("  ");
      }
      boolean right = !isHeader ? looksNumeric(cells[c]) : c > 0;
      line.append(right ? Strings.padStart(cells[c], width[c], ' ') : Strings.padEnd(cells[c], width[c], ' '));
    }
    return line.toString().stripTrailing();
  }

  private static boolean looksNumeric(String s) {
    return !s.isEmpty() && (Character.isDigit(s.charAt(0)) || s.charAt(0) == '-' || s.charAt(0) == '+')
        && s.chars().anyMatch(Character::isDigit);
  }

  private static String cell(Object o) {
    if (o == null) {
      return "-";
    }
    if (o instanceof Double d) {
      return f("%.2f", d);
    }
    return o.toString();
  }
}
