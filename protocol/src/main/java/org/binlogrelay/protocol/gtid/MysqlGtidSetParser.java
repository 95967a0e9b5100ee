package org.binlogrelay.protocol.gtid;

import java.util.UUID;

/**
 * Reads MySQL's GTID set text, the language {@code GTID_SUBTRACT} and {@code SET gtid_purged}
 * accept:
 *
 * <pre>
 *   set      := { "," } [ group { "," { "," } [ group ] } ]
 *   group    := uuid { ":" ( tag | interval ) }
 *   interval := number [ "-" number ]
 *   tag      := [A-Za-z_][A-Za-z0-9_]{0,31}      (lower-cased)
 *   uuid     := 8-4-4-4-12 hex digits | 32 hex digits | "{" 8-4-4-4-12 "}"
 * </pre>
 *
 * with whitespace allowed around every token. A tag applies to the intervals after it until the
 * next tag or the end of the group ({@code uuid:1-3:t1:5:t2:1} is 1-3 untagged, 5 tagged t1, 1
 * tagged t2). Groups may repeat a UUID, intervals may come in any order and overlap; they are
 * merged. Numbers are decimal, leading zeros allowed, 1 to 2^63-2. A group may hold no intervals
 * ({@code uuid} or {@code uuid:tag}), adding nothing. All of this was checked against MySQL 9.7.4.
 *
 * <p>One deliberate difference: MySQL silently ignores a reversed interval such as {@code 5-3};
 * this parser rejects it, since no server prints one and a human who typed it made a mistake.
 *
 * <p>Errors are IllegalArgumentExceptions naming the character offset and what was expected. One
 * instance per parse; not thread-safe.
 */
final class MysqlGtidSetParser {
  private static final int MAX_QUOTED = 200;

  private final String text;
  private int pos;

  private MysqlGtidSetParser(String text) {
    if (text == null) {
      throw new IllegalArgumentException("GTID text is null");
    }
    this.text = text;
  }

  static MysqlGtidSet parseSet(String text) {
    return new MysqlGtidSetParser(text).set();
  }

  static MysqlGtid parseGtid(String text) {
    return new MysqlGtidSetParser(text).gtid();
  }

  private MysqlGtidSet set() {
    MysqlGtidSet set = MysqlGtidSet.empty();
    skipSpace();
    while (true) {
      while (peek() == ',') {
        pos++;
        skipSpace();
      }
      if (atEnd()) {
        return set;
      }
      UUID uuid = uuid();
      String tag = "";
      skipSpace();
      while (peek() == ':') {
        pos++;
        skipSpace();
        if (GtidTag.isTagChar(peek(), 0)) {
          tag = tag();
        } else if (isDigit(peek())) {
          interval(set, uuid, tag);
        } else {
          throw error("expected a tag or a transaction number");
        }
        skipSpace();
      }
      if (!atEnd() && peek() != ',') {
        throw error("expected ':', ',' or the end of the set");
      }
    }
  }

  private MysqlGtid gtid() {
    skipSpace();
    UUID uuid = uuid();
    skipSpace();
    expect(':');
    skipSpace();
    String tag = "";
    if (GtidTag.isTagChar(peek(), 0)) {
      tag = tag();
      skipSpace();
      expect(':');
      skipSpace();
    }
    if (!isDigit(peek())) {
      throw error("expected a transaction number");
    }
    int at = pos;
    long gno = number();
    if (gno == 0) {
      pos = at;
      throw error("transaction number 0 is not allowed (numbers start at 1)");
    }
    skipSpace();
    if (!atEnd()) {
      throw error("expected the end of the GTID");
    }
    return new MysqlGtid(uuid, tag, gno);
  }

  private void interval(MysqlGtidSet set, UUID uuid, String tag) {
    int at = pos;
    long start = number();
    if (start == 0) {
      pos = at;
      throw error("transaction number 0 is not allowed (numbers start at 1)");
    }
    long end = start;
    skipSpace();
    if (peek() == '-') {
      pos++;
      skipSpace();
      if (!isDigit(peek())) {
        throw error("expected the interval's last transaction number");
      }
      end = number();
      if (end < start) {
        pos = at;
        throw error("interval " + start + "-" + end + " ends before it starts");
      }
    }
    set.addInterval(uuid, tag, start, end);
  }

  /** A decimal number 0..MAX_GNO; the caller has seen a digit at {@code pos}. */
  private long number() {
    int at = pos;
    long value = 0;
    while (isDigit(peek())) {
      int digit = text.charAt(pos) - '0';
      if (value > (MysqlGtid.MAX_GNO - digit) / 10) {
        pos = at;
        throw error("transaction number out of range 1.." + MysqlGtid.MAX_GNO);
      }
      value = value * 10 + digit;
      pos++;
    }
    return value;
  }

  private String tag() {
    int at = pos;
    while (GtidTag.isTagChar(peek(), pos - at)) {
      pos++;
    }
    if (pos - at > GtidTag.MAX_LENGTH) {
      pos = at;
      throw error("tag longer than " + GtidTag.MAX_LENGTH + " characters");
    }
    return GtidTag.normalize(text.substring(at, pos));
  }

  private UUID uuid() {
    int at = pos;
    boolean braced = peek() == '{';
    if (braced) {
      pos++;
    }
    boolean dashed = pos + 8 < text.length() && text.charAt(pos + 8) == '-';
    if (braced && !dashed) {
      throw error("expected a UUID in 8-4-4-4-12 form inside braces");
    }
    long[] halves = new long[2];
    int digits = 0;
    while (digits < 32) {
      int offset = pos - at - (braced ? 1 : 0);
      if (dashed && (offset == 8 || offset == 13 || offset == 18 || offset == 23)) {
        if (peek() != '-') {
          throw error("expected '-' inside the UUID");
        }
        pos++;
        continue;
      }
      int hex = hexValue(peek());
      if (hex < 0) {
        throw error(
            digits == 0
                ? "expected a UUID (8-4-4-4-12 or 32 hex digits)"
                : "expected a hex digit inside the UUID");
      }
      halves[digits / 16] = halves[digits / 16] << 4 | hex;
      digits++;
      pos++;
    }
    if (braced) {
      expect('}');
    }
    return new UUID(halves[0], halves[1]);
  }

  private void expect(char c) {
    if (peek() != c) {
      throw error("expected '" + c + "'");
    }
    pos++;
  }

  private void skipSpace() {
    while (pos < text.length() && isSpace(text.charAt(pos))) {
      pos++;
    }
  }

  /** The character at the cursor, or NUL at the end (NUL is never valid input). */
  private char peek() {
    return pos < text.length() ? text.charAt(pos) : '\0';
  }

  private boolean atEnd() {
    return pos >= text.length();
  }

  private IllegalArgumentException error(String problem) {
    String where = atEnd() ? "at the end" : "at character " + pos + " ('" + snippet(pos, 20) + "')";
    return new IllegalArgumentException(
        "malformed MySQL GTID text '" + snippet(0, MAX_QUOTED) + "' " + where + ": " + problem);
  }

  private String snippet(int from, int max) {
    return text.length() - from <= max
        ? text.substring(from)
        : text.substring(from, from + max) + "...";
  }

  private static int hexValue(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    return c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  /** The characters C's isspace() accepts, as MySQL's parser skips them. */
  private static boolean isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\u000b' || c == '\f';
  }
}
