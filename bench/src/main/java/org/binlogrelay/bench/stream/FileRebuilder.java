package org.binlogrelay.bench.stream;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.LittleEndian;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;

/**
 * Rebuilds the source's binlog files from its dump stream, the way a source's dump thread sends
 * them:
 *
 * <pre>
 *   ROTATE (artificial: flag 0x20 or log_pos 0)   names the file and the start offset - not part of any file
 *   FORMAT_DESCRIPTION, log_pos = its end         the file's own, at offset 4 - part of the file
 *   FORMAT_DESCRIPTION, log_pos 0                 a copy sent for a start inside a file - not part of it
 *   event, log_pos = its end                      part of the file, at log_pos - event_size
 *   ROTATE (real) / STOP                          the file's last event; the next FORMAT_DESCRIPTION starts the
 *                                                 named (or next-numbered) file
 *   HEARTBEAT, HEARTBEAT_V2, other events with the artificial flag or log_pos 0 (MariaDB's fake GTID_LIST and
 *   BINLOG_CHECKPOINT)                            not part of any file, except:
 *   log_pos 0 after an event of the file, not artificial (MariaDB 11.4+: inside a transaction)
 *                                                 where the last event ended
 * </pre>
 *
 * Offsets past 4 GiB: log_pos is the end offset modulo 2^32, so the offset is taken as the one
 * nearest the end of the last event. Each event kept goes to the {@link BinlogFileSink} with its
 * file and offset.
 *
 * <p>Not thread-safe: the stream's reading thread.
 */
public final class FileRebuilder {
  private static final long FOUR_GIB = 1L << 32;

  private final BinlogFileSink sink;
  private String file;
  private String pendingFile;
  private long end;

  public FileRebuilder(BinlogFileSink sink) {
    this.sink = sink;
  }

  /**
   * One event of the stream.
   *
   * @param checksumBytes 4 if the event ends with a CRC32, else 0
   */
  public void accept(
      byte[] b, int at, int length, int type, long logPos, int flags, int checksumBytes)
      throws IOException {
    if (type == EventType.HEARTBEAT.code() || type == EventType.HEARTBEAT_V2.code()) {
      return;
    }
    boolean format = type == EventType.FORMAT_DESCRIPTION.code();
    // MariaDB 11.4+ sends the events inside a transaction with log_pos 0: after an event of the
    // file (the
    // transaction's GTID event), one that is not flagged artificial is where the last one ended
    boolean unpositioned =
        logPos == 0
            && (flags & EventHeader.LOG_EVENT_ARTIFICIAL_F) == 0
            && !format
            && type != EventType.ROTATE.code()
            && file != null
            && pendingFile == null
            && end > 4;
    boolean artificial =
        ((flags & EventHeader.LOG_EVENT_ARTIFICIAL_F) != 0 || logPos == 0) && !unpositioned;
    if (type == EventType.ROTATE.code() && artificial) {
      file = rotateName(b, at, length, checksumBytes);
      pendingFile = null;
      end = LittleEndian.u64(b, at + EventHeader.SIZE);
      return;
    }
    if (artificial) {
      return;
    }
    if (format && pendingFile != null) {
      file = pendingFile;
      pendingFile = null;
      end = 4;
    }
    if (file == null) {
      throw new ProtocolException(
          "a "
              + EventType.forCode(type)
              + " event (log_pos "
              + logPos
              + ") before any ROTATE"
              + " named the file");
    }
    long offset;
    if (unpositioned) {
      offset = end;
    } else {
      long start = logPos - length;
      offset = (end & ~(FOUR_GIB - 1)) | (start & (FOUR_GIB - 1));
      if (offset < end - FOUR_GIB / 2) {
        offset += FOUR_GIB;
      }
    }
    if (offset < 4) {
      throw new ProtocolException(
          EventType.forCode(type)
              + " event of "
              + length
              + " bytes with log_pos "
              + logPos
              + " would start at "
              + offset
              + " of "
              + file
              + ", before the first event");
    }
    sink.write(file, offset, b, at, length, format);
    end = offset + length;
    if (type == EventType.ROTATE.code()) {
      sink.fileComplete(file);
      pendingFile = rotateName(b, at, length, checksumBytes);
    } else if (type == EventType.STOP.code()) {
      sink.fileComplete(file);
      pendingFile = DumpStreamReader.nextName(file);
    }
  }

  private static String rotateName(byte[] b, int at, int length, int checksumBytes) {
    int from = at + EventHeader.SIZE + 8;
    int to = at + length - checksumBytes;
    if (to < from) {
      throw new ProtocolException(
          "ROTATE event of " + length + " bytes is too short to name a file");
    }
    return new String(b, from, to - from, StandardCharsets.UTF_8);
  }
}
