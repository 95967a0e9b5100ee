package org.binlogrelay.protocol.gtid;

import java.util.Locale;

/**
 * The rules for a MySQL 8.3+ GTID tag: 1 to 32 characters, the first a letter or underscore, the
 * rest letters, digits or underscores (ASCII only), compared and printed in lower case. The empty
 * string stands for "untagged". Stateless.
 */
final class GtidTag {
  /** The longest tag MySQL accepts. */
  static final int MAX_LENGTH = 32;

  private GtidTag() {}

  /** The tag in MySQL's lower-case form; IllegalArgumentException naming the rule it breaks. */
  static String normalize(String tag) {
    if (tag == null) {
      throw new IllegalArgumentException("GTID tag is null; use \"\" for an untagged GTID");
    }
    String problem = problem(tag);
    if (problem != null) {
      throw new IllegalArgumentException("invalid GTID tag '" + tag + "': " + problem);
    }
    return tag.toLowerCase(Locale.ROOT);
  }

  /** Why {@code tag} is not a valid tag, or null if it is (the empty tag is valid). */
  static String problem(CharSequence tag) {
    if (tag.length() > MAX_LENGTH) {
      return "longer than " + MAX_LENGTH + " characters";
    }
    for (int i = 0; i < tag.length(); i++) {
      char c = tag.charAt(i);
      if (!isTagChar(c, i)) {
        return i == 0 && isDigit(c)
            ? "must start with a letter or '_'"
            : "character '" + c + "' at " + i + " is not a letter, digit or '_'";
      }
    }
    return null;
  }

  /** True if {@code c} may appear at position {@code index} of a tag. */
  static boolean isTagChar(char c, int index) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || c == '_'
        || (index > 0 && isDigit(c));
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }
}
