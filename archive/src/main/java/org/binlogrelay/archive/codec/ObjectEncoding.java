package org.binlogrelay.archive.codec;

import java.util.Locale;

/**
 * How an archived object holds its binlog file: {@code identity} (the file's bytes exactly, so that
 * a plain download is a file {@code mysqlbinlog} reads), or the chunk format of {@link ChunkCodec}
 * with zstd compression, AES-256-GCM encryption, or both. Parsed from configuration text ({@code
 * identity}, {@code zstd}, {@code zstd:3}, {@code aes-gcm}, {@code zstd+aes-gcm}, {@code
 * zstd:9+aes-gcm}); {@link #name()} is the form written to an object's metadata ({@code
 * identity|zstd|aes-gcm|zstd+aes-gcm}), without the level, which the reader does not need. An
 * immutable value; thread-safe.
 *
 * @param compressed whether each chunk is zstd-compressed (a chunk that does not shrink is stored
 *     as it is)
 * @param level the zstd level (1 to 22; 0 when not compressed)
 * @param encrypted whether each chunk is sealed with AES-256-GCM
 */
public record ObjectEncoding(boolean compressed, int level, boolean encrypted) {
  /** The zstd level used when the configuration names none. */
  public static final int DEFAULT_LEVEL = 3;

  /** The highest zstd level accepted. */
  public static final int MAX_LEVEL = 22;

  /** The file's bytes exactly. */
  public static final ObjectEncoding IDENTITY = new ObjectEncoding(false, 0, false);

  /** zstd at {@link #DEFAULT_LEVEL}. */
  public static final ObjectEncoding ZSTD = new ObjectEncoding(true, DEFAULT_LEVEL, false);

  /** AES-256-GCM without compression. */
  public static final ObjectEncoding AES_GCM = new ObjectEncoding(false, 0, true);

  /** zstd at {@link #DEFAULT_LEVEL}, then AES-256-GCM. */
  public static final ObjectEncoding ZSTD_AES_GCM = new ObjectEncoding(true, DEFAULT_LEVEL, true);

  public ObjectEncoding {
    if (compressed ? level < 1 || level > MAX_LEVEL : level != 0) {
      throw new IllegalArgumentException(
          "zstd level " + level + " is out of range: give 1 to " + MAX_LEVEL);
    }
  }

  /**
   * Parses configuration text. Case and surrounding blanks are ignored.
   *
   * @throws IllegalArgumentException naming the text and what is accepted
   */
  public static ObjectEncoding parse(String text) {
    String t = text.strip().toLowerCase(Locale.ROOT);
    boolean encrypted = false;
    if (t.equals("aes-gcm")) {
      return AES_GCM;
    }
    if (t.endsWith("+aes-gcm")) {
      encrypted = true;
      t = t.substring(0, t.length() - "+aes-gcm".length());
    }
    if (t.equals("identity") && !encrypted) {
      return IDENTITY;
    }
    if (t.equals("zstd")) {
      return new ObjectEncoding(true, DEFAULT_LEVEL, encrypted);
    }
    if (t.startsWith("zstd:")) {
      String level = t.substring("zstd:".length());
      if (!level.isEmpty() && level.length() <= 2 && level.chars().allMatch(Character::isDigit)) {
        int l = Integer.parseInt(level);
        if (l >= 1 && l <= MAX_LEVEL) {
          return new ObjectEncoding(true, l, encrypted);
        }
      }
    }
    throw new IllegalArgumentException(
        "unknown archive encoding '"
            + text
            + "': expected identity, zstd, zstd:LEVEL (1-"
            + MAX_LEVEL
            + "), aes-gcm or zstd[:LEVEL]+aes-gcm");
  }

  /**
   * The encoding a relay configures from its two options: {@code compression} ({@code null}, empty
   * or {@code none} for none; else {@code zstd[:level]}) and whether an encryption key is given.
   */
  public static ObjectEncoding of(String compression, boolean encrypted) {
    String c = compression == null ? "" : compression.strip().toLowerCase(Locale.ROOT);
    if (c.isEmpty() || c.equals("none") || c.equals("identity")) {
      return encrypted ? AES_GCM : IDENTITY;
    }
    if (!c.startsWith("zstd")) {
      throw new IllegalArgumentException(
          "unknown archive compression '" + compression + "': expected none or zstd[:LEVEL]");
    }
    return parse(encrypted ? c + "+aes-gcm" : c);
  }

  /** Whether the object is the file's bytes exactly. */
  public boolean identity() {
    return !compressed && !encrypted;
  }

  /** The name written to metadata: {@code identity}, {@code zstd}, {@code aes-gcm} or both. */
  public String name() {
    if (identity()) {
      return "identity";
    }
    if (compressed && encrypted) {
      return "zstd+aes-gcm";
    }
    return compressed ? "zstd" : "aes-gcm";
  }

  /**
   * The encoding a metadata value names (the level is not recorded: {@link #DEFAULT_LEVEL} is put
   * in, which decoding ignores).
   */
  public static ObjectEncoding ofName(String name) {
    switch (name) {
      case "identity":
        return IDENTITY;
      case "zstd":
        return ZSTD;
      case "aes-gcm":
        return AES_GCM;
      case "zstd+aes-gcm":
        return ZSTD_AES_GCM;
      default:
        throw new IllegalArgumentException(
            "unknown archive encoding '" + name + "' (identity, zstd, aes-gcm or zstd+aes-gcm)");
    }
  }

  /** The configuration text: {@link #name()} with the zstd level. */
  @Override
  public String toString() {
    if (!compressed) {
      return name();
    }
    return "zstd:" + level + (encrypted ? "+aes-gcm" : "");
  }

  /** The encoding's byte in the chunk format's header (1 zstd, 2 aes-gcm, 3 both). */
  int formatId() {
    return (compressed ? 1 : 0) | (encrypted ? 2 : 0);
  }
}
