package org.binlogrelay.benchmarks;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.UUID;
import org.binlogrelay.protocol.bytes.ByteWriter;
import org.binlogrelay.protocol.event.ChecksumAlgorithm;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;

/**
 * Bodies (everything between the 19-byte header and the CRC32) of the MySQL 9.7 events a synthetic
 * primary writes, in the servers' layouts. The protocol module encodes ROTATE and XID itself; the
 * rest is here because only its tests encode them. Stateless.
 *
 * <pre>
 *   FORMAT_DESCRIPTION  u16 binlog version 4, 50-byte server version, u32 created, u8 header length 19,
 *                       42 post-header lengths (MySQL 9.7's table), u8 checksum algorithm
 *   PREVIOUS_GTIDS      the GTID set in MySQL's binary form (empty post-header)
 *   GTID (33)           u8 flags, 16-byte uuid, i64 gno, u8 2, i64 last_committed, i64 sequence_number,
 *                       u56 commit timestamp, packed transaction_length, u32 server version
 *   QUERY               13-byte post-header, no status variables, "" database and NUL, the statement
 *   WRITE_ROWS (30)     10-byte post-header (table id, flags, extra-data length 2), then opaque bytes
 * </pre>
 */
final class MysqlEventBodies {
  /**
   * What the FORMAT_DESCRIPTION says wrote the file; "9.7.4" so it reads as MySQL 9.7 with
   * checksums.
   */
  static final String SERVER_VERSION = "9.7.4-binlog-relay-bench";

  /** MySQL 9.7's post-header lengths for event types 1 to 42, from a real FORMAT_DESCRIPTION. */
  private static final byte[] POST_HEADERS =
      HexFormat.of()
          .parseHex(
              "000d0008000000000400040000006300041a08000000000000020000000a0a0a2a2a001234000a280000");

  private static final int SERVER_VERSION_FIELD = 50;
  private static final int ROWS_POST_HEADER = 10;
  private static final long TABLE_ID = 108;
  private static final long SERVER_VERSION_NUMBER = 90704;
  private static final int LOGICAL_CLOCK_TYPECODE = 2;

  private MysqlEventBodies() {}

  /**
   * FORMAT_DESCRIPTION with CRC32 checksums; {@code created} is 0 except in a server's first file.
   */
  static byte[] formatDescription(long created) {
    byte[] version = new byte[SERVER_VERSION_FIELD];
    byte[] text = SERVER_VERSION.getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(text, 0, version, 0, text.length);
    return new ByteWriter(128)
        .u16(4)
        .bytes(version)
        .u32(created)
        .u8(19)
        .bytes(POST_HEADERS)
        .u8(ChecksumAlgorithm.CRC32.code())
        .toByteArray();
  }

  static byte[] previousGtids(MysqlGtidSet before) {
    return before.encode();
  }

  /**
   * GTID with the logical clock, one commit timestamp (original equals immediate), the transaction
   * length and one server version (original equals immediate), as MySQL 9.7 writes it.
   */
  static byte[] gtid(
      UUID source,
      long gno,
      long lastCommitted,
      long sequenceNumber,
      long commitMicros,
      long transactionLength) {
    return new ByteWriter(64)
        .u8(0)
        .u64be(source.getMostSignificantBits())
        .u64be(source.getLeastSignificantBits())
        .u64(gno)
        .u8(LOGICAL_CLOCK_TYPECODE)
        .u64(lastCommitted)
        .u64(sequenceNumber)
        .uint(commitMicros, 7)
        .lenencInt(transactionLength)
        .u32(SERVER_VERSION_NUMBER)
        .toByteArray();
  }

  /** Size of {@link #gtid}'s body for a transaction of {@code transactionLength} bytes. */
  static int gtidBodySize(long transactionLength) {
    return gtid(new UUID(0, 0), 1, 0, 1, 0, transactionLength).length;
  }

  /** A QUERY without status variables or default database (BEGIN, COMMIT, a DDL statement). */
  static byte[] query(long threadId, String statement) {
    return new ByteWriter(32)
        .u32(threadId)
        .u32(0)
        .u8(0)
        .u16(0)
        .u16(0)
        .u8(0)
        .bytes(statement.getBytes(StandardCharsets.UTF_8))
        .toByteArray();
  }

  /**
   * Body size of a WRITE_ROWS whose body holds {@code payload} opaque bytes after the post-header.
   */
  static int rowsBodySize(int payload) {
    return ROWS_POST_HEADER + payload;
  }

  /**
   * A WRITE_ROWS (v2) body: the real post-header, then {@code payload} bytes that stand for the
   * rows. The store never decodes rows, so their content does not matter to it (mysqlbinlog could
   * not print them).
   */
  static byte[] rows(int payload) {
    byte[] body = new byte[ROWS_POST_HEADER + payload];
    ByteWriter header = new ByteWriter(ROWS_POST_HEADER).uint(TABLE_ID, 6).u16(1).u16(2);
    System.arraycopy(header.toByteArray(), 0, body, 0, ROWS_POST_HEADER);
    for (int i = ROWS_POST_HEADER; i < body.length; i++) {
      body[i] = (byte) (i * 31 + 7);
    }
    return body;
  }
}
