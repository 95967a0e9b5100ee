package org.binlogrelay.storage;

/**
 * Binlog file names as servers make them: a base name, a dot and a sequence number of at least six
 * digits ({@code binlog.000001}, {@code mariadb-bin.000123}). The store accepts only such names
 * from the upstream stream, so a name can never reach outside the store's directory, and orders
 * files by the number. Stateless.
 */
public final class BinlogFileName {
  /**
   * Offset of the first event of a file: the magic number {@code fe 62 69 6e} takes the first 4
   * bytes.
   */
  public static final long FIRST_EVENT_OFFSET = 4;

  private static final int MAX_BASE_LENGTH = 200;
  private static final int MAX_DIGITS = 18;

  private BinlogFileName() {}

  /**
   * True if {@code name} looks like a binlog file name (base, dot, digits) and is safe as a file
   * name.
   */
  public static boolean isValid(String name) {
    return name != null && lastDot(name) > 0;
  }

  /** Throws {@link IllegalArgumentException} naming {@code what} unless {@link #isValid}. */
  public static String require(String name, String what) {
    if (!isValid(name)) {
      throw new IllegalArgumentException(
          what
              + " '"
              + name
              + "' is not a binlog file name (expected"
              + " base.NNNNNN, e.g. binlog.000001, made of letters, digits, '_', '-' and '.')");
    }
    return name;
  }

  /**
   * The number after the last dot; {@link IllegalArgumentException} for a name that is not valid.
   * Cheap (no regular expression, no allocation): {@link Position#compareTo} calls it.
   */
  @SuppressWarnings(
      "ReferenceEquality") // the identity check is the cache hit, see the comment below
  public static long sequence(String name) {
    Parsed last = lastParsed;
    if (last != null && last.name() == name) {
      return last
          .sequence(); // the same String object again: positions of one file share their name's
      // instance
    }
    int dot = match(name);
    long n = 0;
    for (int i = dot + 1; i < name.length(); i++) {
      n = n * 10 + (name.charAt(i) - '0');
    }
    lastParsed = new Parsed(name, n);
    return n;
  }

  /**
   * A name and its number, as parsed last (by any thread: an immutable pair, so a racy read is
   * still a whole one).
   */
  private record Parsed(String name, long sequence) {}

  private static Parsed lastParsed;

  /** The part before the last dot, e.g. {@code binlog}. */
  public static String base(String name) {
    return name.substring(0, match(name));
  }

  /**
   * The name with the next sequence number, keeping the number's width: binlog.000009 gives
   * binlog.000010.
   */
  public static String next(String name) {
    int dot = match(name);
    String digits = name.substring(dot + 1);
    String next = Long.toString(Long.parseLong(digits) + 1);
    StringBuilder padded = new StringBuilder(name.length() + 1).append(name, 0, dot + 1);
    for (int i = next.length(); i < digits.length(); i++) {
      padded.append('0');
    }
    return padded.append(next).toString();
  }

  private static int match(String name) {
    int dot = name == null ? -1 : lastDot(name);
    if (dot <= 0) {
      throw new IllegalArgumentException("'" + name + "' is not a binlog file name (base.NNNNNN)");
    }
    return dot;
  }

  /**
   * Where the dot before the sequence number is, or -1 if {@code name} is not {@code base.digits}:
   * a base of 1 to 200 characters from {@code [A-Za-z0-9_.-]} not starting with '.' or '-', a dot,
   * then 1 to 18 digits.
   */
  private static int lastDot(String name) {
    int dot = name.lastIndexOf('.');
    int digits = name.length() - dot - 1;
    if (dot < 1 || dot > MAX_BASE_LENGTH || digits < 1 || digits > MAX_DIGITS) {
      return -1;
    }
    for (int i = dot + 1; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
    }
    char first = name.charAt(0);
    if (first == '.' || first == '-' || !baseChar(first)) {
      return -1;
    }
    for (int i = 1; i < dot; i++) {
      if (!baseChar(name.charAt(i))) {
        return -1;
      }
    }
    return dot;
  }

  private static boolean baseChar(char c) {
    return c >= 'a' && c <= 'z'
        || c >= 'A' && c <= 'Z'
        || c >= '0' && c <= '9'
        || c == '_'
        || c == '.'
        || c == '-';
  }
}
