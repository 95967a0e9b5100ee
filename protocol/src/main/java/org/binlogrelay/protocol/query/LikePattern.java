package org.binlogrelay.protocol.query;

/**
 * A SQL {@code LIKE} pattern: {@code %} matches any run of characters, {@code _} exactly one, a
 * backslash makes the next character literal. Matching ignores case, as {@code SHOW VARIABLES LIKE}
 * does under the case-insensitive collation of variable names. Immutable and thread-safe.
 *
 * <p>Matching is the classic two-pointer walk with back-tracking to the last {@code %}: linear in
 * practice, never exponential.
 */
public final class LikePattern {
  private static final char ANY_RUN = '\uE000';
  private static final char ANY_ONE = '\uE001';

  private final String source;
  private final char[] compiled;

  private LikePattern(String source, char[] compiled) {
    this.source = source;
    this.compiled = compiled;
  }

  public static LikePattern compile(String pattern) {
    StringBuilder out = new StringBuilder(pattern.length());
    for (int i = 0; i < pattern.length(); i++) {
      char c = pattern.charAt(i);
      if (c == '\\' && i + 1 < pattern.length()) {
        out.append(Character.toLowerCase(pattern.charAt(++i)));
      } else if (c == '%') {
        out.append(ANY_RUN);
      } else if (c == '_') {
        out.append(ANY_ONE);
      } else {
        out.append(Character.toLowerCase(c));
      }
    }
    return new LikePattern(pattern, out.toString().toCharArray());
  }

  public boolean matches(String text) {
    int t = 0;
    int p = 0;
    int starP = -1;
    int starT = 0;
    while (t < text.length()) {
      char c = Character.toLowerCase(text.charAt(t));
      if (p < compiled.length && (compiled[p] == c || compiled[p] == ANY_ONE)) {
        p++;
        t++;
      } else if (p < compiled.length && compiled[p] == ANY_RUN) {
        starP = p++;
        starT = t;
      } else if (starP >= 0) {
        p = starP + 1;
        t = ++starT;
      } else {
        return false;
      }
    }
    while (p < compiled.length && compiled[p] == ANY_RUN) {
      p++;
    }
    return p == compiled.length;
  }

  public String source() {
    return source;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LikePattern l && l.source.equals(source);
  }

  @Override
  public int hashCode() {
    return source.hashCode();
  }

  @Override
  public String toString() {
    return "LIKE '" + source + "'";
  }
}
