package org.binlogrelay.protocol.query;

import java.util.Objects;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.ByteReader;
import org.binlogrelay.protocol.bytes.ByteWriter;

/**
 * Protocol::ColumnDefinition41, one per column of a result set:
 *
 * <pre>
 *   lenenc str  catalog          always "def"
 *   lenenc str  schema, table, original table, name, original name
 *   lenenc int  0x0c             length of the fixed fields
 *   u16         character set    collation id (63 = binary for numbers)
 *   u32         column length    display width
 *   u8          type             {@link ColumnType}
 *   u16         flags            NOT_NULL 0x1, UNSIGNED 0x20, BINARY 0x80, NUM 0x8000 ...
 *   u8          decimals
 *   u16         filler
 * </pre>
 *
 * Immutable.
 */
public record ColumnDefinition(
    String schema,
    String table,
    String originalTable,
    String name,
    String originalName,
    int characterSet,
    long columnLength,
    ColumnType type,
    int flags,
    int decimals) {

  public static final int NOT_NULL_FLAG = 0x0001;
  public static final int UNSIGNED_FLAG = 0x0020;
  public static final int BINARY_FLAG = 0x0080;
  public static final int NUM_FLAG = 0x8000;

  /** utf8mb4_0900_ai_ci, MySQL 8's default collation. */
  public static final int UTF8MB4_0900_AI_CI = 255;

  /** utf8mb4_general_ci, MariaDB's utf8mb4 default. */
  public static final int UTF8MB4_GENERAL_CI = 45;

  /** binary, used for numeric columns. */
  public static final int BINARY = 63;

  public ColumnDefinition {
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(originalTable, "originalTable");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(originalName, "originalName");
    Objects.requireNonNull(type, "type");
  }

  /** A computed column (no table), as {@code SELECT @@x} produces. */
  public static ColumnDefinition computed(
      String name, int characterSet, long length, ColumnType type, int flags, int decimals) {
    return new ColumnDefinition("", "", "", name, "", characterSet, length, type, flags, decimals);
  }

  public byte[] encode() {
    return new ByteWriter(64 + name.length())
        .lenencString("def")
        .lenencString(schema)
        .lenencString(table)
        .lenencString(originalTable)
        .lenencString(name)
        .lenencString(originalName)
        .lenencInt(0x0c)
        .u16(characterSet)
        .u32(columnLength)
        .u8(type.code())
        .u16(flags)
        .u8(decimals)
        .u16(0)
        .toByteArray();
  }

  public static ColumnDefinition decode(byte[] payload) {
    return decode(payload, false);
  }

  /**
   * Decodes a definition; with {@code mariadbExtendedMetadata} (the client set MariaDB's
   * MARIADB_CLIENT_EXTENDED_METADATA) a lenenc block of extended type information follows the
   * original name and is skipped.
   */
  public static ColumnDefinition decode(byte[] payload, boolean mariadbExtendedMetadata) {
    ByteReader in = new ByteReader(payload);
    in.lenencString("column catalog");
    String schema = in.lenencString("column schema");
    String table = in.lenencString("column table");
    String originalTable = in.lenencString("column original table");
    String name = in.lenencString("column name");
    String originalName = in.lenencString("column original name");
    if (mariadbExtendedMetadata) {
      long n = in.lenencInt("column extended metadata length");
      in.require(n, "column extended metadata");
      in.skip((int) n, "column extended metadata");
    }
    long fixed = in.lenencInt("column fixed-fields length");
    if (fixed < 0x0c) {
      throw new ProtocolException(
          "column definition: fixed fields of " + fixed + " bytes, expected 12");
    }
    int charset = in.u16("column character set");
    long length = in.u32("column length");
    int type = in.u8("column type");
    int flags = in.u16("column flags");
    int decimals = in.u8("column decimals");
    try {
      return new ColumnDefinition(
          schema,
          table,
          originalTable,
          name,
          originalName,
          charset,
          length,
          ColumnType.of(type),
          flags,
          decimals);
    } catch (IllegalArgumentException e) {
      throw new ProtocolException("column definition of '" + name + "': " + e.getMessage(), e);
    }
  }
}
