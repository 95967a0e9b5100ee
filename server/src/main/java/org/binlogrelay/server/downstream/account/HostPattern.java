package org.binlogrelay.server.downstream.account;

import java.util.Locale;
import java.util.Objects;
import org.binlogrelay.protocol.query.LikePattern;

/**
 * The host part of an account, as MySQL writes it: an exact address ({@code 10.0.0.5}, {@code
 * ::1}), or a pattern with {@code %} (any run) and {@code _} (one character), such as {@code
 * 10.0.0.%} or {@code %}. The relay never resolves names, so patterns match the client's IP address
 * text (as MySQL does with {@code skip_name_resolve}). Immutable and thread-safe.
 */
public final class HostPattern implements Comparable<HostPattern> {
  private final String text;
  private final LikePattern like;
  private final boolean wildcard;

  private HostPattern(String text) {
    this.text = text;
    this.wildcard = text.indexOf('%') >= 0 || text.indexOf('_') >= 0;
    this.like = LikePattern.compile(text);
  }

  public static HostPattern of(String text) {
    Objects.requireNonNull(text, "text");
    if (text.isEmpty() || text.length() > 255) {
      throw new IllegalArgumentException(
          "host pattern must be 1..255 characters, got '" + text + "'");
    }
    return new HostPattern(text.toLowerCase(Locale.ROOT));
  }

  public boolean matches(String address) {
    return wildcard ? like.matches(address) : text.equalsIgnoreCase(address);
  }

  /** The pattern as written, e.g. {@code %}; this is what MySQL prints in {@code 'user'@'%'}. */
  public String text() {
    return text;
  }

  /**
   * MySQL's order of preference when several accounts of one user match: exact addresses first,
   * then patterns with more literal characters, {@code %} last.
   */
  @Override
  public int compareTo(HostPattern other) {
    if (wildcard != other.wildcard) {
      return wildcard ? 1 : -1;
    }
    return Integer.compare(other.literalCharacters(), literalCharacters());
  }

  private int literalCharacters() {
    int n = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c != '%' && c != '_') {
        n++;
      }
    }
    return n;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof HostPattern h && h.text.equals(text);
  }

  @Override
  public int hashCode() {
    return text.hashCode();
  }

  @Override
  public String toString() {
    return text;
  }
}
