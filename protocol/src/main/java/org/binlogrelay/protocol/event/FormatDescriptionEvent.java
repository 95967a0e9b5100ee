package org.binlogrelay.protocol.event;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.LittleEndian;

/**
 * FORMAT_DESCRIPTION (15): the first event of every v4 binlog file, describing how the following
 * events are laid out. Body, after the 19-byte common header:
 *
 * <pre>
 *   u16     binlog_version          4
 *   50      server_version          NUL-padded, e.g. "9.7.4" or "10.11.19-MariaDB-log"
 *   u32     create_timestamp        0 unless written at server startup
 *   u8      common_header_length    19
 *   n       post_header_lengths     one byte per event type, index = type code - 1
 *   u8      checksum_alg            only from servers 5.6.1 and later: see {@link ChecksumAlgorithm}
 *   u32     checksum                likewise; present (as room) even when the algorithm is OFF
 * </pre>
 *
 * The event's own checksum is verified only when its algorithm byte says CRC32. Immutable.
 */
public final class FormatDescriptionEvent {
  /** Body bytes up to and including common_header_length. */
  private static final int FIXED_BODY = 2 + 50 + 4 + 1;

  private static final int SERVER_VERSION_LENGTH = 50;

  /**
   * (5 * 256 + 6) * 256 + 1: the first version whose FORMAT_DESCRIPTION carries the checksum
   * algorithm.
   */
  private static final int CHECKSUM_VERSION_PRODUCT = (5 * 256 + 6) * 256 + 1;

  private final int binlogVersion;
  private final String serverVersion;
  private final long createTimestamp;
  private final int commonHeaderLength;
  private final byte[] postHeaderLengths;
  private final ChecksumAlgorithm checksumAlgorithm;

  public FormatDescriptionEvent(
      int binlogVersion,
      String serverVersion,
      long createTimestamp,
      int commonHeaderLength,
      byte[] postHeaderLengths,
      ChecksumAlgorithm checksumAlgorithm) {
    if (commonHeaderLength < EventHeader.SIZE || commonHeaderLength > 255) {
      throw new IllegalArgumentException(
          "common header length " + commonHeaderLength + " outside 19..255");
    }
    this.binlogVersion = binlogVersion;
    this.serverVersion = serverVersion;
    this.createTimestamp = createTimestamp;
    this.commonHeaderLength = commonHeaderLength;
    this.postHeaderLengths = postHeaderLengths.clone();
    this.checksumAlgorithm = checksumAlgorithm;
  }

  /**
   * The layout to assume before any FORMAT_DESCRIPTION has been seen (a dump stream's first, fake
   * ROTATE): 19-byte header, every post-header at its default length, events checksummed per {@code
   * alg}.
   */
  public static FormatDescriptionEvent assumed(ChecksumAlgorithm alg) {
    return new FormatDescriptionEvent(4, "", 0, EventHeader.SIZE, new byte[0], alg);
  }

  public static FormatDescriptionEvent parse(BinlogEvent event) {
    EventBody.requireType(event, EventType.FORMAT_DESCRIPTION);
    return parse(event.buffer(), event.offset(), event.length());
  }

  /** Parses the FORMAT_DESCRIPTION event at {@code [offset, offset + length)} of {@code buf}. */
  public static FormatDescriptionEvent parse(byte[] buf, int offset, int length) {
    int minimum = EventHeader.SIZE + FIXED_BODY;
    if (length < minimum || offset < 0 || offset > buf.length - length) {
      throw new ProtocolException(
          "FORMAT_DESCRIPTION event at offset "
              + offset
              + ": "
              + length
              + " bytes, needs at least "
              + minimum);
    }
    int body = offset + EventHeader.SIZE;
    int binlogVersion = LittleEndian.u16(buf, body);
    String version = serverVersion(buf, body + 2);
    long created = LittleEndian.u32(buf, body + 2 + SERVER_VERSION_LENGTH);
    int headerLength = buf[body + FIXED_BODY - 1] & 0xff;
    if (headerLength < EventHeader.SIZE) {
      throw new ProtocolException(
          "FORMAT_DESCRIPTION event at offset "
              + offset
              + ": common header length "
              + headerLength
              + " is below "
              + EventHeader.SIZE);
    }
    int arrayStart = body + FIXED_BODY;
    int arrayEnd = offset + length;
    ChecksumAlgorithm alg = ChecksumAlgorithm.UNDEFINED;
    if (isChecksumAware(version)) {
      arrayEnd -= 1 + BinlogChecksum.SIZE;
      if (arrayEnd < arrayStart) {
        throw new ProtocolException(
            "FORMAT_DESCRIPTION event at offset "
                + offset
                + " from server "
                + version
                + ": "
                + length
                + " bytes leave no room for the checksum algorithm and checksum");
      }
      alg = ChecksumAlgorithm.forCode(buf[arrayEnd] & 0xff);
    }
    byte[] lengths = Arrays.copyOfRange(buf, arrayStart, arrayEnd);
    return new FormatDescriptionEvent(binlogVersion, version, created, headerLength, lengths, alg);
  }

  private static String serverVersion(byte[] buf, int at) {
    int n = 0;
    while (n < SERVER_VERSION_LENGTH - 1 && buf[at + n] != 0) {
      n++;
    }
    return new String(buf, at, n, StandardCharsets.UTF_8);
  }

  /**
   * The server version as MySQL compares it: "X.Y.Z..." gives {@code (X * 256 + Y) * 256 + Z}; 0
   * when the string does not start that way.
   */
  public static int versionProduct(String version) {
    int[] parts = new int[3];
    int p = 0;
    for (int i = 0; i < 3; i++) {
      int start = p;
      long number = 0;
      while (p < version.length() && Character.isDigit(version.charAt(p)) && p - start < 9) {
        number = number * 10 + (version.charAt(p) - '0');
        p++;
      }
      boolean dot = p < version.length() && version.charAt(p) == '.';
      if (number >= 256 || (!dot && i == 0)) {
        return 0;
      }
      parts[i] = (int) number;
      if (dot) {
        p++;
      }
    }
    return (parts[0] * 256 + parts[1]) * 256 + parts[2];
  }

  /** True if a server of this version writes the checksum algorithm byte (5.6.1 and later). */
  public static boolean isChecksumAware(String version) {
    return versionProduct(version) >= CHECKSUM_VERSION_PRODUCT;
  }

  public int binlogVersion() {
    return binlogVersion;
  }

  public String serverVersion() {
    return serverVersion;
  }

  /** True if the version string names MariaDB. */
  public boolean isMariadb() {
    return serverVersion.contains("MariaDB");
  }

  public long createTimestamp() {
    return createTimestamp;
  }

  public int commonHeaderLength() {
    return commonHeaderLength;
  }

  /** Number of event types the post-header table covers. */
  public int eventTypeCount() {
    return postHeaderLengths.length;
  }

  /** A copy of the post-header length table (index = type code - 1). */
  public byte[] postHeaderLengths() {
    return postHeaderLengths.clone();
  }

  /** The post-header length of {@code type}, or {@code fallback} if the table does not cover it. */
  public int postHeaderLength(EventType type, int fallback) {
    int index = type.code() - 1;
    return index >= 0 && index < postHeaderLengths.length
        ? postHeaderLengths[index] & 0xff
        : fallback;
  }

  public ChecksumAlgorithm checksumAlgorithm() {
    return checksumAlgorithm;
  }

  /** True if the events this describes (and this event itself) end in a CRC32. */
  public boolean eventsHaveChecksum() {
    return checksumAlgorithm.isChecksummed();
  }

  @Override
  public String toString() {
    return "FormatDescriptionEvent(v"
        + binlogVersion
        + ", '"
        + serverVersion
        + "', header "
        + commonHeaderLength
        + ", "
        + postHeaderLengths.length
        + " types, "
        + checksumAlgorithm
        + ")";
  }
}
