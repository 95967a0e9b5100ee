package org.binlogrelay.protocol.gtid;

/**
 * One MariaDB GTID, printed {@code domain-server-seq} in decimal, all three unsigned: for example
 * {@code 1-4294967295-18446744073709551615} (the largest, as MariaDB 10.11 prints it).
 *
 * <p>Immutable and thread-safe.
 *
 * @param domainId replication domain (unsigned 32-bit, held in a long: 0 to 4294967295)
 * @param serverId originating server id (unsigned 32-bit, held in a long: 0 to 4294967295)
 * @param seqNo sequence number within the domain (unsigned 64-bit, kept raw: values above 2^63-1
 *     are negative here; compare with {@link Long#compareUnsigned} and print with {@link
 *     Long#toUnsignedString})
 */
public record MariadbGtid(long domainId, long serverId, long seqNo) {
  private static final long MAX_U32 = 0xffff_ffffL;

  /** Characters of a malformed text quoted in an error message, as MySQL's GTID parser quotes. */
  static final int MAX_QUOTED = 200;

  public MariadbGtid {
    if (domainId < 0 || domainId > MAX_U32) {
      throw new IllegalArgumentException(
          "MariaDB GTID domain id " + domainId + " outside 0.." + MAX_U32);
    }
    if (serverId < 0 || serverId > MAX_U32) {
      throw new IllegalArgumentException(
          "MariaDB GTID server id " + serverId + " outside 0.." + MAX_U32);
    }
  }

  /**
   * Parses {@code domain-server-seq}: three unsigned decimal numbers (leading zeros allowed, no
   * signs) joined by '-', optionally surrounded by whitespace. IllegalArgumentException if
   * malformed or out of range.
   */
  public static MariadbGtid parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("MariaDB GTID text is null");
    }
    String s = text.strip();
    int first = s.indexOf('-');
    int second = first < 0 ? -1 : s.indexOf('-', first + 1);
    if (second < 0 || s.indexOf('-', second + 1) >= 0) {
      throw new IllegalArgumentException(
          "malformed MariaDB GTID '"
              + quoted(text)
              + "': expected domain-server-seq, e.g. 0-1-100");
    }
    long domain = number(text, s.substring(0, first), "domain id", MAX_U32);
    long server = number(text, s.substring(first + 1, second), "server id", MAX_U32);
    long seq = number(text, s.substring(second + 1), "sequence number", -1L);
    return new MariadbGtid(domain, server, seq);
  }

  /** The sequence number as unsigned decimal text. */
  public String seqNoText() {
    return Long.toUnsignedString(seqNo);
  }

  @Override
  public String toString() {
    return domainId + "-" + serverId + "-" + Long.toUnsignedString(seqNo);
  }

  /** An unsigned decimal no larger than {@code max} (compared unsigned; -1 = 2^64-1). */
  private static long number(String text, String digits, String what, long max) {
    boolean ok = !digits.isEmpty();
    for (int i = 0; ok && i < digits.length(); i++) {
      ok = digits.charAt(i) >= '0' && digits.charAt(i) <= '9';
    }
    if (!ok) {
      throw new IllegalArgumentException(
          "malformed MariaDB GTID '"
              + quoted(text)
              + "': "
              + what
              + " '"
              + quoted(digits)
              + "' is not a decimal number");
    }
    try {
      long value = Long.parseUnsignedLong(digits);
      if (Long.compareUnsigned(value, max) <= 0) {
        return value;
      }
    } catch (NumberFormatException tooBig) {
      // reported below
    }
    throw new IllegalArgumentException(
        "malformed MariaDB GTID '"
            + quoted(text)
            + "': "
            + what
            + " "
            + quoted(digits)
            + " exceeds "
            + Long.toUnsignedString(max));
  }

  /**
   * {@code text} for an error message, cut to its first {@value #MAX_QUOTED} characters: the text
   * can come from a replica ({@code SET @slave_connect_state}) and be as long as a packet.
   */
  static String quoted(String text) {
    return text.length() <= MAX_QUOTED ? text : text.substring(0, MAX_QUOTED) + "...";
  }
}
