package org.binlogrelay.server.upstream;

import java.io.EOFException;
import java.io.IOException;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.BinlogEventDecoder;
import org.binlogrelay.protocol.event.ChecksumAlgorithm;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.storage.Appended;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.Time;

/**
 * One connection's path from dump packets to the store. Each packet of the dump stream is
 *
 * <pre>
 *   0x00 | event (header, body, CRC32 when the stream has checksums)   - an event
 *   0xFF | error                                                       - the primary ends the dump with an error
 *   0xFE | ... (under 9 bytes)                                         - the primary ends the dump
 * </pre>
 *
 * An event's bytes are handed on exactly as received (no copy, no re-encoding): {@link BinlogEventDecoder}
 * checks the size and CRC32 and follows the FORMAT_DESCRIPTION events, then {@link BinlogStore#append} checks
 * continuity and writes. Any failure is thrown, never skipped: the event was not stored, the connection must
 * end, and the next one resumes where the store ends.
 *
 * <p>Appending on the reading thread is the back-pressure: while the store takes its time, no packet is read,
 * the socket's buffers fill and TCP stops the primary. Nothing is queued in between.
 *
 * <p>Not thread-safe: the connection's thread.
 */
final class EventIngest {
  private static final int EOF_MAX_LENGTH = 9;

  private final BinlogStore store;
  private final BinlogEventDecoder decoder;
  private final IngestCounters counters;
  private final Time time;
  private final String source;
  private final Position start;
  private boolean progress;
  private long events;

  /**
   * @param checksum the algorithm negotiated with {@code @master_binlog_checksum}: what the artificial events
   *     before the first FORMAT_DESCRIPTION carry
   * @param source the primary, for messages
   * @param start where the dump was requested from, for messages
   */
  EventIngest(BinlogStore store, ChecksumAlgorithm checksum, IngestCounters counters, Time time, String source,
      Position start) {
    this.start = start;
    this.store = store;
    this.decoder = new BinlogEventDecoder(checksum, store.config().maxEventSize());
    this.counters = counters;
    this.time = time;
    this.source = source;
  }

  /** The largest dump packet this ingest accepts: the largest event and its 0x00 marker. */
  static int maxPacket(BinlogStore store) {
    return store.config().maxEventSize() + 1;
  }

  /**
   * Takes one packet of the dump stream.
   *
   * @return the event, as stored (or skipped by the store as one the primary made up for the dump)
   * @throws PrimaryErrorException if the primary sent an error
   * @throws EOFException if the primary ended the dump
   * @throws ProtocolException if the packet or event is malformed or fails its CRC32
   * @throws org.binlogrelay.storage.ContinuityException if the event does not continue the store
   * @throws FatalUpstreamException if the store failed
   */
  BinlogEvent accept(byte[] packet) throws IOException {
    int marker = packet.length == 0 ? -1 : packet[0] & 0xff;
    if (marker == ErrPacket.HEADER) {
      ErrPacket err = ErrPacket.decode(packet);
      String hint = err.code() == PrimaryErrorException.FATAL_ERROR_READING_BINLOG
          ? ". The relay cannot continue from this primary without a gap: it needs "
              + (events == 0 ? start : counters.position) + ", which the primary no longer has or cannot serve;"
              + " point the relay at a server that has it, or start a new store"
          : "";
      throw new PrimaryErrorException("primary " + source + " ended the dump requested from " + start + " ("
          + where() + ")", err.code(), err.sqlState(), err.message(), hint);
    }
    if (marker == 0xfe && packet.length < EOF_MAX_LENGTH) {
      throw new EOFException("primary " + source + " ended the dump requested from " + start + " with an EOF packet ("
          + where() + ")");
    }
    if (marker != 0x00) {
      throw new ProtocolException("dump packet " + (events + 1) + " from " + source + " starts with 0x"
          + Integer.toHexString(marker) + ", expected 0x00 (event), 0xff (error) or 0xfe (end)");
    }
    BinlogEvent event = decoder.decode(packet, 1, packet.length - 1);
    Appended appended;
    try {
      appended = store.append(event);
    } catch (IOException e) {
      throw new FatalUpstreamException("binlog store " + store.directory() + " failed writing " + event.header()
          .typeName() + " event at " + counters.position + ": " + e.getMessage() + "; fix the disk, then restart the"
          + " relay (reopening the store recovers it)", e);
    }
    events++;
    progress |= appended.written();
    EventType type = event.type();
    counters.event(event.length(), type == EventType.HEARTBEAT || type == EventType.HEARTBEAT_V2,
        appended.completedTransaction(), appended.position(), time.milliseconds());
    return event;
  }

  private String where() {
    return events == 0 ? "before its first event" : "stream at " + counters.position;
  }

  /** True once an event of this connection was written to the store (the stream moved forward). */
  boolean madeProgress() {
    return progress;
  }

  /** The current format (after the first FORMAT_DESCRIPTION: the file's), to parse typed views. */
  BinlogEventDecoder decoder() {
    return decoder;
  }
}
