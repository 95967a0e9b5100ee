package org.binlogrelay.storage;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.CRC32;
import org.binlogrelay.protocol.gtid.GtidFlavor;

/**
 * The sidecar file {@code <binlog name>.meta} holding a {@link FileMetadata}. UTF-8 text, one
 * {@code key=value} per line, in this order, ended by a CRC32 of everything before the {@code
 * crc32} line:
 *
 * <pre>
 *   binlog-relay-metadata 1                 format name and version
 *   name=binlog.000003                      the binlog file it describes
 *   flavor=MYSQL                            MYSQL or MARIADB
 *   closed=false                            true once the file is complete and forced
 *   size=206812                             closed: file length; open: checkpoint offset
 *   transactions=6                          complete transactions (open: up to the checkpoint)
 *   gtids_at_start=uuid:1-16,uuid2:1        set before the first transaction, one line
 *   gtids_at_end=uuid:1-21,uuid2:1          set at size
 *   first_gtid=uuid:17                      empty if none
 *   last_gtid=uuid:21                       empty if none
 *   first_event_time=1795319847             epoch seconds of the FORMAT_DESCRIPTION, 0 if unknown
 *   last_event_time=1795319850              epoch seconds of the last event before size
 *   ending=NONE                             NONE, ROTATE or STOP
 *   next_file=                              the file a ROTATE names, else empty
 *   crc32=1a2b3c4d                          CRC32 (zlib) of all bytes above, 8 lower-case hex digits
 * </pre>
 *
 * GTID sets are the server's text ({@code @@gtid_executed} without line breaks, or
 * {@code @@gtid_binlog_state}). A file that fails any check (version, CRC, a missing or malformed
 * field, another name or flavour) is reported as damaged; the store then rebuilds it by scanning
 * the binlog file. Written with {@link StoreDirectory#writeAtomically}. Stateless.
 */
final class MetadataFile {
  static final String SUFFIX = ".meta";
  static final String HEADER = "binlog-relay-metadata 1";
  private static final String CRC_KEY = "crc32=";

  private MetadataFile() {}

  /** A metadata file that exists but cannot be trusted. */
  static final class DamagedException extends Exception {
    private static final long serialVersionUID = 1L;

    DamagedException(String message) {
      super(message);
    }
  }

  static String nameFor(String binlogName) {
    return binlogName + SUFFIX;
  }

  static void write(StoreDirectory dir, FileMetadata meta, BinlogFlavor flavor) throws IOException {
    dir.writeAtomically(nameFor(meta.name()), encode(meta, flavor));
  }

  /** The metadata of {@code binlogName}, or {@code null} if it has none. */
  static FileMetadata read(StoreDirectory dir, String binlogName, BinlogFlavor flavor)
      throws IOException, DamagedException {
    byte[] content = dir.readIfExists(nameFor(binlogName));
    return content == null ? null : decode(content, binlogName, flavor);
  }

  static byte[] encode(FileMetadata meta, BinlogFlavor flavor) {
    StringBuilder sb = new StringBuilder(512);
    sb.append(HEADER).append('\n');
    line(sb, "name", meta.name());
    line(sb, "flavor", meta.flavor().name());
    line(sb, "closed", Boolean.toString(meta.closed()));
    line(sb, "size", Long.toString(meta.size()));
    line(sb, "transactions", Long.toString(meta.transactions()));
    line(sb, "gtids_at_start", flavor.formatGtids(meta.gtidsAtStart()));
    line(sb, "gtids_at_end", flavor.formatGtids(meta.gtidsAtEnd()));
    line(sb, "first_gtid", meta.firstGtid() == null ? "" : meta.firstGtid());
    line(sb, "last_gtid", meta.lastGtid() == null ? "" : meta.lastGtid());
    line(sb, "first_event_time", Long.toString(meta.firstEventTime()));
    line(sb, "last_event_time", Long.toString(meta.lastEventTime()));
    line(sb, "ending", meta.ending().name());
    line(sb, "next_file", meta.nextFile() == null ? "" : meta.nextFile());
    byte[] body = sb.toString().getBytes(StandardCharsets.UTF_8);
    CRC32 crc = new CRC32();
    crc.update(body);
    sb.append(CRC_KEY).append(String.format("%08x", crc.getValue())).append('\n');
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static void line(StringBuilder sb, String key, String value) {
    if (value.indexOf('\n') >= 0 || value.indexOf('\r') >= 0) {
      throw new IllegalArgumentException("metadata " + key + " contains a line break: " + value);
    }
    sb.append(key).append('=').append(value).append('\n');
  }

  static FileMetadata decode(byte[] content, String binlogName, BinlogFlavor flavor)
      throws DamagedException {
    String where = nameFor(binlogName);
    String text = new String(content, StandardCharsets.UTF_8);
    int crcAt = text.lastIndexOf("\n" + CRC_KEY);
    if (!text.startsWith(HEADER + "\n") || crcAt < 0 || !text.endsWith("\n")) {
      throw new DamagedException(where + ": not a version-1 metadata file ending in a crc32 line");
    }
    byte[] body = text.substring(0, crcAt + 1).getBytes(StandardCharsets.UTF_8);
    CRC32 crc = new CRC32();
    crc.update(body);
    String stored = text.substring(crcAt + 1 + CRC_KEY.length(), text.length() - 1);
    String computed = String.format("%08x", crc.getValue());
    if (!computed.equals(stored)) {
      throw new DamagedException(where + ": CRC32 is " + computed + ", the file says " + stored);
    }
    Map<String, String> fields = new LinkedHashMap<>();
    for (String line : text.substring(HEADER.length() + 1, crcAt).split("\n")) {
      int eq = line.indexOf('=');
      if (eq <= 0) {
        throw new DamagedException(where + ": malformed line '" + line + "'");
      }
      fields.put(line.substring(0, eq), line.substring(eq + 1));
    }
    try {
      String name = field(fields, "name", where);
      if (!name.equals(binlogName)) {
        throw new DamagedException(where + ": describes " + name + ", not " + binlogName);
      }
      GtidFlavor metaFlavor = GtidFlavor.valueOf(field(fields, "flavor", where));
      if (metaFlavor != flavor.gtidFlavor()) {
        throw new DamagedException(
            where + ": written for " + metaFlavor + ", the store is " + flavor.gtidFlavor());
      }
      String next = field(fields, "next_file", where);
      return new FileMetadata(
          name,
          metaFlavor,
          parseBoolean(field(fields, "closed", where), where),
          Long.parseLong(field(fields, "size", where)),
          Long.parseLong(field(fields, "transactions", where)),
          flavor.parseGtids(field(fields, "gtids_at_start", where)),
          flavor.parseGtids(field(fields, "gtids_at_end", where)),
          emptyToNull(field(fields, "first_gtid", where)),
          emptyToNull(field(fields, "last_gtid", where)),
          Long.parseLong(field(fields, "first_event_time", where)),
          Long.parseLong(field(fields, "last_event_time", where)),
          FileMetadata.Ending.valueOf(field(fields, "ending", where)),
          emptyToNull(next));
    } catch (IllegalArgumentException e) {
      throw new DamagedException(where + ": " + e.getMessage());
    }
  }

  private static String field(Map<String, String> fields, String key, String where)
      throws DamagedException {
    String value = fields.get(key);
    if (value == null) {
      throw new DamagedException(where + ": no " + key + " line");
    }
    return value;
  }

  private static boolean parseBoolean(String text, String where) throws DamagedException {
    if (text.equals("true") || text.equals("false")) {
      return text.equals("true");
    }
    throw new DamagedException(where + ": closed=" + text + " is neither true nor false");
  }

  private static String emptyToNull(String s) {
    return s.isEmpty() ? null : s;
  }
}
