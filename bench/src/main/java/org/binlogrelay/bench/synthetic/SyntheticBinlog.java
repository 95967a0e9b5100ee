package org.binlogrelay.bench.synthetic;

import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.binlogrelay.protocol.bytes.ByteWriter;
import org.binlogrelay.protocol.bytes.LittleEndian;
import org.binlogrelay.protocol.event.BinlogChecksum;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;

/**
 * The synthetic primary's binlog, generated as it is sent: the files {@code BASENAME.000001},
 * {@code .000002} ..., each a FORMAT_DESCRIPTION (the recording's), a PREVIOUS_GTIDS with every
 * GTID of the earlier files, then the recorded transactions in turn, and a ROTATE once the file
 * reaches {@code maxFileSize} (after the transaction that reached it, as {@code max_binlog_size}
 * does). Every transaction gets the primary's UUID and the next GNO (1, 2, 3 ... without gaps),
 * {@code last_committed}/{@code sequence_number} counted per file as MySQL's logical clock does,
 * {@code immediate_commit_timestamp} (and {@code original_commit_timestamp} if the recording had
 * one) set to the given time, every header's timestamp and log_pos rewritten for its place, and
 * every CRC32 recomputed. Nothing is kept but the current file's name, size and counters: a dump
 * can only start at the head. Not thread-safe (the sending thread).
 */
public final class SyntheticBinlog {
  /** GTID body: flags(1) sid(16) gno(8) lt_type(1) last_committed(8) sequence_number(8). */
  private static final int SID = EventHeader.SIZE + 1;

  private static final int GNO = SID + 16;
  private static final int LAST_COMMITTED = GNO + 8 + 1;
  private static final int SEQUENCE_NUMBER = LAST_COMMITTED + 8;
  private static final int IMMEDIATE_TIMESTAMP = SEQUENCE_NUMBER + 8;
  private static final long ORIGINAL_TIMESTAMP_FOLLOWS = 1L << 55;

  private final RecordedTransactions recording;
  private final UUID sourceId;
  private final long serverId;
  private final String basename;
  private final long maxFileSize;
  private int fileNumber;
  private long position;
  private long nextGno = 1;
  private long firstGnoOfFile = 1;
  private long sequenceInFile;
  private int nextTemplate;

  public SyntheticBinlog(
      RecordedTransactions recording,
      UUID sourceId,
      long serverId,
      String basename,
      long maxFileSize) {
    this.recording = recording;
    this.sourceId = sourceId;
    this.serverId = serverId;
    this.basename = basename;
    this.maxFileSize = maxFileSize;
    this.fileNumber = 1;
    this.position = 4L + recording.formatDescription().length + previousGtids(0).length;
  }

  public String currentFile() {
    return fileName(fileNumber);
  }

  public long position() {
    return position;
  }

  /** GNOs handed out so far: the set written is {@code uuid:1-N} (empty for 0). */
  public long transactions() {
    return nextGno - 1;
  }

  /** Every GTID written so far, as MySQL prints {@code gtid_executed}. */
  public String executedGtids() {
    return nextGno == 1 ? "" : sourceId + ":1-" + (nextGno - 1);
  }

  public UUID sourceId() {
    return sourceId;
  }

  /** The names and sizes of the files so far, oldest first (only the current one is exact). */
  public String fileName(int number) {
    return String.format("%s.%06d", basename, number);
  }

  /** Transactions written to the current file so far. */
  public long transactionsInFile() {
    return sequenceInFile;
  }

  public int fileNumber() {
    return fileNumber;
  }

  /**
   * What a dump from the start of the current file sends first: the artificial ROTATE to it, its
   * FORMAT_DESCRIPTION and PREVIOUS_GTIDS, as events (no packet headers).
   */
  public byte[][] startOfCurrentFile() {
    long gtidsBefore = firstGnoOfFile - 1;
    byte[] fde = formatDescription(4);
    byte[] previous = previousGtidsEvent(gtidsBefore, 4 + fde.length);
    return new byte[][] {artificialRotate(currentFile(), 4), fde, previous};
  }

  /**
   * What a dump from the head of the current file (past its header) sends first: the artificial
   * ROTATE to the position and the FORMAT_DESCRIPTION with log_pos 0, as MySQL does for a start
   * inside a file.
   */
  public byte[][] resumeAtHead() {
    byte[] fde = formatDescription(0);
    LittleEndian.put32(fde, EventHeader.LOG_POS_OFFSET, 0);
    BinlogChecksum.patch(fde, 0, fde.length);
    return new byte[][] {artificialRotate(currentFile(), position), fde};
  }

  /**
   * Appends the next transaction (and, if the file is then full, the ROTATE and the next file's
   * header) to {@code sink}.
   *
   * @param commitMicros the commit timestamp to write (microseconds since the epoch)
   * @return the GNO given to the transaction
   */
  public long next(long commitMicros, EventSink sink) {
    byte[] template = recording.transactions().get(nextTemplate);
    int[] starts = recording.eventOffsets().get(nextTemplate);
    nextTemplate = (nextTemplate + 1) % recording.transactions().size();
    byte[] trx = template.clone();
    long gno = nextGno++;
    sequenceInFile++;
    long seconds = commitMicros / 1_000_000;
    // the GTID event
    putUuid(trx, SID, sourceId);
    LittleEndian.put64(trx, GNO, gno);
    LittleEndian.put64(trx, LAST_COMMITTED, sequenceInFile - 1);
    LittleEndian.put64(trx, SEQUENCE_NUMBER, sequenceInFile);
    int gtidSize = (int) LittleEndian.u32(trx, EventHeader.EVENT_SIZE_OFFSET);
    if (gtidSize >= IMMEDIATE_TIMESTAMP + 7 + BinlogChecksum.SIZE) {
      long immediate = uint56(trx, IMMEDIATE_TIMESTAMP);
      boolean original = (immediate & ORIGINAL_TIMESTAMP_FOLLOWS) != 0;
      putUint56(
          trx, IMMEDIATE_TIMESTAMP, commitMicros | (original ? ORIGINAL_TIMESTAMP_FOLLOWS : 0));
      if (original) {
        putUint56(trx, IMMEDIATE_TIMESTAMP + 7, commitMicros);
      }
    }
    for (int i = 0; i < starts.length; i++) {
      int at = starts[i];
      int size = i + 1 < starts.length ? starts[i + 1] - at : trx.length - at;
      position += size;
      LittleEndian.put32(trx, at, seconds);
      LittleEndian.put32(trx, at + EventHeader.SERVER_ID_OFFSET, serverId);
      LittleEndian.put32(trx, at + EventHeader.LOG_POS_OFFSET, position);
      BinlogChecksum.patch(trx, at, size);
    }
    sink.transaction(trx, starts, gno);
    if (position >= maxFileSize) {
      String next = fileName(fileNumber + 1);
      byte[] body = rotateBody(next);
      long end = position + EventHeader.SIZE + body.length + BinlogChecksum.SIZE;
      byte[] rotate = event(EventType.ROTATE, seconds, body, end, 0);
      position += rotate.length;
      sink.event(rotate);
      fileNumber++;
      firstGnoOfFile = nextGno;
      sequenceInFile = 0;
      byte[][] header = startOfCurrentFile();
      for (byte[] e : header) {
        sink.event(e);
      }
      position = 4L + header[1].length + header[2].length;
    }
    return gno;
  }

  /** The events of {@link #next}: a whole transaction, or one event of a rotation. */
  public interface EventSink {
    /** A transaction's events back to back; {@code starts} where each begins. */
    void transaction(byte[] events, int[] starts, long gno);

    /** One event outside a transaction (ROTATE, FORMAT_DESCRIPTION, PREVIOUS_GTIDS). */
    void event(byte[] event);
  }

  /** A HEARTBEAT (v1) event at the head: body the file name, log_pos the position. */
  public byte[] heartbeat() {
    return event(
        EventType.HEARTBEAT,
        0,
        currentFile().getBytes(StandardCharsets.UTF_8),
        position,
        EventHeader.LOG_EVENT_ARTIFICIAL_F);
  }

  private byte[] formatDescription(long at) {
    byte[] fde = recording.formatDescription().clone();
    long seconds = System.currentTimeMillis() / 1000;
    LittleEndian.put32(fde, 0, seconds);
    LittleEndian.put32(fde, EventHeader.SERVER_ID_OFFSET, serverId);
    LittleEndian.put32(fde, EventHeader.LOG_POS_OFFSET, at + fde.length);
    // binlog_version(2) server_version(50) create_timestamp(4): the file's creation time
    LittleEndian.put32(fde, EventHeader.SIZE + 2 + 50, seconds);
    int flags = LittleEndian.u16(fde, EventHeader.FLAGS_OFFSET);
    LittleEndian.put16(
        fde, EventHeader.FLAGS_OFFSET, flags & ~EventHeader.LOG_EVENT_BINLOG_IN_USE_F);
    BinlogChecksum.patch(fde, 0, fde.length);
    return fde;
  }

  private byte[] previousGtids(long gtids) {
    return previousGtidsEvent(gtids, 4 + recording.formatDescription().length);
  }

  private byte[] previousGtidsEvent(long gtids, long at) {
    MysqlGtidSet set = MysqlGtidSet.empty();
    if (gtids > 0) {
      set.addInterval(sourceId, "", 1, gtids);
    }
    byte[] body = set.encode();
    return event(
        EventType.PREVIOUS_GTIDS,
        System.currentTimeMillis() / 1000,
        body,
        at + EventHeader.SIZE + body.length + BinlogChecksum.SIZE,
        0);
  }

  private byte[] artificialRotate(String file, long pos) {
    byte[] body = new ByteWriter(8 + file.length()).u64(pos).string(file).toByteArray();
    return event(EventType.ROTATE, 0, body, 0, EventHeader.LOG_EVENT_ARTIFICIAL_F);
  }

  private static byte[] rotateBody(String next) {
    return new ByteWriter(8 + next.length()).u64(4).string(next).toByteArray();
  }

  /** An event with a CRC32: header, body, checksum. */
  private byte[] event(EventType type, long seconds, byte[] body, long logPos, int flags) {
    int size = EventHeader.SIZE + body.length + BinlogChecksum.SIZE;
    byte[] e = new byte[size];
    LittleEndian.put32(e, 0, seconds);
    e[EventHeader.TYPE_OFFSET] = (byte) type.code();
    LittleEndian.put32(e, EventHeader.SERVER_ID_OFFSET, serverId);
    LittleEndian.put32(e, EventHeader.EVENT_SIZE_OFFSET, size);
    LittleEndian.put32(e, EventHeader.LOG_POS_OFFSET, logPos);
    LittleEndian.put16(e, EventHeader.FLAGS_OFFSET, flags);
    System.arraycopy(body, 0, e, EventHeader.SIZE, body.length);
    BinlogChecksum.patch(e, 0, size);
    return e;
  }

  private static void putUuid(byte[] b, int at, UUID uuid) {
    putBigEndian(b, at, uuid.getMostSignificantBits());
    putBigEndian(b, at + 8, uuid.getLeastSignificantBits());
  }

  private static void putBigEndian(byte[] b, int at, long v) {
    for (int i = 7; i >= 0; i--) {
      b[at + i] = (byte) v;
      v >>>= 8;
    }
  }

  private static long uint56(byte[] b, int at) {
    long v = 0;
    for (int i = 6; i >= 0; i--) {
      v = (v << 8) | (b[at + i] & 0xff);
    }
    return v;
  }

  private static void putUint56(byte[] b, int at, long v) {
    for (int i = 0; i < 7; i++) {
      b[at + i] = (byte) (v >>> (8 * i));
    }
  }
}
