package org.binlogrelay.benchmarks;

import java.io.IOException;
import java.util.Locale;
import java.util.UUID;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.RotateEvent;
import org.binlogrelay.protocol.event.XidEvent;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.storage.Position;

/**
 * The dump stream of a made-up MySQL 9.7 primary (GTIDs on, CRC32 checksums, row-based), as its
 * dump thread sends it to a replica connecting at {@link #position()}:
 *
 * <pre>
 *   ROTATE (artificial)   naming the file and the position
 *   FORMAT_DESCRIPTION    from offset 4: log_pos = its end; mid-file: log_pos 0 (decoding only)
 *   PREVIOUS_GTIDS        at the start of each file: every GTID of the earlier files
 *   per transaction       GTID, QUERY "BEGIN", WRITE_ROWS (opaque padding up to the transaction size), XID
 *   ROTATE (real)         once a file reaches the maximum size, after the transaction that reached it
 *                         (like max_binlog_size); then the next file from offset 4, as above
 * </pre>
 *
 * Every event has its log_pos (its end offset in the file) and CRC32 right, so {@code
 * BinlogStore.append} accepts it. Every transaction is exactly {@code transactionBytes} long. The
 * first file's PREVIOUS_GTIDS is {@code SOURCE:1-1000} (as if older files were purged), so that
 * every file's header has the same length.
 *
 * <p>Generating must cost little next to storing, or the benchmarks measure the generator. Since
 * every file has the same layout, the n-th transaction of each file sits at the same offset: its
 * BEGIN, WRITE_ROWS and XID events (everything but the GTID) are the same bytes in every file and
 * are built once, when the primary is made (about {@code maxFileBytes} of heap). Per transaction
 * only the GTID event (77 to 80 bytes) is built and checksummed.
 *
 * <p>Not thread-safe: one writer.
 */
public final class SyntheticPrimary {
  /** Receives the stream, event by event; {@code BinlogStore::append} is one. */
  @FunctionalInterface
  public interface Sink {
    void accept(BinlogEvent event) throws IOException;
  }

  /** The primary's server_uuid: the source of every GTID. */
  public static final UUID SOURCE = UUID.fromString("3b1e7c52-0000-4000-8000-00000000be01");

  /** GNOs below this one are "purged": the first file's PREVIOUS_GTIDS. */
  public static final long FIRST_GNO = 1001;

  /**
   * The smallest transaction this primary makes: GTID 77 + BEGIN 42 + WRITE_ROWS 33 + XID 31 bytes.
   */
  public static final int MIN_TRANSACTION_BYTES = 183;

  private static final String BASE_NAME = "binlog";
  private static final int FIRST_EVENT_OFFSET = 4;
  private static final int CHECKSUM = 4;
  private static final long SERVER_ID = 1;
  private static final long TIMESTAMP = 1_795_319_847L;
  private static final long THREAD_ID = 8;

  private final int transactionBytes;
  private final long maxFileBytes;
  private final int gtidBytes;
  private final int beginBytes;
  private final int rowsBytes;
  private final int xidBytes;
  private final long headerEnd;
  private final byte[][] slots;
  private int fileSequence = 1;
  private String fileName = name(1);
  private long offset = FIRST_EVENT_OFFSET;
  private int slot;
  private long nextGno = FIRST_GNO;
  private long transactions;
  private long bytes = FIRST_EVENT_OFFSET;

  /**
   * @param transactionBytes the size of every transaction, GTID to XID, at least {@link
   *     #MIN_TRANSACTION_BYTES}
   * @param maxFileBytes rotate once a file is this long (at least one transaction per file)
   */
  public SyntheticPrimary(int transactionBytes, long maxFileBytes) {
    this.transactionBytes = transactionBytes;
    this.maxFileBytes = maxFileBytes;
    this.gtidBytes = EventHeader.SIZE + MysqlEventBodies.gtidBodySize(transactionBytes) + CHECKSUM;
    this.beginBytes =
        EventHeader.SIZE + MysqlEventBodies.query(THREAD_ID, "BEGIN").length + CHECKSUM;
    this.xidBytes = EventHeader.SIZE + new XidEvent(0).encodeBody().length + CHECKSUM;
    this.rowsBytes = transactionBytes - gtidBytes - beginBytes - xidBytes;
    int rowsPayload = rowsBytes - EventHeader.SIZE - MysqlEventBodies.rowsBodySize(0) - CHECKSUM;
    if (rowsPayload < 0) {
      throw new IllegalArgumentException(
          "a transaction of "
              + transactionBytes
              + " bytes cannot hold GTID ("
              + gtidBytes
              + "), BEGIN ("
              + beginBytes
              + "), WRITE_ROWS (at least "
              + (rowsBytes - rowsPayload)
              + ") and XID ("
              + xidBytes
              + "); use at least "
              + MIN_TRANSACTION_BYTES
              + " bytes");
    }
    this.headerEnd =
        (long) FIRST_EVENT_OFFSET
            + formatDescription(FIRST_EVENT_OFFSET).length()
            + previousGtids(FIRST_EVENT_OFFSET, gtidsBefore(FIRST_GNO)).length();
    if (maxFileBytes < headerEnd) {
      throw new IllegalArgumentException(
          "maximum file size "
              + maxFileBytes
              + " is below the file header ("
              + headerEnd
              + " bytes)");
    }
    long perFile =
        Math.max(1, (maxFileBytes - headerEnd + transactionBytes - 1) / transactionBytes);
    if (perFile * transactionBytes > (1L << 30)) {
      throw new IllegalArgumentException(
          "a "
              + maxFileBytes
              + "-byte file of "
              + transactionBytes
              + "-byte transactions is too much to prepare in memory; use files of at most 1 GiB");
    }
    this.slots = new byte[(int) perFile][];
    byte[] rowsBody = MysqlEventBodies.rows(rowsPayload);
    byte[] beginBody = MysqlEventBodies.query(THREAD_ID, "BEGIN");
    for (int i = 0; i < slots.length; i++) {
      slots[i] = prepareSlot(i, beginBody, rowsBody);
    }
  }

  /**
   * The BEGIN, WRITE_ROWS and XID of the {@code index}-th transaction of any file, back to back.
   */
  private byte[] prepareSlot(int index, byte[] beginBody, byte[] rowsBody) {
    byte[] out = new byte[transactionBytes - gtidBytes];
    long at = headerEnd + (long) index * transactionBytes + gtidBytes;
    int p = 0;
    p = put(out, p, event(EventType.QUERY, at, beginBody));
    at += beginBytes;
    p = put(out, p, event(EventType.WRITE_ROWS, at, rowsBody));
    at += rowsBytes;
    put(out, p, event(EventType.XID, at, new XidEvent(1000L + index).encodeBody()));
    return out;
  }

  private static int put(byte[] out, int p, BinlogEvent e) {
    System.arraycopy(e.buffer(), e.offset(), out, p, e.length());
    return p + e.length();
  }

  /** The name of the {@code sequence}-th file: {@code binlog.000042}. */
  public static String name(int sequence) {
    return String.format(Locale.ROOT, "%s.%06d", BASE_NAME, sequence);
  }

  /** Where the stream stands: the next event's file and offset. */
  public Position position() {
    return new Position(fileName, offset);
  }

  /** The sequence number of the file being sent (1 for the first). */
  public int fileSequence() {
    return fileSequence;
  }

  /** Transactions sent so far. */
  public long transactions() {
    return transactions;
  }

  /**
   * Bytes of binlog files sent so far (magic numbers included): what the store holds when it has it
   * all.
   */
  public long bytes() {
    return bytes;
  }

  public int transactionBytes() {
    return transactionBytes;
  }

  /**
   * Sends what a dump thread sends when a replica connects at {@link #position()}: an artificial
   * ROTATE and the FORMAT_DESCRIPTION, plus the PREVIOUS_GTIDS at a file's start.
   */
  public void connect(Sink sink) throws IOException {
    sink.accept(artificialRotate(fileName, offset));
    if (offset == FIRST_EVENT_OFFSET) {
      startFile(sink);
    } else {
      sink.accept(event(EventType.FORMAT_DESCRIPTION, -1, MysqlEventBodies.formatDescription(0)));
    }
  }

  /**
   * Sends the next transaction, and the rotation to the next file if this one is now full.
   *
   * @return bytes added to the binlog files (the transaction, and any ROTATE and new file header)
   */
  public long transaction(Sink sink) throws IOException {
    long before = bytes;
    long seq = slot + 1L;
    byte[] gtid =
        MysqlEventBodies.gtid(
            SOURCE, nextGno, seq - 1, seq, TIMESTAMP * 1_000_000L + transactions, transactionBytes);
    sink.accept(event(EventType.GTID, offset, gtid));
    byte[] rest = slots[slot];
    sink.accept(BinlogEvent.wrap(rest, 0, beginBytes, true));
    sink.accept(BinlogEvent.wrap(rest, beginBytes, rowsBytes, true));
    sink.accept(BinlogEvent.wrap(rest, beginBytes + rowsBytes, xidBytes, true));
    offset += transactionBytes;
    bytes += transactionBytes;
    slot++;
    nextGno++;
    transactions++;
    if (offset >= maxFileBytes || slot == slots.length) {
      rotate(sink);
    }
    return bytes - before;
  }

  private void rotate(Sink sink) throws IOException {
    String next = name(fileSequence + 1);
    BinlogEvent rotate =
        event(EventType.ROTATE, offset, new RotateEvent(FIRST_EVENT_OFFSET, next).encodeBody());
    sink.accept(rotate);
    bytes += rotate.length();
    fileSequence++;
    fileName = next;
    offset = FIRST_EVENT_OFFSET;
    slot = 0;
    bytes += FIRST_EVENT_OFFSET;
    sink.accept(artificialRotate(next, FIRST_EVENT_OFFSET));
    startFile(sink);
  }

  private void startFile(Sink sink) throws IOException {
    BinlogEvent fde = formatDescription(offset);
    sink.accept(fde);
    offset += fde.length();
    bytes += fde.length();
    BinlogEvent previous = previousGtids(offset, gtidsBefore(nextGno));
    sink.accept(previous);
    offset += previous.length();
    bytes += previous.length();
    if (offset != headerEnd) {
      throw new IllegalStateException(
          "the header of "
              + fileName
              + " ends at "
              + offset
              + ", not "
              + headerEnd
              + " like the first file's; the prepared transactions would have wrong positions");
    }
  }

  private static MysqlGtidSet gtidsBefore(long gno) {
    MysqlGtidSet set = MysqlGtidSet.empty();
    set.addInterval(SOURCE, "", 1, gno - 1);
    return set;
  }

  private static BinlogEvent formatDescription(long at) {
    return event(EventType.FORMAT_DESCRIPTION, at, MysqlEventBodies.formatDescription(0));
  }

  private static BinlogEvent previousGtids(long at, MysqlGtidSet before) {
    return event(EventType.PREVIOUS_GTIDS, at, MysqlEventBodies.previousGtids(before));
  }

  private static BinlogEvent artificialRotate(String file, long position) {
    EventHeader h =
        new EventHeader(
            0, EventType.ROTATE.code(), SERVER_ID, 0, 0, EventHeader.LOG_EVENT_ARTIFICIAL_F);
    return BinlogEvent.assemble(h, new RotateEvent(position, file).encodeBody(), true);
  }

  /**
   * An event starting at {@code at} (log_pos = its end), or with log_pos 0 if {@code at} is
   * negative.
   */
  private static BinlogEvent event(EventType type, long at, byte[] body) {
    long size = (long) EventHeader.SIZE + body.length + CHECKSUM;
    EventHeader h =
        new EventHeader(TIMESTAMP, type.code(), SERVER_ID, size, at < 0 ? 0 : at + size, 0);
    return BinlogEvent.assemble(h, body, true);
  }

  @Override
  public String toString() {
    return "SyntheticPrimary("
        + transactionBytes
        + "-byte transactions, files of "
        + maxFileBytes
        + " bytes, at "
        + position()
        + ", "
        + transactions
        + " transactions)";
  }
}
