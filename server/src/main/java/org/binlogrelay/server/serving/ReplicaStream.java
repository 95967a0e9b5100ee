package org.binlogrelay.server.serving;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.EventLoop;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.protocol.event.ChecksumAlgorithm;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.packet.EofPacket;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.server.downstream.DumpRequest;
import org.binlogrelay.storage.BinlogFileName;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.read.BinlogReadException;
import org.binlogrelay.storage.read.BinlogReader;
import org.binlogrelay.storage.read.CaughtUp;
import org.binlogrelay.storage.read.EventBatch;
import org.binlogrelay.storage.read.FileChange;
import org.binlogrelay.storage.read.MariadbStartException;
import org.binlogrelay.storage.read.ReadResult;
import org.binlogrelay.storage.read.Skipped;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One replica's binlog stream: the relay's dump thread, as a state machine on the connection's event loop.
 *
 * <pre>
 *   STARTING  flavour's plan; a store not there yet (empty, behind the replica) is asked again every 100 ms
 *             until {@link ServingConfig#startWait()}, then refused with the server's error
 *   SENDING   artificial ROTATE(start file, requested position), the file's FORMAT_DESCRIPTION when starting
 *             inside it, then the reader's batches; at each next file an artificial ROTATE(file, 4) and its
 *             FORMAT_DESCRIPTION (first event of the batch). Pulls from the reader only while the channel is
 *             writable; resumes on channelWritabilityChanged
 *   CAUGHT_UP nothing readable: a non-blocking dump (flag 0x01 or server_id 0) ends with EOF; a blocking one
 *             waits on the reader's future (no thread, no polling) and sends a heartbeat per idle period
 *   CLOSED    reader closed and unregistered; the connection is closed
 * </pre>
 *
 * Errors go to the replica as the server's ERR packet (1236 and the server's text, with its coordinates
 * suffix once a file is open), then the connection closes. A replica whose connection stays unwritable for
 * {@link ServingConfig#stalledReplicaTimeout()} is dropped. Time comes from the event loop's ticker (Netty's
 * {@code EmbeddedChannel} drives it in tests).
 *
 * <p>Not thread-safe: every method runs on the channel's event loop ({@link #replacedBy} hops there).
 */
final class ReplicaStream {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaStream.class);
  private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
  /**
   * Bytes of skipped transactions (a GTID start reading what the replica has) after which a pump gives the event
   * loop back and continues in a new task, so that one replica's start does not hold up the loop's other replicas.
   */
  private static final long YIELD_AFTER_SKIPPING = 16L << 20;
  private static final long STORE_FAILED_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);
  /** MySQL's MYSQL_ERRMSG_SIZE minus the terminator: the longest error text a server sends. */
  private static final int MAX_ERROR_TEXT = 511;
  /** SERVER_STATUS_AUTOCOMMIT, the status of a dump connection's final EOF. */
  private static final int EOF_STATUS = 0x0002;

  private final Channel channel;
  private final EventLoop loop;
  private final DumpRequest request;
  private final ReplicaSettings settings;
  private final DumpFlavor flavor;
  private final BinlogStore store;
  private final ServingConfig config;
  private final DumpRegistry registry;
  private final String name;
  private final long id;
  private final DumpStatus.Replica replica;
  private final Optional<String> replicaKey;
  private final PacketSequence sequence;
  private final boolean nonBlocking;
  private final long startDeadline;

  private StartPlan.Stream plan;
  private BinlogReader reader;
  private BatchWriter writer;
  private ChecksumAlgorithm checksum;
  private final ReplicaProgress progress;
  private final FlowControl flow;
  private boolean firstFile = true;
  private Position pendingSkipHeartbeat;
  private volatile boolean waiting;
  private long waitGeneration;
  private ScheduledFuture<?> heartbeatTimer;
  private ScheduledFuture<?> retryTimer;
  private boolean pumping;
  private boolean pumpAgain;
  private volatile boolean closed;
  private volatile boolean paused;
  private boolean released;
  private Position lastObserved;
  /**
   * Where the reader reads batches (one read per batch, {@link BinlogReader#poll(java.nio.ByteBuffer)}): a pooled
   * direct buffer of {@link ServingConfig#maxBatchBytes()}, held while the stream is sending and given back when it
   * catches up, so an idle replica holds none. Free again once the writer finished the batch read into it.
   */
  private ByteBuf readBuffer;
  /** {@link DumpFlavor#drops} per event type code, decided once per stream (the request and settings are fixed). */
  private boolean[] dropped;

  ReplicaStream(Channel channel, int firstSequenceId, DumpRequest request, ReplicaSettings settings, DumpFlavor flavor,
      BinlogStore store, ServingConfig config, DumpRegistry registry, String name, long id,
      DumpStatus.Replica replica) {
    this.channel = channel;
    this.loop = channel.eventLoop();
    this.request = request;
    this.settings = settings;
    this.flavor = flavor;
    this.store = store;
    this.config = config;
    this.registry = registry;
    this.name = name;
    this.id = id;
    this.replica = replica;
    this.replicaKey = flavor.replicaKey(request, settings);
    this.sequence = new PacketSequence(firstSequenceId);
    this.nonBlocking = request.nonBlocking() || request.serverId() == 0;
    this.checksum = settings.checksum();
    this.progress = new ReplicaProgress(now());
    this.startDeadline = now() + config.startWait().toNanos();
    this.flow = new FlowControl(channel, config.stalledReplicaTimeout(), this::pump, this::stalled, this::release);
  }

  /** Takes the connection over and starts; on the event loop. */
  void start() {
    channel.pipeline().addLast("binlog-stream", flow);
    channel.closeFuture().addListener(f -> loop.execute(this::release));
    registry.admit(this, replicaKey).ifPresent(older -> older.replacedBy(this));
    resolve();
  }

  String name() {
    return name;
  }

  long id() {
    return id;
  }

  /**
   * Stops sending, heartbeats included, as a stalled network would; what was handed to the socket still goes out.
   * Any thread.
   */
  void pause() {
    loop.execute(() -> {
      if (!closed && !paused) {
        paused = true;
        LOG.info("Dump {}: paused at {}", name, progress.sent());
      }
    });
  }

  /** Continues a paused stream exactly where it stopped. Any thread. */
  void resume() {
    loop.execute(() -> {
      if (!closed && paused) {
        paused = false;
        LOG.info("Dump {}: resumed at {}", name, progress.sent());
        pump();
      }
    });
  }

  /** Closes the replica's connection (the admin API's kick). Any thread. */
  void kick() {
    loop.execute(() -> {
      if (!closed) {
        LOG.info("Dump {}: disconnected on request at {}", name, progress.sent());
        registry.dropped(DumpRegistry.Drop.KICKED);
        close();
      }
    });
  }

  /** A snapshot for monitoring; any thread (the fields read may be a moment old). */
  DumpStatus status() {
    DumpStatus.State state;
    if (closed) {
      state = DumpStatus.State.CLOSED;
    } else if (paused) {
      state = DumpStatus.State.PAUSED;
    } else if (reader == null) {
      state = DumpStatus.State.STARTING;
    } else if (!channel.isWritable()) {
      state = DumpStatus.State.BLOCKED;
    } else {
      state = waiting ? DumpStatus.State.CAUGHT_UP : DumpStatus.State.SENDING;
    }
    return progress.status(name, state, id, replica, flow.unwritableEpisodes(), paused);
  }

  /** A newer dump of the same replica arrived: this one ends with the server's error. Any thread. */
  void replacedBy(ReplicaStream newer) {
    loop.execute(() -> {
      if (!closed) {
        LOG.info("Dump {}: replaced by {} (same replica); ending this one", name, newer.name);
        fail(flavor.replaced(reader != null));
      }
    });
  }

  // ---- starting ---------------------------------------------------------------------------------------------

  private void resolve() {
    retryTimer = null;
    if (closed) {
      return;
    }
    StartPlan next;
    try {
      next = flavor.plan(request, settings, store, config);
    } catch (BinlogReadException e) {
      next = new StartPlan.Retry("the store to settle after " + e.getMessage(),
          DumpFailure.plain(MysqlDumpFlavor.FILE_NOT_FOUND));
    } catch (IOException | RuntimeException e) {
      LOG.warn("Dump {}: cannot look up where to start in {}", name, store.directory(), e);
      fail(DumpFailure.plain("binlog-relay cannot read its binlog store to find where to start: " + e));
      return;
    }
    if (next instanceof StartPlan.Refuse refuse) {
      fail(refuse.failure());
    } else if (next instanceof StartPlan.Retry retry) {
      if (nonBlocking || now() >= startDeadline) {
        LOG.info("Dump {}: still waiting for {} after {} ms; refusing", name, retry.waitingFor(),
            config.startWait().toMillis());
        fail(retry.failure());
      } else {
        LOG.debug("Dump {}: waiting for {}", name, retry.waitingFor());
        retryTimer = loop.schedule(this::resolve, RETRY_NANOS, TimeUnit.NANOSECONDS);
      }
    } else {
      begin((StartPlan.Stream) next);
    }
  }

  private void begin(StartPlan.Stream stream) {
    plan = stream;
    Position start = stream.start();
    try {
      if (stream.failAfterFormatDescription() == null) {
        reader = BinlogReader.open(store, start, config.readerOptions(name).withFilter(stream.filter()));
        writer = new BatchWriter(channel, sequence, config.zeroCopy() && channel.pipeline().get(SslHandler.class) == null,
            config, new EventCallbacks());
      }
      writeEvent(ArtificialEvents.rotate(config.serverId(), start.file(), stream.rotatePosition(),
          checksum.isChecksummed()), false);
      if (start.offset() > BinlogFileName.FIRST_EVENT_OFFSET || stream.failAfterFormatDescription() != null) {
        sendFormatDescription(start.file());
      }
      if (stream.failAfterFormatDescription() != null) {
        fail(stream.failAfterFormatDescription());
        return;
      }
      LOG.info("Dump {}: streaming from {} ({}{})", name, start, request.command(),
          stream.filter() == null ? "" : ", skipping what the replica has");
      pump();
    } catch (BinlogReadException e) {
      if (reader == null && e.reason() == BinlogReadException.Reason.REMOVED) {
        plan = null;
        resolve();
        return;
      }
      fail(readFailure(e));
    } catch (DumpFailure f) {
      fail(f);
    } catch (IOException | RuntimeException e) {
      fail(unexpected(e));
    }
  }

  /** The FORMAT_DESCRIPTION of a file the stream starts inside, read on its own and sent before the events. */
  private void sendFormatDescription(String file) throws IOException, DumpFailure {
    byte[] event = FormatDescriptionReader.read(store, file);
    progress.passed(file, BinlogFileName.FIRST_EVENT_OFFSET, event.length, false, false, now());
    ByteBuf buffer = Unpooled.wrappedBuffer(event);
    new EventCallbacks().formatDescription(buffer, 0, event.length, file);
    writeEvent(event, false);
    progress.passed(file, BinlogFileName.FIRST_EVENT_OFFSET, event.length, true, false, now());
  }

  // ---- streaming --------------------------------------------------------------------------------------------

  /** Sends what is readable while the channel is writable; re-entrant calls (writability events) loop here. */
  private void pump() {
    if (pumping) {
      pumpAgain = true;
      return;
    }
    pumping = true;
    try {
      do {
        pumpAgain = false;
        pumpOnce();
        progress.publish(now());
        if (!closed) {
          channel.flush();
          observeSent();
        }
      } while (pumpAgain && !closed);
    } finally {
      pumping = false;
    }
  }

  /** Tells the observer how far the stream handed events to the socket, once per move. */
  private void observeSent() {
    Position sent = progress.sent();
    if (sent != null && !sent.equals(lastObserved)) {
      try {
        config.observer().sent(lastObserved, sent);
      } catch (RuntimeException e) {
        LOG.warn("Dump {}: the dump observer failed; ignored", name, e);
      }
      lastObserved = sent;
    }
  }

  private void pumpOnce() {
    if (closed || reader == null) {
      return;
    }
    long skippedHere = 0;
    try {
      while (!closed && !paused && channel.isWritable()) {
        if (writer.active()) {
          writer.writeNext();
          progress.publish(now());
          continue;
        }
        if (plan.watch() != null) {
          plan.watch().beforePoll();
        }
        ReadResult result = reader.poll(readBuffer().nioBuffer(0, readBuffer.capacity()));
        if (result instanceof EventBatch batch) {
          stopWaiting();
          sendPendingSkipHeartbeat();
          writer.start(batch, batch.inMemory() != null ? readBuffer : null);
        } else if (result instanceof Skipped skipped) {
          stopWaiting();
          skipped(skipped);
          skippedHere += skipped.to() - skipped.from();
          if (skippedHere >= YIELD_AFTER_SKIPPING) {
            loop.execute(this::pump); // the other connections of this event loop get their turn first
            return;
          }
        } else if (result instanceof FileChange change) {
          stopWaiting();
          sendPendingSkipHeartbeat();
          firstFile = false;
          progress.fileChanged();
          writeEvent(ArtificialEvents.rotate(config.serverId(), change.to(), BinlogFileName.FIRST_EVENT_OFFSET,
              checksum.isChecksummed()), false);
        } else {
          caughtUp((CaughtUp) result);
          return;
        }
      }
    } catch (DumpFailure f) {
      fail(f);
    } catch (BinlogReadException e) {
      fail(readFailure(e));
    } catch (MariadbStartException e) {
      fail(DumpFailure.plain(e.getMessage()));
    } catch (IOException | RuntimeException e) {
      fail(unexpected(e));
    }
  }

  private void skipped(Skipped skipped) {
    progress.skipped(skipped.file(), skipped.to());
    if (plan.heartbeatAfterSkip()) {
      pendingSkipHeartbeat = skipped.end();
      long period = settings.heartbeatPeriodNanos();
      if (period > 0 && now() - progress.lastSentNanos() >= period) {
        sendPendingSkipHeartbeat();
      }
    }
    MariadbPositionWatch watch = plan.watch();
    if (watch != null) {
      for (MariadbPositionWatch.Marker m = watch.peekMarker(); m != null && m.skipped()
          && m.file().equals(skipped.file()) && m.groupEnd() <= skipped.to(); m = watch.peekMarker()) {
        watch.takeMarker();
        writeEvent(ArtificialEvents.gtidList(config.serverId(), m.state(), m.groupEnd(),
            checksum.isChecksummed()), false);
      }
    }
  }

  private void sendPendingSkipHeartbeat() {
    if (pendingSkipHeartbeat != null) {
      Position at = pendingSkipHeartbeat;
      pendingSkipHeartbeat = null;
      sendHeartbeat(at);
    }
  }

  private void caughtUp(CaughtUp caughtUp) {
    giveBackReadBuffer();
    sendPendingSkipHeartbeat();
    if (nonBlocking) {
      LOG.info("Dump {}: sent everything up to {}; ending the non-blocking dump with EOF", name,
          caughtUp.position());
      ByteBuf eof = sequence.packet(channel.alloc(), new EofPacket(0, EOF_STATUS).encode());
      closed = true;
      channel.writeAndFlush(eof).addListener(ChannelFutureListener.CLOSE);
      release();
      return;
    }
    if (waiting) {
      return;
    }
    waiting = true;
    long generation = ++waitGeneration;
    reader.whenReadable().whenComplete((ignored, failure) -> loop.execute(() -> readable(generation, failure)));
    scheduleHeartbeat(generation);
  }

  private void readable(long generation, Throwable failure) {
    if (closed || generation != waitGeneration || !waiting) {
      return;
    }
    waiting = false;
    if (failure == null) {
      pump();
    } else if (store.readable().isStopped()) {
      LOG.info("Dump {}: the binlog store closed; closing the replica's connection", name);
      close();
    } else {
      LOG.warn("Dump {}: the binlog store failed ({}); keeps serving what is readable, retrying in 1 s", name,
          store.failure().map(Throwable::toString).orElse(String.valueOf(failure)));
      loop.schedule(this::pump, STORE_FAILED_RETRY_NANOS, TimeUnit.NANOSECONDS);
    }
  }

  private void stopWaiting() {
    waiting = false;
    waitGeneration++;
    if (heartbeatTimer != null) {
      heartbeatTimer.cancel(false);
      heartbeatTimer = null;
    }
  }

  private void scheduleHeartbeat(long generation) {
    long period = settings.heartbeatPeriodNanos();
    if (period <= 0) {
      return;
    }
    if (heartbeatTimer != null) {
      heartbeatTimer.cancel(false);
    }
    heartbeatTimer = loop.schedule(() -> {
      heartbeatTimer = null;
      if (!closed && waiting && generation == waitGeneration) {
        // After a real ROTATE the replica already names the next file; a heartbeat for this one would be an error.
        if (!progress.afterRotate() && !paused) {
          sendHeartbeat(reader.position());
          channel.flush();
        }
        scheduleHeartbeat(generation);
      }
    }, period, TimeUnit.NANOSECONDS);
  }

  private void sendHeartbeat(Position at) {
    writeEvent(flavor.heartbeat(request, config.serverId(), at.file(), at.offset(), checksum.isChecksummed()),
        true);
  }

  /** Writes a whole event as its packet(s): one the stream made up, or a patched FORMAT_DESCRIPTION. */
  private void writeEvent(byte[] event, boolean heartbeat) {
    ByteBuf out = channel.alloc().directBuffer(event.length + PacketSequence.HEADER + 1);
    sequence.event(out, Unpooled.wrappedBuffer(event), 0, event.length);
    channel.write(out);
    progress.artificialSent(now(), heartbeat);
  }

  private void stalled() {
    if (!closed) {
      registry.dropped(DumpRegistry.Drop.STALLED);
      LOG.warn("Dump {}: the replica has not read for {} s ({} bytes waiting to be sent, stream at {}); dropping it",
          name, config.stalledReplicaTimeout().toSeconds(), flow.pendingBytes(),
          reader == null ? "-" : reader.position());
      close();
    }
  }

  // ---- ending -----------------------------------------------------------------------------------------------

  private DumpFailure readFailure(BinlogReadException e) {
    LOG.warn("Dump {}: reading the stored binlog failed at {}: {}", name, e.position(), e.getMessage());
    if (e.position() != null) {
      progress.failedReadingAt(e.position().offset());
    }
    return flavor.readFailure(e);
  }

  private DumpFailure unexpected(Exception e) {
    LOG.error("Dump {}: stream failed", name, e);
    return DumpFailure.whileReading("binlog-relay failed while sending the binlog: " + e);
  }

  /** Sends the failure as the server's ERR packet and closes the connection once it is written. */
  private void fail(DumpFailure failure) {
    if (closed) {
      return;
    }
    String text = failure.getMessage();
    if (failure.withCoordinates()) {
      text = flavor.withCoordinates(text, coordinates());
    }
    if (text.length() > MAX_ERROR_TEXT) {
      text = text.substring(0, MAX_ERROR_TEXT);
    }
    LOG.info("Dump {}: ending with error {}: {}", name, failure.code(), text);
    ByteBuf err = sequence.packet(channel.alloc(), new ErrPacket(failure.code(), "HY000", text).encode());
    closed = true;
    channel.writeAndFlush(err).addListener(ChannelFutureListener.CLOSE);
    release();
  }

  private Coordinates coordinates() {
    String current = reader != null ? reader.position().file() : plan != null ? plan.start().file() : "";
    return progress.coordinates(request.binlogFile(), request.position(), current);
  }

  private void close() {
    closed = true;
    release();
    channel.close();
  }

  /** Lets go of everything; idempotent. */
  private void release() {
    if (!released) {
      released = true;
      progress.publish(now());
      DumpStatus last = progress.status(name, DumpStatus.State.CLOSED, id, replica, 0, false);
      LOG.info("Dump {}: ended after {} events, {} bytes, {} transactions sent", name, last.eventsSent(),
          last.bytesSent(), last.transactionsSent());
    }
    closed = true;
    if (retryTimer != null) {
      retryTimer.cancel(false);
    }
    if (heartbeatTimer != null) {
      heartbeatTimer.cancel(false);
    }
    flow.cancel();
    if (writer != null) {
      writer.release();
    }
    if (reader != null) {
      reader.close();
    }
    giveBackReadBuffer();
    registry.remove(this, replicaKey);
  }

  /** The read buffer, taken from the pool if the stream holds none. */
  private ByteBuf readBuffer() {
    if (readBuffer == null) {
      readBuffer = channel.alloc().directBuffer(config.maxBatchBytes(), config.maxBatchBytes());
    }
    return readBuffer;
  }

  /** Back to the pool; only when no batch read into it is being written (caught up, or the stream ends). */
  private void giveBackReadBuffer() {
    if (readBuffer != null && (writer == null || !writer.active())) {
      readBuffer.release();
      readBuffer = null;
    }
  }

  private static boolean startsTransaction(int eventType) {
    return eventType == EventType.GTID.code() || eventType == EventType.ANONYMOUS_GTID.code()
        || eventType == EventType.GTID_TAGGED.code() || eventType == EventType.MARIADB_GTID.code();
  }

  private long now() {
    return loop.ticker().nanoTime();
  }

  @Override
  public String toString() {
    return name;
  }

  /** What the writer asks of the stream, per event. */
  private final class EventCallbacks implements BatchWriter.Listener {
    @Override
    public void formatDescription(ByteBuf buffer, int index, int size, String file) throws DumpFailure {
      int changes = plan.formatDescription().changes(firstFile);
      ChecksumAlgorithm fileChecksum = FormatDescriptionPatch.apply(buffer, index, size, changes,
          flavor.noFormatDescription());
      if (!flavor.acceptsChecksum(settings, fileChecksum)) {
        progress.passed(file, BinlogFileName.FIRST_EVENT_OFFSET, size, false, false, now());
        LOG.info("Dump {}: the replica did not say it handles checksums ({}), but {} is {}", name,
            settings.checksumAware() ? settings.checksum() : "no @master_binlog_checksum", file, fileChecksum);
        throw DumpFailure.whileReading(flavor.checksumRefusal());
      }
      checksum = fileChecksum;
    }

    @Override
    public boolean drops(int eventType) {
      if (dropped == null) {
        dropped = new boolean[256];
        for (int type = 0; type < dropped.length; type++) {
          dropped[type] = flavor.drops(type, request, settings);
        }
      }
      return dropped[eventType & 0xff];
    }

    @Override
    public void passed(String file, long start, int size, int eventType, boolean sent) {
      progress.passed(file, start, size, sent, eventType == EventType.ROTATE.code(), startsTransaction(eventType));
    }

    @Override
    public boolean addsEvents() {
      return plan.watch() != null;
    }

    @Override
    public List<byte[]> after(String file, long start, int size) {
      MariadbPositionWatch watch = plan.watch();
      if (watch == null) {
        return List.of();
      }
      List<byte[]> out = new ArrayList<>(1);
      for (MariadbPositionWatch.Marker m = watch.peekMarker(); m != null && !m.skipped() && m.file().equals(file)
          && m.groupStart() == start; m = watch.peekMarker()) {
        watch.takeMarker();
        out.add(ArtificialEvents.gtidList(config.serverId(), m.state(), start + size, checksum.isChecksummed()));
      }
      return out;
    }

    @Override
    public void regionWritten(long bytes, ChannelFuture done) {
      flow.regionWritten(bytes, done);
    }
  }
}
