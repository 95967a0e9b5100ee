package org.binlogrelay.protocol.query;

/**
 * Writes identifiers and strings into SQL text so that MySQL and MariaDB read back exactly the
 * value given, whatever the reading session's {@code sql_mode}:
 *
 * <ul>
 *   <li>an identifier in back-quotes, a back-quote doubled: {@code my`t} is {@code `my``t`}
 *       (back-quotes quote identifiers in every mode, {@code ANSI_QUOTES} included);
 *   <li>a string in single quotes, a quote doubled; a backslash doubled unless the session has
 *       {@code NO_BACKSLASH_ESCAPES}, where it is an ordinary character. Line breaks and other
 *       control characters go in as they are (both servers accept them inside a quoted string).
 * </ul>
 *
 * NUL cannot be written this way in both modes, so a value holding one is refused ({@link
 * IllegalArgumentException}); no identifier can hold one. Stateless.
 */
public final class SqlQuotes {
  private SqlQuotes() {}

  /** {@code name} as a back-quoted identifier. */
  public static String identifier(String name) {
    refuseNul(name, "identifier");
    return '`' + name.replace("`", "``") + '`';
  }

  /**
   * {@code value} as a single-quoted string literal.
   *
   * @param backslashEscapes whether the reading session treats a backslash as an escape character
   *     (it does unless its {@code sql_mode} has {@code NO_BACKSLASH_ESCAPES})
   */
  public static String string(String value, boolean backslashEscapes) {
    refuseNul(value, "string");
    StringBuilder out = new StringBuilder(value.length() + 2).append('\'');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '\'') {
        out.append("''");
      } else if (c == '\\' && backslashEscapes) {
        out.append("\\\\");
      } else {
        out.append(c);
      }
    }
    return out.append('\'').toString();
  }

  private static void refuseNul(String text, String what) {
    if (text.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("a " + what + " holding a NUL character cannot be quoted");
    }
  }
}
