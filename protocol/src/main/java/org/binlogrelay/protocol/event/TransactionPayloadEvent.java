package org.binlogrelay.protocol.event;

import java.util.Arrays;
import org.binlogrelay.protocol.bytes.ByteReader;

/**
 * TRANSACTION_PAYLOAD (40, MySQL 8.0.20+ with {@code binlog_transaction_compression}): a whole
 * transaction's events, compressed, after its GTID event. The payload stays opaque here; only its
 * header is read. Right after the common header (there is no post-header, whatever the
 * FORMAT_DESCRIPTION table says) comes a list of fields, each {@code type, length, value} as packed
 * integers, ended by type 0, then the payload:
 *
 * <pre>
 *   type 1  payload_size        compressed bytes that follow the header
 *   type 2  compression_type    0 ZSTD, 255 NONE
 *   type 3  uncompressed_size   informational
 *   type 0  end mark
 *   n       payload             payload_size bytes
 * </pre>
 *
 * Payload size and compression type are required and the payload must fit in the event, as in
 * MySQL; unknown field types are skipped by their length. The events inside carry log_pos 0.
 * Immutable.
 *
 * @param payloadSize compressed payload bytes
 * @param compressionType {@link #ZSTD} or {@link #NONE}
 * @param uncompressedSize the size the payload claims to decompress to (0 when absent); not trusted
 * @param payloadOffset where the payload starts, counted from the start of the event
 */
public record TransactionPayloadEvent(
    long payloadSize, int compressionType, long uncompressedSize, int payloadOffset) {
  public static final int ZSTD = 0;
  public static final int NONE = 255;

  static final int END_MARK = 0;
  static final int PAYLOAD_SIZE_FIELD = 1;
  static final int COMPRESSION_TYPE_FIELD = 2;
  static final int UNCOMPRESSED_SIZE_FIELD = 3;

  public static TransactionPayloadEvent parse(BinlogEvent event, FormatDescriptionEvent fde) {
    // The fields start right after the common header: MySQL's own decoder ignores the
    // FORMAT_DESCRIPTION
    // post-header length of this type, which MySQL 8.0.20 to 9.x write as 40 by mistake.
    ByteReader in = EventBody.open(event, fde, EventType.TRANSACTION_PAYLOAD);
    long payloadSize = -1;
    int compression = -1;
    long uncompressed = 0;
    while (true) {
      long type = in.lenencInt("TRANSACTION_PAYLOAD field type");
      if (type == END_MARK) {
        break;
      }
      long length = in.lenencInt("TRANSACTION_PAYLOAD field length");
      in.require(length, "TRANSACTION_PAYLOAD field " + type + " value");
      if (type == PAYLOAD_SIZE_FIELD) {
        payloadSize = in.lenencInt("TRANSACTION_PAYLOAD payload_size");
      } else if (type == COMPRESSION_TYPE_FIELD) {
        long value = in.lenencInt("TRANSACTION_PAYLOAD compression_type");
        if (value != ZSTD && value != NONE) {
          throw EventBody.error(event, in, "unknown compression type " + value);
        }
        compression = (int) value;
      } else if (type == UNCOMPRESSED_SIZE_FIELD) {
        uncompressed = in.lenencInt("TRANSACTION_PAYLOAD uncompressed_size");
      } else {
        in.skip((int) length, "TRANSACTION_PAYLOAD unknown field " + type);
      }
    }
    if (payloadSize < 0 || compression < 0) {
      throw EventBody.error(
          event, in, "header lacks the " + (payloadSize < 0 ? "payload size" : "compression type"));
    }
    in.require(payloadSize, "TRANSACTION_PAYLOAD payload");
    return new TransactionPayloadEvent(payloadSize, compression, uncompressed, in.position());
  }

  /**
   * A copy of the (compressed) payload bytes of {@code event}, which must be the event this was
   * parsed from.
   */
  public byte[] payload(BinlogEvent event) {
    int start = event.offset() + payloadOffset;
    return Arrays.copyOfRange(event.buffer(), start, start + (int) payloadSize);
  }
}
