package org.binlogrelay.server.upstream;

import java.io.EOFException;
import java.io.IOException;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.BinlogEventDecoder;
import org.binlogrelay.protocol.event.ChecksumAlgorithm;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.GtidEvent;
import org.binlogrelay.protocol.event.MariadbGtidEvent;
import org.binlogrelay.protocol.event.RotateEvent;
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
 *   0x00 | 0xef | flags | event ...                                    - an event, semi-sync (see {@link SemiSyncPackets})
 *   0xFF | error                                                       - the primary ends the dump with an error
 *   0xFE | ... (under 9 bytes)                                         - the primary ends the dump
 * </pre>
 *
 * An event's bytes are decoded in place (no copy): {@link BinlogEventDecoder} checks the size and
 * CRC32 and follows the FORMAT_DESCRIPTION events; the connection's {@link StreamMapping} says what
 * the store is given (with {@link PrimaryFiles}, the very same bytes); then {@link
 * BinlogStore#append} checks continuity and writes. Any failure is thrown, never skipped: the event
 * was not stored, the connection must end, and the next one resumes where the store ends.
 *
 * <p>Semi-sync: when the primary flags an event, the {@link AckRequests} hears the event's end in
 * the primary's binlog (the file the stream is in, from the last ROTATE, and the event's log_pos)
 * and the store's position after what was appended for it; it acknowledges once that position is
 * durable.
 *
 * <p>Appending on the reading thread is the back-pressure: while the store takes its time, no
 * packet is read, the socket's buffers fill and TCP stops the primary. Nothing is queued in
 * between.
 *
 * <p>Not thread-safe: the connection's thread.
 */
final class EventIngest {
  private static final int EOF_MAX_LENGTH = 9;

  /** Hears the events the primary wants acknowledged (semi-sync). */
  @FunctionalInterface
  interface AckRequests {
    /**
     * @param primaryEnd the flagged event's end in the primary's binlog: what the ack carries
     * @param storeEnd the store's position after the event: what must be durable first ({@code
     *     null} if the store holds nothing yet)
     */
    void ackWhenDurable(Position primaryEnd, Position storeEnd);
  }

  private final BinlogStore store;
  private final BinlogEventDecoder decoder;
  private final IngestCounters counters;
  private final Time time;
  private final String source;
  private final String requested;
  private final boolean semiSync;
  private final StreamMapping mapping;
  private final AckRequests acks;
  private boolean progress;
  private long events;

  /** The primary's file the stream is in (from the last ROTATE). */
  private String primaryFile;

  /**
   * Where the store stands after the last append of this connection, or where the connection
   * started.
   */
  private Position stored;

  /** Where the store ended when the connection started ({@code null} if empty). */
  private final Position start;

  /** The end of the last transaction this connection completed, {@code null} before one. */
  private Position completedEnd;

  /**
   * A connection without semi-sync that stores the primary's files as they are.
   *
   * @param checksum the algorithm negotiated with {@code @master_binlog_checksum}: what the
   *     artificial events before the first FORMAT_DESCRIPTION carry
   * @param source the primary, for messages
   * @param start where the dump was requested from, for messages
   */
  EventIngest(
      BinlogStore store,
      ChecksumAlgorithm checksum,
      IngestCounters counters,
      Time time,
      String source,
      Position start) {
    this(
        store,
        checksum,
        counters,
        time,
        source,
        start.toString(),
        start,
        false,
        PrimaryFiles.INSTANCE,
        (p, s) -> {});
  }

  /**
   * @param requested what the dump asked for (the primary's file and offset, or the GTIDs after
   *     which it sends), for messages
   * @param storeStart where the store ended when the connection started ({@code null} if empty)
   * @param semiSync whether every event packet carries the semi-sync header
   * @param mapping what the store is given for each event
   * @param acks hears the events the primary flags (semi-sync only)
   */
  EventIngest(
      BinlogStore store,
      ChecksumAlgorithm checksum,
      IngestCounters counters,
      Time time,
      String source,
      String requested,
      Position storeStart,
      boolean semiSync,
      StreamMapping mapping,
      AckRequests acks) {
    this.requested = requested;
    this.store = store;
    this.decoder = new BinlogEventDecoder(checksum, store.config().maxEventSize());
    this.counters = counters;
    this.time = time;
    this.source = source;
    this.semiSync = semiSync;
    this.mapping = mapping;
    this.acks = acks;
    this.stored = storeStart;
    this.start = storeStart;
  }

  /**
   * The largest dump packet this ingest accepts: the largest event, its 0x00 marker and a semi-sync
   * header.
   */
  static int maxPacket(BinlogStore store) {
    return store.config().maxEventSize() + SemiSyncPackets.EVENT_OFFSET;
  }

  /**
   * Takes one packet of the dump stream.
   *
   * @return the event as received (and stored, unless the mapping or the store dropped or replaced
   *     it)
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
      String hint =
          err.code() == PrimaryErrorException.FATAL_ERROR_READING_BINLOG
              ? ". The relay cannot continue from this primary without a gap: it needs "
                  + (events == 0 ? requested : counters.position)
                  + ", which the primary no longer has or cannot serve;"
                  + " point the relay at a server that has it, or start a new store"
              : "";
      throw new PrimaryErrorException(
          "primary "
              + source
              + " ended the dump requested from "
              + requested
              + " ("
              + where()
              + ")",
          err.code(),
          err.sqlState(),
          err.message(),
          hint);
    }
    if (marker == 0xfe && packet.length < EOF_MAX_LENGTH) {
      throw new EOFException(
          "primary "
              + source
              + " ended the dump requested from "
              + requested
              + " with an EOF packet ("
              + where()
              + ")");
    }
    if (marker != 0x00) {
      throw new ProtocolException(
          "dump packet "
              + (events + 1)
              + " from "
              + source
              + " starts with 0x"
              + Integer.toHexString(marker)
              + ", expected 0x00 (event), 0xff (error) or 0xfe (end)");
    }
    boolean ack = false;
    int at = 1;
    if (semiSync) {
      ack = SemiSyncPackets.ackRequested(packet, source);
      at = SemiSyncPackets.EVENT_OFFSET;
    }
    BinlogEvent event = decoder.decode(packet, at, packet.length - at);
    Position primaryEnd =
        primaryFile == null ? null : new Position(primaryFile, event.header().logPos());
    if (event.type() == EventType.ROTATE) {
      primaryFile = RotateEvent.parse(event, decoder.format()).nextFile();
    }
    noteTransaction(event);
    boolean completed = false;
    for (BinlogEvent e : mapping.map(event, decoder.format())) {
      Appended appended = append(e);
      progress |= appended.written();
      completed |= appended.completedTransaction();
      if (appended.position() != null) {
        stored = appended.position();
      }
      if (appended.completedTransaction()) {
        completedEnd = appended.position();
      }
    }
    events++;
    EventType type = event.type();
    counters.event(
        event.length(),
        type == EventType.HEARTBEAT || type == EventType.HEARTBEAT_V2,
        completed,
        stored,
        time.milliseconds());
    if (ack) {
      if (primaryEnd == null) {
        throw new ProtocolException(
            "primary "
                + source
                + " asks for a semi-sync ack of a "
                + event.header().typeName()
                + " event before any ROTATE named its binlog file");
      }
      acks.ackWhenDurable(primaryEnd, stored);
    }
    return event;
  }

  /** Records the GTID and commit times of a transaction's first event, for lag and status. */
  private void noteTransaction(BinlogEvent event) {
    EventType type = event.type();
    if (type.isMysqlGtid()) {
      GtidEvent gtid = GtidEvent.parse(event, decoder.format());
      counters.transactionStarted(
          gtid.isAnonymous() ? null : gtid.gtid().toString(),
          gtid.immediateCommitTimestamp(),
          gtid.originalCommitTimestamp(),
          event.header().timestamp());
    } else if (type == EventType.MARIADB_GTID) {
      MariadbGtidEvent gtid = MariadbGtidEvent.parse(event, decoder.format());
      counters.transactionStarted(gtid.gtid().toString(), 0, 0, event.header().timestamp());
    }
    if (type != EventType.HEARTBEAT
        && type != EventType.HEARTBEAT_V2
        && !event.header().hasFlag(EventHeader.LOG_EVENT_ARTIFICIAL_F)) {
      counters.lastEventTimestamp = event.header().timestamp();
    }
  }

  private Appended append(BinlogEvent event) throws IOException {
    try {
      return store.append(event);
    } catch (IOException e) {
      // the store stopped accepting writes; the replicator waits for it
      // (UpstreamReplicator#awaitStore)
      throw new FatalUpstreamException(
          "storing the "
              + event.header().typeName()
              + " event at "
              + counters.position
              + " failed: "
              + e.getMessage(),
          e);
    }
  }

  private String where() {
    return events == 0 ? "before its first event" : "stream at " + counters.position;
  }

  /**
   * True once an event of this connection was written to the store. Not progress in the sense of
   * {@link ReconnectSchedule}: the events of a transaction the connection did not complete are cut
   * by the next one.
   */
  boolean madeProgress() {
    return progress;
  }

  /** Where the store ended when this connection started, {@code null} if it was empty. */
  Position start() {
    return start;
  }

  /**
   * The end of the last transaction this connection completed in the store, {@code null} if none.
   */
  Position completedEnd() {
    return completedEnd;
  }

  /** The current format (after the first FORMAT_DESCRIPTION: the file's), to parse typed views. */
  BinlogEventDecoder decoder() {
    return decoder;
  }
}
