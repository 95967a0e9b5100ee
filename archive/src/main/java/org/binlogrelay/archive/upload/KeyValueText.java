package org.binlogrelay.archive.upload;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.CRC32;

/**
 * The text format of the archive's small records, the same as the store's {@code .meta} files:
 * UTF-8, a header line ({@code <format name> <version>}), one {@code key=value} per line, ended by
 * {@code crc32=<8 lower-case hex digits>}, the CRC32 (zlib) of every byte before that line. Values
 * never contain line breaks. {@link #encode} writes it, {@link #decode} refuses anything else with
 * a {@link DamagedException} naming the record and what is wrong. Stateless.
 */
public final class KeyValueText {
  private static final String CRC_KEY = "crc32=";

  private KeyValueText() {}

  /** A record that exists but cannot be trusted (wrong header, CRC, a missing or bad field). */
  public static final class DamagedException extends Exception {
    private static final long serialVersionUID = 1L;

    public DamagedException(String message) {
      super(message);
    }
  }

  /** {@code header}, then the fields in their order, then the crc32 line. */
  public static byte[] encode(String header, Map<String, String> fields) {
    StringBuilder sb = new StringBuilder(512);
    sb.append(header).append('\n');
    for (Map.Entry<String, String> e : fields.entrySet()) {
      String value = e.getValue();
      if (value.indexOf('\n') >= 0 || value.indexOf('\r') >= 0) {
        throw new IllegalArgumentException(
            header + ": " + e.getKey() + " contains a line break: " + value);
      }
      if (e.getKey().isEmpty() || e.getKey().indexOf('=') >= 0) {
        throw new IllegalArgumentException(header + ": bad key '" + e.getKey() + "'");
      }
      sb.append(e.getKey()).append('=').append(value).append('\n');
    }
    CRC32 crc = new CRC32();
    crc.update(sb.toString().getBytes(StandardCharsets.UTF_8));
    sb.append(CRC_KEY).append(String.format("%08x", crc.getValue())).append('\n');
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The fields of {@code content}, in their order.
   *
   * @param where names the record in messages (a file or an object key)
   */
  public static Map<String, String> decode(byte[] content, String header, String where)
      throws DamagedException {
    String text = new String(content, StandardCharsets.UTF_8);
    int crcAt = text.lastIndexOf("\n" + CRC_KEY);
    if (!text.startsWith(header + "\n") || crcAt < 0 || !text.endsWith("\n")) {
      throw new DamagedException(
          where
              + ": not a '"
              + header
              + "' record ending in a crc32 line ("
              + content.length
              + " bytes)");
    }
    CRC32 crc = new CRC32();
    crc.update(text.substring(0, crcAt + 1).getBytes(StandardCharsets.UTF_8));
    String stored = text.substring(crcAt + 1 + CRC_KEY.length(), text.length() - 1);
    String computed = String.format("%08x", crc.getValue());
    if (!computed.equals(stored)) {
      throw new DamagedException(where + ": CRC32 is " + computed + ", the record says " + stored);
    }
    Map<String, String> fields = new LinkedHashMap<>();
    if (crcAt > header.length()) {
      for (String line : text.substring(header.length() + 1, crcAt).split("\n", -1)) {
        int eq = line.indexOf('=');
        if (eq <= 0) {
          throw new DamagedException(where + ": malformed line '" + line + "'");
        }
        if (fields.put(line.substring(0, eq), line.substring(eq + 1)) != null) {
          throw new DamagedException(where + ": two " + line.substring(0, eq) + " lines");
        }
      }
    }
    return fields;
  }

  /** The value of {@code key}; a {@link DamagedException} if there is no such line. */
  public static String field(Map<String, String> fields, String key, String where)
      throws DamagedException {
    String value = fields.get(key);
    if (value == null) {
      throw new DamagedException(where + ": no " + key + " line");
    }
    return value;
  }

  /** A non-negative decimal field. */
  public static long longField(Map<String, String> fields, String key, String where)
      throws DamagedException {
    String text = field(fields, key, where);
    try {
      long value = Long.parseLong(text);
      if (value < 0) {
        throw new NumberFormatException();
      }
      return value;
    } catch (NumberFormatException e) {
      throw new DamagedException(where + ": " + key + "=" + text + " is not a count");
    }
  }
}
