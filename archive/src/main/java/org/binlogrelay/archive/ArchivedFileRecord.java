package org.binlogrelay.archive;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.binlogrelay.archive.upload.KeyValueText;
import org.binlogrelay.archive.upload.KeyValueText.DamagedException;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.storage.BinlogFileName;
import org.binlogrelay.storage.FileMetadata;

/**
 * What the archive records about one archived binlog file: the metadata object {@code
 * <prefix>meta/<name>.meta}, written after the data object {@code <prefix>binlogs/<name>} was
 * uploaded and verified. Its existence is what "archived" means. UTF-8 text in the {@link
 * KeyValueText} format (like the store's {@code .meta} sidecar files), in this order:
 *
 * <pre>
 *   binlog-relay-archive 1                  format name and version
 *   name=binlog.000003                      the binlog file
 *   flavor=MYSQL                            MYSQL or MARIADB
 *   size=206812                             the file's length
 *   sha256=9f86d0...                        SHA-256 of the file's bytes, 64 lower-case hex digits
 *   transactions=6                          complete transactions in the file
 *   gtids_at_start=uuid:1-16                GTID set before the first transaction, one line
 *   gtids_at_end=uuid:1-21                  GTID set after the last transaction
 *   first_gtid=uuid:17                      empty if none
 *   last_gtid=uuid:21                       empty if none
 *   first_event_time=1795319847             epoch seconds of the FORMAT_DESCRIPTION, 0 if unknown
 *   last_event_time=1795319850              epoch seconds of the last event, 0 if unknown
 *   ending=ROTATE                           NONE, ROTATE or STOP
 *   next_file=binlog.000004                 the file a ROTATE names, else empty
 *   encoding=identity                       how the data object holds the bytes (identity: as is;
 *                                           zstd, aes-gcm or zstd+aes-gcm: the chunk format)
 *   key_id=3f9a0c1e5b7d2468                 not identity only: the encrypting key's id (empty if
 *                                           not encrypted)
 *   chunk_size=4194304                      not identity only: plaintext bytes per chunk
 *   chunks=27,1398211                       not identity only: object offset of each chunk
 *   object_size=206812                      the data object's length
 *   object_etag=0cc175b9c0f1b6a831c399e2697 the data object's ETag (no quotes)
 *   part_size=0                             multipart part size, 0 for a single PUT
 *   parts=0                                 multipart part count, 0 for a single PUT
 *   uploaded_at=2026-11-28T05:30:00.123Z    when the data object was verified (ISO-8601, UTC)
 *   uploaded_by=1@relay-a                   which relay uploaded it
 *   crc32=1a2b3c4d                          CRC32 of all bytes above
 * </pre>
 *
 * The three chunk-format lines are written for encoded objects only, so an identity record is the
 * same as before encodings existed; a record without them decodes as having none. {@link #decode}
 * refuses damaged text (version, CRC, a missing or malformed field, another name) with a {@link
 * DamagedException} that says which and where. Immutable and thread-safe.
 *
 * @param file the store's account of the file (always closed)
 * @param sha256 SHA-256 of the file's bytes, lower-case hex
 * @param encoding the data object's encoding: {@link #IDENTITY}, {@code zstd}, {@code aes-gcm} or
 *     {@code zstd+aes-gcm} ({@code ObjectEncoding#name()})
 * @param objectSize the data object's length
 * @param objectEtag the data object's ETag without quotes
 * @param partSize the multipart part size, 0 for a single PUT
 * @param parts the number of parts, 0 for a single PUT
 * @param uploadedAt when the upload was verified
 * @param uploadedBy the relay that uploaded it
 * @param keyId the id of the key the object is encrypted with, empty if not encrypted
 * @param chunkSize plaintext bytes per chunk of an encoded object, 0 for identity
 * @param chunkOffsets the object offset of each chunk of an encoded object, empty for identity
 */
public record ArchivedFileRecord(
    FileMetadata file,
    String sha256,
    String encoding,
    long objectSize,
    String objectEtag,
    long partSize,
    int parts,
    Instant uploadedAt,
    String uploadedBy,
    String keyId,
    int chunkSize,
    List<Long> chunkOffsets) {

  /** The first line of a metadata object. */
  public static final String HEADER = "binlog-relay-archive 1";

  /** The encoding of a data object holding the file's bytes as they are. */
  public static final String IDENTITY = "identity";

  /** Where data objects live under the archive's prefix. */
  public static final String DATA_DIRECTORY = "binlogs/";

  /** Where metadata objects live under the archive's prefix. */
  public static final String META_DIRECTORY = "meta/";

  /** The suffix of metadata objects. */
  public static final String META_SUFFIX = ".meta";

  public ArchivedFileRecord {
    Objects.requireNonNull(file, "file");
    if (!file.closed()) {
      throw new IllegalArgumentException(
          file.name() + " is not closed: only closed files are archived");
    }
    requireHex(sha256, 64, "sha256");
    Objects.requireNonNull(encoding, "encoding");
    Objects.requireNonNull(objectEtag, "objectEtag");
    Objects.requireNonNull(uploadedAt, "uploadedAt");
    Objects.requireNonNull(uploadedBy, "uploadedBy");
    Objects.requireNonNull(keyId, "keyId");
    chunkOffsets = List.copyOf(chunkOffsets);
    if (IDENTITY.equals(encoding)
        ? chunkSize != 0 || !chunkOffsets.isEmpty() || !keyId.isEmpty()
        : chunkSize <= 0 || chunkOffsets.isEmpty()) {
      throw new IllegalArgumentException(
          file.name()
              + ": encoding "
              + encoding
              + " does not fit chunk size "
              + chunkSize
              + ", "
              + chunkOffsets.size()
              + " chunks and key id '"
              + keyId
              + "'");
    }
    if (objectSize < 0 || partSize < 0 || parts < 0 || (parts == 0) != (partSize == 0)) {
      throw new IllegalArgumentException(
          file.name()
              + ": bad object size "
              + objectSize
              + ", part size "
              + partSize
              + " or parts "
              + parts);
    }
  }

  /** A record of an identity object (the file's bytes as they are). */
  public ArchivedFileRecord(
      FileMetadata file,
      String sha256,
      String encoding,
      long objectSize,
      String objectEtag,
      long partSize,
      int parts,
      Instant uploadedAt,
      String uploadedBy) {
    this(
        file,
        sha256,
        encoding,
        objectSize,
        objectEtag,
        partSize,
        parts,
        uploadedAt,
        uploadedBy,
        "",
        0,
        List.of());
  }

  /** Whether the data object is the file's bytes as they are. */
  public boolean identity() {
    return IDENTITY.equals(encoding);
  }

  /** The file's name. */
  public String name() {
    return file.name();
  }

  /** The data object's key for {@code name} under {@code prefix} (empty or ending in '/'). */
  public static String dataKey(String prefix, String name) {
    return prefix + DATA_DIRECTORY + name;
  }

  /** The metadata object's key for {@code name} under {@code prefix} (empty or ending in '/'). */
  public static String metaKey(String prefix, String name) {
    return prefix + META_DIRECTORY + name + META_SUFFIX;
  }

  /** The metadata object's bytes. */
  public byte[] encode() {
    Map<String, String> f = new LinkedHashMap<>();
    f.put("name", file.name());
    f.put("flavor", file.flavor().name());
    f.put("size", Long.toString(file.size()));
    f.put("sha256", sha256);
    f.put("transactions", Long.toString(file.transactions()));
    f.put("gtids_at_start", formatGtids(file.gtidsAtStart()));
    f.put("gtids_at_end", formatGtids(file.gtidsAtEnd()));
    f.put("first_gtid", nullToEmpty(file.firstGtid()));
    f.put("last_gtid", nullToEmpty(file.lastGtid()));
    f.put("first_event_time", Long.toString(file.firstEventTime()));
    f.put("last_event_time", Long.toString(file.lastEventTime()));
    f.put("ending", file.ending().name());
    f.put("next_file", nullToEmpty(file.nextFile()));
    f.put("encoding", encoding);
    if (!identity()) {
      f.put("key_id", keyId);
      f.put("chunk_size", Integer.toString(chunkSize));
      List<String> offsets = new ArrayList<>(chunkOffsets.size());
      for (long o : chunkOffsets) {
        offsets.add(Long.toString(o));
      }
      f.put("chunks", String.join(",", offsets));
    }
    f.put("object_size", Long.toString(objectSize));
    f.put("object_etag", objectEtag);
    f.put("part_size", Long.toString(partSize));
    f.put("parts", Integer.toString(parts));
    f.put("uploaded_at", uploadedAt.toString());
    f.put("uploaded_by", uploadedBy);
    return KeyValueText.encode(HEADER, f);
  }

  /**
   * Parses a metadata object.
   *
   * @param where names it in messages (its key)
   * @param expectedName the file it must describe, or {@code null} to accept any
   * @throws DamagedException if it is not a version-1 record with a correct CRC32 and every field
   *     well-formed, or describes another file
   */
  public static ArchivedFileRecord decode(byte[] content, String where, String expectedName)
      throws DamagedException {
    Map<String, String> f = KeyValueText.decode(content, HEADER, where);
    String name = KeyValueText.field(f, "name", where);
    if (!BinlogFileName.isValid(name)) {
      throw new DamagedException(where + ": name=" + name + " is not a binlog file name");
    }
    if (expectedName != null && !expectedName.equals(name)) {
      throw new DamagedException(where + ": describes " + name + ", not " + expectedName);
    }
    try {
      GtidFlavor flavor = GtidFlavor.valueOf(KeyValueText.field(f, "flavor", where));
      String next = KeyValueText.field(f, "next_file", where);
      FileMetadata file =
          new FileMetadata(
              name,
              flavor,
              true,
              KeyValueText.longField(f, "size", where),
              KeyValueText.longField(f, "transactions", where),
              parseGtids(flavor, KeyValueText.field(f, "gtids_at_start", where)),
              parseGtids(flavor, KeyValueText.field(f, "gtids_at_end", where)),
              emptyToNull(KeyValueText.field(f, "first_gtid", where)),
              emptyToNull(KeyValueText.field(f, "last_gtid", where)),
              KeyValueText.longField(f, "first_event_time", where),
              KeyValueText.longField(f, "last_event_time", where),
              FileMetadata.Ending.valueOf(KeyValueText.field(f, "ending", where)),
              emptyToNull(next));
      long parts = KeyValueText.longField(f, "parts", where);
      if (parts > Integer.MAX_VALUE) {
        throw new DamagedException(where + ": parts=" + parts + " is too many");
      }
      return new ArchivedFileRecord(
          file,
          KeyValueText.field(f, "sha256", where),
          KeyValueText.field(f, "encoding", where),
          KeyValueText.longField(f, "object_size", where),
          KeyValueText.field(f, "object_etag", where),
          KeyValueText.longField(f, "part_size", where),
          (int) parts,
          Instant.parse(KeyValueText.field(f, "uploaded_at", where)),
          KeyValueText.field(f, "uploaded_by", where),
          f.getOrDefault("key_id", ""),
          f.containsKey("chunk_size")
              ? (int) Math.min(KeyValueText.longField(f, "chunk_size", where), Integer.MAX_VALUE)
              : 0,
          chunkOffsets(f.getOrDefault("chunks", ""), where));
    } catch (IllegalArgumentException | DateTimeParseException e) {
      throw new DamagedException(where + ": " + e.getMessage());
    }
  }

  private static List<Long> chunkOffsets(String text, String where) throws DamagedException {
    List<Long> offsets = new ArrayList<>();
    if (text.isEmpty()) {
      return offsets;
    }
    for (String o : text.split(",", -1)) {
      try {
        long offset = Long.parseLong(o);
        if (offset < 0 || (!offsets.isEmpty() && offset <= offsets.get(offsets.size() - 1))) {
          throw new NumberFormatException();
        }
        offsets.add(offset);
      } catch (NumberFormatException e) {
        throw new DamagedException(
            where + ": chunks=" + text + " is not a list of ascending offsets");
      }
    }
    return offsets;
  }

  /** The set as one line: the server's text without line breaks. */
  private static String formatGtids(GtidSet set) {
    return set.toString().replace("\n", "");
  }

  /** The one place where the archive's text of a GTID set depends on the flavour. */
  private static GtidSet parseGtids(GtidFlavor flavor, String text) {
    return switch (flavor) {
      case MYSQL -> MysqlGtidSet.parse(text);
      case MARIADB -> MariadbGtidSet.parse(text);
    };
  }

  private static void requireHex(String value, int length, String what) {
    if (value == null
        || value.length() != length
        || !value.chars().allMatch(ArchivedFileRecord::isHex)) {
      throw new IllegalArgumentException(
          what + " is not " + length + " lower-case hex digits: " + value);
    }
  }

  private static boolean isHex(int c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }

  private static String emptyToNull(String s) {
    return s.isEmpty() ? null : s;
  }
}
