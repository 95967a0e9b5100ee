package org.binlogrelay.archive;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Where an archive lives: a bucket and a key prefix, parsed from the {@code s3://bucket/prefix} URL
 * the operator gives ({@code archive} option). The prefix is empty or ends with {@code /}, so that
 * {@link #key(String)} joins without guessing. Immutable, hence thread-safe.
 *
 * @param bucket the bucket name (S3 rules: 3-63 characters, lower case letters, digits, dots and
 *     hyphens, starting and ending with a letter or digit)
 * @param prefix the key prefix, empty or ending with {@code /}
 */
public record ArchiveLocation(String bucket, String prefix) {
  private static final String SCHEME = "s3://";
  private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");

  public ArchiveLocation {
    if (!BUCKET.matcher(bucket).matches() || bucket.contains("..")) {
      throw new IllegalArgumentException(
          "invalid bucket name '"
              + bucket
              + "': a bucket name has 3 to 63 characters, lower-case letters, digits, dots and"
              + " hyphens, and starts and ends with a letter or digit");
    }
    if (!prefix.isEmpty() && !prefix.endsWith("/")) {
      throw new IllegalArgumentException("prefix '" + prefix + "' must be empty or end with /");
    }
    if (prefix.startsWith("/") || prefix.contains("//")) {
      throw new IllegalArgumentException(
          "prefix '" + prefix + "' has an empty path segment (a leading or double /)");
    }
  }

  /**
   * Parses {@code s3://bucket}, {@code s3://bucket/} or {@code s3://bucket/some/prefix[/]}; the
   * prefix gets a trailing {@code /} if it lacks one.
   *
   * @throws IllegalArgumentException naming what is wrong and what a valid URL looks like
   */
  public static ArchiveLocation parse(String url) {
    if (url == null || url.isBlank()) {
      throw malformed(url, "it is empty");
    }
    if (!url.toLowerCase(Locale.ROOT).startsWith(SCHEME)) {
      throw malformed(url, "it does not start with s3://");
    }
    if (url.chars().anyMatch(c -> c <= ' ' || c == 0x7f)) {
      throw malformed(url, "it contains a space or control character");
    }
    if (url.indexOf('?') >= 0 || url.indexOf('#') >= 0) {
      throw malformed(url, "it has a query or fragment (? or #)");
    }
    String rest = url.substring(SCHEME.length());
    int slash = rest.indexOf('/');
    String bucket = slash < 0 ? rest : rest.substring(0, slash);
    String prefix = slash < 0 ? "" : rest.substring(slash + 1);
    if (bucket.isEmpty()) {
      throw malformed(url, "it has no bucket");
    }
    if (!prefix.isEmpty() && !prefix.endsWith("/")) {
      prefix = prefix + "/";
    }
    try {
      return new ArchiveLocation(bucket, prefix);
    } catch (IllegalArgumentException e) {
      throw malformed(url, e.getMessage());
    }
  }

  /** The full key of {@code relativeKey} under this location's prefix. */
  public String key(String relativeKey) {
    return prefix + relativeKey;
  }

  /** The URL this location was parsed from, normalised ({@code s3://bucket/prefix/}). */
  @Override
  public String toString() {
    return SCHEME + bucket + "/" + prefix;
  }

  private static IllegalArgumentException malformed(String url, String why) {
    return new IllegalArgumentException(
        "invalid archive URL '"
            + url
            + "': "
            + why
            + "; expected s3://bucket or s3://bucket/prefix (for example"
            + " s3://my-binlogs/relay-1)");
  }
}
