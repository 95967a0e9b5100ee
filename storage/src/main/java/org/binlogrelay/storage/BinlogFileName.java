package org.binlogrelay.storage;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Binlog file names as servers make them: a base name, a dot and a sequence number of at least six
 * digits ({@code binlog.000001}, {@code mariadb-bin.000123}). The store accepts only such names from the
 * upstream stream, so a name can never reach outside the store's directory, and orders files by the
 * number. Stateless.
 */
public final class BinlogFileName {
  /** Offset of the first event of a file: the magic number {@code fe 62 69 6e} takes the first 4 bytes. */
  public static final long FIRST_EVENT_OFFSET = 4;

  private static final Pattern NAME = Pattern.compile("([A-Za-z0-9_][A-Za-z0-9_.-]{0,199})\\.([0-9]{1,18})");

  private BinlogFileName() {}

  /** True if {@code name} looks like a binlog file name (base, dot, digits) and is safe as a file name. */
  public static boolean isValid(String name) {
    return name != null && NAME.matcher(name).matches();
  }

  /** Throws {@link IllegalArgumentException} naming {@code what} unless {@link #isValid}. */
  public static String require(String name, String what) {
    if (!isValid(name)) {
      throw new IllegalArgumentException(what + " '" + name + "' is not a binlog file name (expected"
          + " base.NNNNNN, e.g. binlog.000001, made of letters, digits, '_', '-' and '.')");
    }
    return name;
  }

  /** The number after the last dot; {@link IllegalArgumentException} for a name that is not valid. */
  public static long sequence(String name) {
    Matcher m = match(name);
    return Long.parseLong(m.group(2));
  }

  /** The part before the last dot, e.g. {@code binlog}. */
  public static String base(String name) {
    return match(name).group(1);
  }

  /** The name with the next sequence number, keeping the number's width: binlog.000009 gives binlog.000010. */
  public static String next(String name) {
    Matcher m = match(name);
    String digits = m.group(2);
    String next = Long.toString(Long.parseLong(digits) + 1);
    StringBuilder padded = new StringBuilder(m.group(1)).append('.');
    for (int i = next.length(); i < digits.length(); i++) {
      padded.append('0');
    }
    return padded.append(next).toString();
  }

  private static Matcher match(String name) {
    Matcher m = name == null ? null : NAME.matcher(name);
    if (m == null || !m.matches()) {
      throw new IllegalArgumentException("'" + name + "' is not a binlog file name (base.NNNNNN)");
    }
    return m;
  }
}
