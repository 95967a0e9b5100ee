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
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.binlogrelay.protocol.event.ChecksumAlgorithm;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.packet.EofPacket;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.server.downstream.DumpRequest;
import org.binlogrelay.storage.BinlogFileName;
import org.binlogrelay.storage.BinlogSource;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.read.BinlogReadException;
import org.binlogrelay.storage.read.BinlogReader;
import org.binlogrelay.storage.read.CaughtUp;
import org.binlogrelay.storage.read.EventBatch;
import org.binlogrelay.storage.read.FileChange;
import org.binlogrelay.storage.read.MariadbStartException;
import org.binlogrelay.storage.read.ReadResult;
import org.binlogrelay.storage.read.Skipped;
import org.binlogrelay.storage.tier.ArchiveFetchPending;
import org.binlogrelay.storage.tier.TieredBinlog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One replica's binlog stream: the relay's dump thread, as a state machine on the connection's
 * event loop.
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
 * The same states are {@link Phase}; {@link #moveTo} is the only place that changes it, and it
 * refuses the moves the diagram does not have (STARTING to SENDING or CLOSED; SENDING and CAUGHT_UP
 * to each other or CLOSED; nothing out of CLOSED). Pausing ({@link #pause}) is not a state of the
 * stream but the operator's switch over it: a paused stream keeps its state and sends nothing. What
 * a flavour adds to the stream (MariaDB's fake GTID_LISTs) comes from the plan's {@link
 * PositionWatch}, so the stream has no MariaDB branch.
 *
 * <p>A blocking stream that caught up and sends the stored events unchanged (its transaction
 * filter, if any, can match nothing more; no events added or left out) joins its event loop's
 * {@link TailGroup} of the file when {@link ServingConfig#sharedBatches()} is on: while a member,
 * it stays CAUGHT_UP and the group writes each batch to its channel (read and framed once for all
 * members); it leaves the group, and reads on its own again from where it is, when its channel is
 * not writable as a batch comes, when it is paused, and at the end of the file (rotation is each
 * stream's own).
 *
 * <p>Errors go to the replica as the server's ERR packet (1236 and the server's text, with its
 * coordinates suffix once a file is open), then the connection closes. A replica whose connection
 * stays unwritable for {@link ServingConfig#stalledReplicaTimeout()} is dropped. Time comes from
 * the event loop's ticker (Netty's {@code EmbeddedChannel} drives it in tests).
 *
 * <p>Not thread-safe: every method runs on the channel's event loop ({@link #replacedBy} hops
 * there), except {@link #status()}, which reads the volatile state and pause switch from any
 * thread.
 */
final class ReplicaStream {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaStream.class);
  private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  /**
   * Bytes of skipped transactions (a GTID start reading what the replica has) after which a pump
   * gives the event loop back and continues in a new task, so that one replica's start does not
   * hold up the loop's other replicas.
   */
  private static final long YIELD_AFTER_SKIPPING = 16L << 20;

  /**
   * Rounds (fill the channel, flush) one {@link #pump} makes before the stream lets the event
   * loop's other channels go first. A replica that reads as fast as the stream sends (a catch-up on
   * loopback) gives the channel its writability back inside each flush; without a bound the stream
   * would keep its loop until caught up, and the loop's other replicas (their writes, heartbeats
   * and logins) would wait: with hundreds of replicas catching up at once, some waited longer than
   * their read timeout. A round writes about one write-buffer high-water mark (64 KiB) or one
   * batch. The next turn runs in the loop's {@link CatchUpTurns}, a slice of catch-up work at a
   * time; the fewer rounds a turn, the shorter the wait of a replica that fell behind among
   * hundreds catching up (16 rounds a turn let one wait past a 10 s read timeout with 2,000
   * replicas on 8 loops; 2 did not).
   */
  static final int ROUNDS_PER_TURN = 2;

  private static final long STORE_FAILED_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** MySQL's MYSQL_ERRMSG_SIZE minus the terminator: the longest error text a server sends. */
  private static final int MAX_ERROR_TEXT = 511;

  /** SERVER_STATUS_AUTOCOMMIT, the status of a dump connection's final EOF. */
  private static final int EOF_STATUS = 0x0002;

  /** Where a stream is in its life (the class Javadoc's diagram). */
  enum Phase {
    /** Looking for its start; no reader yet. */
    STARTING,
    /** Reading and sending. */
    SENDING,
    /** Everything readable sent; waiting on the reader's future, heartbeats scheduled. */
    CAUGHT_UP,
    /** Ended: resources released, the connection closed or closing. */
    CLOSED;

    /** Whether the diagram has a move from this state to {@code next}. */
    boolean canMoveTo(Phase next) {
      return switch (this) {
        case STARTING -> next == SENDING || next == CLOSED;
        case SENDING -> next == CAUGHT_UP || next == CLOSED;
        case CAUGHT_UP -> next == SENDING || next == CLOSED;
        case CLOSED -> false;
      };
    }
  }

  private final Channel channel;
  private final EventLoop loop;
  private final DumpRequest request;
  private final ReplicaSettings settings;
  private final DumpFlavor flavor;
  private final BinlogSource store;
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

  /** Written on the event loop by {@link #moveTo} only; volatile for {@link #status()}. */
  private volatile Phase state = Phase.STARTING;

  /**
   * The reader future the stream waits on while CAUGHT_UP (a completion of an older wait is
   * ignored).
   */
  private CompletableFuture<Void> readableWait;

  private ScheduledFuture<?> heartbeatTimer;
  private ScheduledFuture<?> retryTimer;

  /**
   * The archived file the stream waits for (its start, or the next file at a file change), null
   * when it waits for none; {@link #fetchDeadline} bounds the wait ({@link
   * ServingConfig#fetchTimeout()}). On the event loop.
   */
  private String fetching;

  private long fetchDeadline;

  /** Ends the dump when the fetch of {@link #fetching} takes too long. */
  private ScheduledFuture<?> fetchTimer;

  /** The wait for a fetch at the start now (a completion of an older wait is ignored). */
  private Object startFetchWait;

  /**
   * Re-entrancy guard of {@link #pump()}: a pump runs, and whether a nested call asked for another
   * round.
   */
  private boolean pumping;

  private boolean pumpAgain;

  /** The operator's switch ({@link #pause}, {@link #resume}); volatile for {@link #status()}. */
  private volatile boolean paused;

  private Position lastObserved;

  /** The shared tail serving this stream while it is a member, null while it reads on its own. */
  private TailGroup group;

  private final GroupMember member = new GroupMember();

  /** Whether the flavour leaves out no event type for this replica; decided at the first ask. */
  private Boolean dropsNothing;

  /**
   * Where the reader reads batches (one read per batch, {@link
   * BinlogReader#poll(java.nio.ByteBuffer)}): a pooled direct buffer of {@link
   * ServingConfig#maxBatchBytes()}, held while the stream is sending and given back when it catches
   * up, so an idle replica holds none. Free again once the writer finished the batch read into it.
   */
  private ByteBuf readBuffer;

  /**
   * {@link DumpFlavor#drops} per event type code, decided once per stream (the request and settings
   * are fixed).
   */
  private boolean[] dropped;

  ReplicaStream(
      Channel channel,
      int firstSequenceId,
      DumpRequest request,
      ReplicaSettings settings,
      DumpFlavor flavor,
      BinlogSource store,
      ServingConfig config,
      DumpRegistry registry,
      String name,
      long id,
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
    this.flow =
        new FlowControl(
            channel, config.stalledReplicaTimeout(), this::pump, this::stalled, this::release);
  }

  /** Takes the connection over and starts; on the event loop. */
  void start() {
    channel.pipeline().addLast("binlog-stream", flow);
    channel.closeFuture().addListener(f -> loop.execute(this::connectionClosed));
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
   * Stops sending, heartbeats included, as a stalled network would; what was handed to the socket
   * still goes out. Any thread.
   */
  void pause() {
    loop.execute(
        () -> {
          if (state != Phase.CLOSED && !paused) {
            paused = true;
            LOG.info("Dump {}: paused at {}", name, progress.sent());
            if (group != null) {
              TailGroup left = group;
              Position at = left.position();
              left.remove(member);
              member.left(at, null);
            }
          }
        });
  }

  /** Continues a paused stream exactly where it stopped. Any thread. */
  void resume() {
    loop.execute(
        () -> {
          if (state != Phase.CLOSED && paused) {
            paused = false;
            LOG.info("Dump {}: resumed at {}", name, progress.sent());
            pump();
          }
        });
  }

  /** Closes the replica's connection (the admin API's kick). Any thread. */
  void kick() {
    loop.execute(
        () -> {
          if (state != Phase.CLOSED) {
            LOG.info("Dump {}: disconnected on request at {}", name, progress.sent());
            registry.dropped(DumpRegistry.Drop.KICKED);
            close();
          }
        });
  }

  /**
   * A snapshot for monitoring; any thread (the state and pause switch are volatile, the progress
   * published by {@link ReplicaProgress}; they may be a moment old). A stream that is not closed
   * reports PAUSED while paused, and BLOCKED while started and its channel is not writable.
   */
  DumpStatus status() {
    Phase now = state;
    boolean pausedNow = paused;
    DumpStatus.State reported;
    if (now == Phase.CLOSED) {
      reported = DumpStatus.State.CLOSED;
    } else if (pausedNow) {
      reported = DumpStatus.State.PAUSED;
    } else if (now == Phase.STARTING) {
      reported = DumpStatus.State.STARTING;
    } else if (!channel.isWritable()) {
      reported = DumpStatus.State.BLOCKED;
    } else {
      reported = now == Phase.CAUGHT_UP ? DumpStatus.State.CAUGHT_UP : DumpStatus.State.SENDING;
    }
    return progress.status(name, reported, id, replica, flow.unwritableEpisodes(), pausedNow);
  }

  /**
   * A newer dump of the same replica arrived: this one ends with the server's error. Any thread.
   */
  void replacedBy(ReplicaStream newer) {
    loop.execute(
        () -> {
          if (state != Phase.CLOSED) {
            LOG.info("Dump {}: replaced by {} (same replica); ending this one", name, newer.name);
            fail(flavor.replaced(reader != null));
          }
        });
  }

  // ---- starting
  // ---------------------------------------------------------------------------------------------

  private void resolve() {
    retryTimer = null;
    if (state == Phase.CLOSED) {
      return;
    }
    StartPlan next;
    try {
      next = flavor.plan(request, settings, store, config);
    } catch (BinlogReadException e) {
      next =
          new StartPlan.Retry(
              "the store to settle after " + e.getMessage(),
              DumpFailure.plain(DumpFlavor.FILE_NOT_FOUND));
    } catch (ArchiveFetchPending pending) {
      awaitStartFetch(pending);
      return;
    } catch (IOException | RuntimeException e) {
      LOG.warn("Dump {}: cannot look up where to start in {}", name, store, e);
      fail(
          DumpFailure.plain(
              "binlog-relay cannot read its binlog store to find where to start: " + e));
      return;
    }
    if (next instanceof StartPlan.Refuse refuse) {
      fail(refuse.failure());
    } else if (next instanceof StartPlan.Retry retry) {
      if (nonBlocking || now() >= startDeadline) {
        LOG.info(
            "Dump {}: still waiting for {} after {} ms; refusing",
            name,
            retry.waitingFor(),
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
        reader =
            BinlogReader.open(store, start, config.readerOptions(name).withFilter(stream.filter()));
        moveTo(Phase.SENDING);
        writer =
            new BatchWriter(
                channel,
                sequence,
                config.zeroCopy() && channel.pipeline().get(SslHandler.class) == null,
                config,
                new EventCallbacks());
      }
      writeEvent(
          ArtificialEvents.rotate(
              config.serverId(), start.file(), stream.rotatePosition(), checksum.isChecksummed()),
          false);
      if (start.offset() > BinlogFileName.FIRST_EVENT_OFFSET
          || stream.failAfterFormatDescription() != null) {
        sendFormatDescription(start.file());
      }
      if (stream.failAfterFormatDescription() != null) {
        fail(stream.failAfterFormatDescription());
        return;
      }
      fetched();
      LOG.info(
          "Dump {}: streaming from {} ({}{})",
          name,
          start,
          request.command(),
          stream.filter() == null ? "" : ", skipping what the replica has");
      pump();
    } catch (BinlogReadException e) {
      if (reader == null && e.reason() == BinlogReadException.Reason.REMOVED) {
        plan = null;
        resolve();
        return;
      }
      fail(readFailure(e));
    } catch (ArchiveFetchPending pending) {
      if (reader == null && stream.failAfterFormatDescription() == null) {
        // nothing sent yet: the start file is archived and being fetched; plan again once it is
        plan = null;
        awaitStartFetch(pending);
      } else {
        fail(fetchFailure(pending.file(), pending.failure()));
      }
    } catch (DumpFailure f) {
      fail(f);
    } catch (IOException | RuntimeException e) {
      fail(unexpected(e));
    }
  }

  // ---- waiting for the archive
  // ------------------------------------------------------------------------------

  /**
   * The start needs an archived file that is being fetched: plans again once the fetch is over (not
   * before: no polling), or ends the dump with error 1236 if it failed or takes longer than {@link
   * ServingConfig#fetchTimeout()}. Non-blocking dumps wait too: the file exists, it is only not
   * local.
   */
  private void awaitStartFetch(ArchiveFetchPending pending) {
    Throwable failed = pending.failure();
    if (failed != null) {
      fail(fetchFailure(pending.file(), failed));
      return;
    }
    long left = startFetchWait(pending.file());
    if (left <= 0) {
      fail(fetchTimedOut(pending.file()));
      return;
    }
    LOG.info(
        "Dump {}: {} is archived; waiting for it to be fetched (at most {} ms more)",
        name,
        pending.file(),
        TimeUnit.NANOSECONDS.toMillis(left));
    Object token = new Object();
    startFetchWait = token;
    cancelFetchTimer();
    fetchTimer =
        loop.schedule(
            () -> {
              fetchTimer = null;
              if (state == Phase.STARTING && startFetchWait == token) {
                startFetchWait = null;
                fail(fetchTimedOut(pending.file()));
              }
            },
            left,
            TimeUnit.NANOSECONDS);
    pending
        .whenDone()
        .whenComplete(
            (ignored, failure) ->
                loop.execute(
                    () -> {
                      if (state != Phase.STARTING || startFetchWait != token) {
                        return;
                      }
                      startFetchWait = null;
                      cancelFetchTimer();
                      Throwable fetchFailed = pending.failure();
                      if (fetchFailed != null) {
                        fail(fetchFailure(pending.file(), fetchFailed));
                      } else {
                        resolve();
                      }
                    }));
  }

  /** Starts the fetch deadline of {@code file} if it is new; the nanoseconds left. */
  private long startFetchWait(String file) {
    if (!file.equals(fetching)) {
      fetching = file;
      fetchDeadline = now() + config.fetchTimeout().toNanos();
    }
    return fetchDeadline - now();
  }

  /**
   * The archived file the reader needs next at {@code at}, if it caught up at the end of a file
   * whose successor exists only in the archive (so it waits for that file's fetch, not for the
   * primary); null otherwise, and always without an archive.
   */
  private String archiveCrossing(Position at) {
    if (config.archiveLocation() == null || !(store instanceof TieredBinlog tiered)) {
      return null;
    }
    try {
      if (at.offset() < store.readableLength(at.file())) {
        return null;
      }
      String next = store.nextFile(at.file()).orElse(null);
      return next != null && tiered.store().file(next).isEmpty() ? next : null;
    } catch (NoSuchElementException | IllegalStateException e) {
      return null;
    }
  }

  /**
   * The reader finished a file and waits for the next one's fetch: waits like a caught-up stream
   * (the reader's {@link BinlogReader#whenReadable()} completes when the fetch is over),
   * non-blocking dumps included, and ends the dump with error 1236 once {@link
   * ServingConfig#fetchTimeout()} has passed.
   */
  private void awaitCrossingFetch(String file) {
    long left = startFetchWait(file);
    if (left <= 0) {
      fail(fetchTimedOut(file));
      return;
    }
    LOG.info(
        "Dump {}: finished {}; waiting for the archived {} to be fetched (at most {} ms more)",
        name,
        reader.position().file(),
        file,
        TimeUnit.NANOSECONDS.toMillis(left));
    moveTo(Phase.CAUGHT_UP);
    CompletableFuture<Void> wait = reader.whenReadable();
    readableWait = wait;
    cancelFetchTimer();
    fetchTimer =
        loop.schedule(
            () -> {
              fetchTimer = null;
              if (state == Phase.CAUGHT_UP && readableWait == wait) {
                fail(fetchTimedOut(file));
              }
            },
            left,
            TimeUnit.NANOSECONDS);
    wait.whenComplete((ignored, failure) -> loop.execute(() -> readable(wait, failure)));
    if (!nonBlocking) {
      scheduleHeartbeat();
    }
  }

  private void cancelFetchTimer() {
    if (fetchTimer != null) {
      fetchTimer.cancel(false);
      fetchTimer = null;
    }
  }

  /** The stream got past the file it waited for: no fetch is awaited any more. */
  private void fetched() {
    if (fetching != null) {
      LOG.debug("Dump {}: {} fetched from the archive", name, fetching);
      fetching = null;
      cancelFetchTimer();
    }
  }

  private DumpFailure fetchFailure(String file, Throwable cause) {
    Throwable why = cause;
    while ((why instanceof CompletionException || why instanceof ExecutionException)
        && why.getCause() != null) {
      why = why.getCause();
    }
    LOG.warn("Dump {}: fetching {} from the archive failed: {}", name, file, String.valueOf(why));
    fetching = null;
    cancelFetchTimer();
    return DumpFailure.plain(
        "binlog-relay could not fetch "
            + file
            + " from its archive "
            + config.archiveLocation()
            + ": "
            + (why == null ? "unknown cause" : why.getMessage() == null ? why : why.getMessage()));
  }

  private DumpFailure fetchTimedOut(String file) {
    return fetchFailure(
        file,
        new TimeoutException(
            "not fetched within "
                + config.fetchTimeout().toSeconds()
                + " s (--archive-fetch-timeout)"));
  }

  /**
   * The FORMAT_DESCRIPTION of a file the stream starts inside, read on its own and sent before the
   * events.
   */
  private void sendFormatDescription(String file) throws IOException, DumpFailure {
    byte[] event = FormatDescriptionReader.read(store, file);
    progress.passed(file, BinlogFileName.FIRST_EVENT_OFFSET, event.length, false, false, now());
    ByteBuf buffer = Unpooled.wrappedBuffer(event);
    new EventCallbacks().formatDescription(buffer, 0, event.length, file);
    writeEvent(event, false);
    progress.passed(file, BinlogFileName.FIRST_EVENT_OFFSET, event.length, true, false, now());
  }

  // ---- streaming
  // --------------------------------------------------------------------------------------------

  /**
   * Sends what is readable while the channel is writable; re-entrant calls (writability events)
   * loop here.
   */
  private void pump() {
    if (pumping) {
      pumpAgain = true;
      return;
    }
    pumping = true;
    try {
      int rounds = 0;
      do {
        pumpAgain = false;
        pumpOnce();
        progress.publish(now());
        if (state != Phase.CLOSED) {
          channel.flush();
          observeSent();
        }
        if (pumpAgain && state != Phase.CLOSED && ++rounds >= ROUNDS_PER_TURN) {
          // the loop's other channels first, then on from here in a slice of catch-up turns
          CatchUpTurns.of(loop).add(this::pump);
          return;
        }
      } while (pumpAgain && state != Phase.CLOSED);
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
    if (state == Phase.STARTING || state == Phase.CLOSED || group != null) {
      return;
    }
    long skippedHere = 0;
    try {
      while (state != Phase.CLOSED && !paused && channel.isWritable()) {
        if (writer.active()) {
          writer.writeNext();
          progress.publish(now());
          continue;
        }
        plan.watch().beforePoll();
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
            // the other connections of this event loop get their turn first
            CatchUpTurns.of(loop).add(this::pump);
            return;
          }
        } else if (result instanceof FileChange change) {
          stopWaiting();
          sendPendingSkipHeartbeat();
          firstFile = false;
          progress.fileChanged();
          writeEvent(
              ArtificialEvents.rotate(
                  config.serverId(),
                  change.to(),
                  BinlogFileName.FIRST_EVENT_OFFSET,
                  checksum.isChecksummed()),
              false);
        } else {
          caughtUp((CaughtUp) result);
          return;
        }
      }
    } catch (DumpFailure f) {
      fail(f);
    } catch (BinlogReadException e) {
      if (fetching != null && e.reason() == BinlogReadException.Reason.REMOVED) {
        fail(fetchFailure(fetching, e.getCause() != null ? e.getCause() : e));
      } else {
        fail(readFailure(e));
      }
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
    for (byte[] event :
        plan.watch()
            .afterSkipped(
                skipped.file(), skipped.to(), config.serverId(), checksum.isChecksummed())) {
      writeEvent(event, false);
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
    String crossing = archiveCrossing(caughtUp.position());
    if (crossing != null) {
      if (state != Phase.CAUGHT_UP) {
        awaitCrossingFetch(crossing);
      }
      return; // already waiting for it (a writability event pumped)
    }
    if (nonBlocking) {
      LOG.info(
          "Dump {}: sent everything up to {}; ending the non-blocking dump with EOF",
          name,
          caughtUp.position());
      end(sequence.packet(channel.alloc(), new EofPacket(0, EOF_STATUS).encode()));
      return;
    }
    if (state == Phase.CAUGHT_UP) {
      return;
    }
    moveTo(Phase.CAUGHT_UP);
    if (joinGroup(caughtUp.position())) {
      scheduleHeartbeat();
      return;
    }
    CompletableFuture<Void> wait = reader.whenReadable();
    readableWait = wait;
    wait.whenComplete((ignored, failure) -> loop.execute(() -> readable(wait, failure)));
    scheduleHeartbeat();
  }

  private void readable(CompletableFuture<Void> wait, Throwable failure) {
    if (state != Phase.CAUGHT_UP || wait != readableWait) {
      return;
    }
    moveTo(Phase.SENDING);
    if (failure == null) {
      pump();
    } else {
      waitFailed(failure);
    }
  }

  /** The store's future failed under a stream that waited for it (now SENDING). */
  private void waitFailed(Throwable failure) {
    if (store.readable().isStopped()) {
      LOG.info("Dump {}: the binlog store closed; closing the replica's connection", name);
      close();
    } else {
      LOG.warn(
          "Dump {}: the binlog store failed ({}); keeps serving what is readable, retrying in 1 s",
          name,
          store.failure().map(Throwable::toString).orElse(String.valueOf(failure)));
      loop.schedule(this::pump, STORE_FAILED_RETRY_NANOS, TimeUnit.NANOSECONDS);
    }
  }

  /** Something was read: a caught-up stream sends again. */
  private void stopWaiting() {
    fetched();
    if (state == Phase.CAUGHT_UP) {
      moveTo(Phase.SENDING);
    }
  }

  /**
   * Schedules the next heartbeat of a CAUGHT_UP stream; leaving CAUGHT_UP cancels it ({@link
   * #moveTo}).
   */
  private void scheduleHeartbeat() {
    scheduleHeartbeat(settings.heartbeatPeriodNanos());
  }

  private void scheduleHeartbeat(long delay) {
    long period = settings.heartbeatPeriodNanos();
    if (period <= 0) {
      return;
    }
    if (heartbeatTimer != null) {
      heartbeatTimer.cancel(false);
    }
    heartbeatTimer =
        loop.schedule(
            () -> {
              heartbeatTimer = null;
              if (state == Phase.CAUGHT_UP) {
                long idle = now() - progress.lastSentNanos();
                if (group != null && idle < period) {
                  // a group member stays CAUGHT_UP while batches go out: idle since the last one
                  scheduleHeartbeat(period - idle);
                  return;
                }
                // After a real ROTATE the replica already names the next file; a heartbeat for this
                // one would be an error.
                if (!progress.afterRotate() && !paused) {
                  sendHeartbeat(group != null ? group.position() : reader.position());
                  channel.flush();
                }
                scheduleHeartbeat();
              }
            },
            delay,
            TimeUnit.NANOSECONDS);
  }

  private void sendHeartbeat(Position at) {
    writeEvent(
        flavor.heartbeat(
            request, config.serverId(), at.file(), at.offset(), checksum.isChecksummed()),
        true);
  }

  /**
   * Writes a whole event as its packet(s): one the stream made up, or a patched FORMAT_DESCRIPTION.
   */
  private void writeEvent(byte[] event, boolean heartbeat) {
    ByteBuf out = channel.alloc().directBuffer(event.length + PacketSequence.HEADER + 1);
    sequence.event(out, Unpooled.wrappedBuffer(event), 0, event.length);
    channel.write(out);
    progress.artificialSent(now(), heartbeat);
  }

  private void stalled() {
    if (state != Phase.CLOSED) {
      registry.dropped(DumpRegistry.Drop.STALLED);
      LOG.warn(
          "Dump {}: the replica has not read for {} s ({} bytes waiting to be sent, stream at {}); dropping it",
          name,
          config.stalledReplicaTimeout().toSeconds(),
          flow.pendingBytes(),
          reader == null ? "-" : reader.position());
      close();
    }
  }

  // ---- ending
  // -----------------------------------------------------------------------------------------------

  private DumpFailure readFailure(BinlogReadException e) {
    LOG.warn(
        "Dump {}: reading the stored binlog failed at {}: {}", name, e.position(), e.getMessage());
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
    if (state == Phase.CLOSED) {
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
    end(sequence.packet(channel.alloc(), new ErrPacket(failure.code(), "HY000", text).encode()));
  }

  private Coordinates coordinates() {
    String current =
        reader != null ? reader.position().file() : plan != null ? plan.start().file() : "";
    return progress.coordinates(request.binlogFile(), request.position(), current);
  }

  /** Closes the connection now (kicked, stalled, the store closed). */
  private void close() {
    end(null);
  }

  /**
   * The stream's end: CLOSED, then {@code last} (the ERR or EOF that ends the dump) is sent and the
   * connection closed once it is written, or without {@code last} the connection is closed at once.
   */
  private void end(ByteBuf last) {
    moveTo(Phase.CLOSED);
    if (last != null) {
      channel.writeAndFlush(last).addListener(ChannelFutureListener.CLOSE);
      release();
    } else {
      release();
      channel.close();
    }
  }

  /** The connection closed (the replica left, or the stream closed it). */
  private void connectionClosed() {
    if (state != Phase.CLOSED) {
      moveTo(Phase.CLOSED);
    }
    release();
  }

  /**
   * The one place the state changes: refuses a move the diagram does not have, and does what
   * leaving or entering a state means (leaving CAUGHT_UP drops the wait and its heartbeats;
   * entering CLOSED logs the totals).
   */
  private void moveTo(Phase next) {
    Phase from = state;
    if (!from.canMoveTo(next)) {
      throw new IllegalStateException("Dump " + name + ": no move from " + from + " to " + next);
    }
    state = next;
    if (from == Phase.CAUGHT_UP) {
      readableWait = null;
      if (heartbeatTimer != null) {
        heartbeatTimer.cancel(false);
        heartbeatTimer = null;
      }
    }
    if (next == Phase.CLOSED) {
      progress.publish(now());
      DumpStatus last = progress.status(name, DumpStatus.State.CLOSED, id, replica, 0, false);
      LOG.info(
          "Dump {}: ended after {} events, {} bytes, {} transactions sent",
          name,
          last.eventsSent(),
          last.bytesSent(),
          last.transactionsSent());
    }
  }

  /**
   * Lets go of everything (timers, writer, reader, read buffer, registration); after CLOSED only;
   * idempotent.
   */
  private void release() {
    if (group != null) {
      group.remove(member);
      group = null;
    }
    cancelFetchTimer();
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
      int size = ReadBufferBudget.SHARED.take(config.maxBatchBytes());
      try {
        readBuffer = channel.alloc().directBuffer(size, size);
      } catch (RuntimeException | OutOfMemoryError e) {
        ReadBufferBudget.SHARED.giveBack(size);
        throw e;
      }
    }
    return readBuffer;
  }

  /**
   * Back to the pool; only when no batch read into it is being written (caught up, or the stream
   * ends).
   */
  private void giveBackReadBuffer() {
    if (readBuffer != null && (writer == null || !writer.active())) {
      ReadBufferBudget.SHARED.giveBack(readBuffer.capacity());
      readBuffer.release();
      readBuffer = null;
    }
  }

  // ---- shared tails
  // -----------------------------------------------------------------------------------------

  /**
   * Joins the loop's shared tail of {@code at}'s file if the stream may (see the class Javadoc);
   * whether it did. The stream is CAUGHT_UP at {@code at}.
   */
  private boolean joinGroup(Position at) {
    if (!config.sharedBatches()
        || paused
        || progress.afterRotate()
        || at.offset() <= BinlogFileName.FIRST_EVENT_OFFSET
        || (plan.filter() != null && plan.filter().mayMatch())
        || plan.watch().mayAddEvents()
        || !dropsNothing()) {
      return false;
    }
    try {
      group = registry.tails().join(member, loop, store, config, channel.alloc(), at);
    } catch (IOException | RuntimeException e) {
      LOG.debug("Dump {}: cannot open a shared tail at {}; reading on its own", name, at, e);
      group = null;
    }
    return group != null;
  }

  private boolean dropsNothing() {
    if (dropsNothing == null) {
      boolean none = true;
      for (int type = 0; type < 256 && none; type++) {
        none = !flavor.drops(type, request, settings);
      }
      dropsNothing = none;
    }
    return dropsNothing;
  }

  /**
   * Puts the stream's own reader at {@code at} (where the group left it): a new reader, unless the
   * old one is there already. False if the stream failed. The new reader has no transaction filter:
   * the stream joined only once its filter could not match any later transaction (MySQL: every GTID
   * of the replica's set was passed; MariaDB: every domain reached its position), and a GTID is
   * logged once, so no later file needs it either.
   */
  private boolean reposition(Position at) {
    if (reader.position().equals(at)) {
      return true;
    }
    BinlogReader moved;
    try {
      moved = BinlogReader.open(store, at, config.readerOptions(name));
    } catch (BinlogReadException e) {
      fail(readFailure(e));
      return false;
    } catch (IllegalArgumentException e) {
      fail(
          readFailure(
              new BinlogReadException(BinlogReadException.Reason.TRUNCATED, at, e.getMessage())));
      return false;
    } catch (IOException | RuntimeException e) {
      fail(unexpected(e));
      return false;
    }
    reader.close();
    reader = moved;
    return true;
  }

  /** The stream as a member of a {@link TailGroup}; on the event loop. */
  private final class GroupMember implements TailGroup.Member {
    @Override
    public int nextSequence() {
      return sequence.next();
    }

    @Override
    public boolean ready() {
      return state == Phase.CAUGHT_UP && !paused && channel.isWritable();
    }

    @Override
    public void deliver(ByteBuf framed, TailGroup.Run run) {
      if (state == Phase.CLOSED) {
        framed.release();
        return;
      }
      channel.write(framed);
      sequence.advance(run.frames());
      long now = now();
      progress.passedRun(
          run.file(),
          run.lastStart(),
          run.lastSize(),
          run.events(),
          run.bytes(),
          run.transactions(),
          run.lastRotate(),
          now);
      progress.publish(now);
      channel.flush();
      observeSent();
    }

    @Override
    public void left(Position at, Throwable waitFailure) {
      group = null;
      if (state != Phase.CAUGHT_UP || !reposition(at)) {
        return;
      }
      moveTo(Phase.SENDING);
      if (waitFailure == null) {
        loop.execute(ReplicaStream.this::pump);
      } else {
        waitFailed(waitFailure);
      }
    }
  }

  private static boolean startsTransaction(int eventType) {
    return eventType == EventType.GTID.code()
        || eventType == EventType.ANONYMOUS_GTID.code()
        || eventType == EventType.GTID_TAGGED.code()
        || eventType == EventType.MARIADB_GTID.code();
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
    public void formatDescription(ByteBuf buffer, int index, int size, String file)
        throws DumpFailure {
      int changes = plan.formatDescription().changes(firstFile);
      ChecksumAlgorithm fileChecksum =
          FormatDescriptionPatch.apply(buffer, index, size, changes, flavor.noFormatDescription());
      if (!flavor.acceptsChecksum(settings, fileChecksum)) {
        progress.passed(file, BinlogFileName.FIRST_EVENT_OFFSET, size, false, false, now());
        LOG.info(
            "Dump {}: the replica did not say it handles checksums ({}), but {} is {}",
            name,
            settings.checksumAware() ? settings.checksum() : "no @master_binlog_checksum",
            file,
            fileChecksum);
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
      progress.passed(
          file,
          start,
          size,
          sent,
          eventType == EventType.ROTATE.code(),
          startsTransaction(eventType));
    }

    @Override
    public boolean addsEvents() {
      return plan.watch().addsEvents();
    }

    @Override
    public List<byte[]> after(String file, long start, int size) {
      return plan.watch().after(file, start, size, config.serverId(), checksum.isChecksummed());
    }

    @Override
    public void regionWritten(long bytes, ChannelFuture done) {
      flow.regionWritten(bytes, done);
    }
  }
}
