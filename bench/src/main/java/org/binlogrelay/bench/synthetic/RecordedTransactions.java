package org.binlogrelay.bench.synthetic;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.BinlogFileParser;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.FormatDescriptionEvent;

/**
 * The transactions of a recorded MySQL binlog file that the synthetic primary replays: every
 * complete row transaction (an untagged GTID event, the events after it, ending with XID), with the
 * file's FORMAT_DESCRIPTION. DDL (a GTID followed by one QUERY), tagged or anonymous GTIDs,
 * transactions over {@link #MAX_TRANSACTION_BYTES} and anything outside a transaction are left out,
 * so that every replayed transaction has the same shape a sysbench write has. The file must have
 * CRC32 checksums (MySQL's default). Immutable.
 *
 * @param formatDescription the file's FORMAT_DESCRIPTION event, header and CRC32 included
 * @param serverVersion the version the FORMAT_DESCRIPTION names (e.g. {@code 9.7.4})
 * @param sourceId the UUID of the first kept transaction's GTID
 * @param transactions each transaction's events back to back, as in the file
 * @param eventOffsets per transaction, where each of its events starts in its array
 */
public record RecordedTransactions(
    byte[] formatDescription,
    String serverVersion,
    UUID sourceId,
    List<byte[]> transactions,
    List<int[]> eventOffsets) {

  /** A recording of MySQL 9.7 made by scripts/generate-protocol-fixtures.sh (row transactions). */
  public static final String BUILT_IN = "mysql-9.7-rows.binlog";

  /**
   * Transactions larger than this are left out: a recording's first file holds sysbench's prepare,
   * bulk inserts of megabytes each, and replaying them at thousands a second built batches of
   * gigabytes in the synthetic primary (the full benchmark run of 2026-11-29 stalled on them).
   */
  static final int MAX_TRANSACTION_BYTES = 64 << 10;

  /** At most this many bytes of a file are read. */
  static final int MAX_FILE_BYTES = 64 << 20;

  /** The built-in recording (a resource of this module). */
  public static RecordedTransactions builtIn() throws IOException {
    try (InputStream in = RecordedTransactions.class.getResourceAsStream(BUILT_IN)) {
      if (in == null) {
        throw new IOException("the resource " + BUILT_IN + " is missing from relay-bench's jar");
      }
      return parse(in.readAllBytes(), BUILT_IN, Integer.MAX_VALUE);
    }
  }

  /**
   * The transactions of a binlog file, at most {@code limit} of them (the first ones).
   *
   * @throws IOException if the file cannot be read or holds no usable transaction
   */
  public static RecordedTransactions load(Path file, int limit) throws IOException {
    byte[] bytes;
    try (InputStream in = Files.newInputStream(file)) {
      bytes = in.readNBytes(MAX_FILE_BYTES);
    }
    return parse(bytes, file.toString(), limit);
  }

  static RecordedTransactions parse(byte[] file, String name, int limit) throws IOException {
    byte[] fde = null;
    FormatDescriptionEvent format = null;
    UUID source = null;
    List<byte[]> transactions = new ArrayList<>();
    List<int[]> offsets = new ArrayList<>();
    List<BinlogEvent> current = null;
    try {
      BinlogFileParser parser = new BinlogFileParser(file, 1 << 30);
      while (parser.hasNext() && transactions.size() < limit) {
        BinlogEvent event;
        try {
          event = parser.next();
        } catch (ProtocolException e) {
          break; // a file cut off in the middle of an event (e.g. the first MAX_FILE_BYTES)
        }
        EventType type = event.type();
        if (type == EventType.FORMAT_DESCRIPTION) {
          fde = Arrays.copyOfRange(event.buffer(), event.offset(), event.end());
          format = FormatDescriptionEvent.parse(event);
          if (!format.eventsHaveChecksum()) {
            throw new IOException(
                name + " has no CRC32 checksums: record it with binlog_checksum=CRC32");
          }
          continue;
        }
        if (type == EventType.GTID) {
          current = new ArrayList<>();
          current.add(event);
          continue;
        }
        if (current == null) {
          continue;
        }
        current.add(event);
        if (type == EventType.XID && current.size() > 2) {
          UUID sid = sourceOf(current.get(0));
          if (source == null) {
            source = sid;
          }
          int size = 0;
          for (BinlogEvent e : current) {
            size += e.length();
          }
          if (size > MAX_TRANSACTION_BYTES) {
            current = null; // a bulk load (sysbench prepare), not a write of the load replayed
            continue;
          }
          byte[] trx = new byte[size];
          int[] starts = new int[current.size()];
          int at = 0;
          for (int i = 0; i < current.size(); i++) {
            BinlogEvent e = current.get(i);
            starts[i] = at;
            System.arraycopy(e.buffer(), e.offset(), trx, at, e.length());
            at += e.length();
          }
          transactions.add(trx);
          offsets.add(starts);
          current = null;
        } else if (type == EventType.XID
            || type == EventType.ROTATE
            || type.isMysqlGtid()
            || type == EventType.STOP) {
          current = null;
        }
      }
    } catch (ProtocolException e) {
      throw new IOException(name + " is not a readable binlog file: " + e.getMessage(), e);
    }
    if (fde == null) {
      throw new IOException(name + " has no FORMAT_DESCRIPTION event");
    }
    if (transactions.isEmpty()) {
      throw new IOException(
          name
              + " holds no row transaction with a GTID (GTID, BEGIN, rows, XID): record it with"
              + " gtid_mode=ON and binlog_format=ROW");
    }
    return new RecordedTransactions(
        fde, format.serverVersion(), source, List.copyOf(transactions), List.copyOf(offsets));
  }

  /** The UUID of a GTID event (16 bytes after the body's flags byte, big-endian halves). */
  private static UUID sourceOf(BinlogEvent gtid) {
    int at = gtid.offset() + EventHeader.SIZE + 1;
    return new UUID(bigEndian(gtid.buffer(), at), bigEndian(gtid.buffer(), at + 8));
  }

  static long bigEndian(byte[] b, int at) {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (b[at + i] & 0xff);
    }
    return v;
  }

  /** The largest transaction in bytes. */
  public int maxTransactionBytes() {
    return transactions.stream().mapToInt(t -> t.length).max().orElse(0);
  }

  /** The mean transaction size in bytes. */
  public double meanTransactionBytes() {
    return transactions.stream().mapToInt(t -> t.length).average().orElse(0);
  }
}
