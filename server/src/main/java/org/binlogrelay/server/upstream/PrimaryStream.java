package org.binlogrelay.server.upstream;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.BinlogEventDecoder;
import org.binlogrelay.protocol.event.ChecksumAlgorithm;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.RotateEvent;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.replication.RegisterReplicaCommand;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection to the primary, from the TCP connect to the end of its dump stream:
 *
 * <ol>
 *   <li>handshake and authentication ({@link PrimaryConnection}); the flavour is chosen from the
 *       handshake and must match the store's;
 *   <li>session set-up, as a replica does: the primary's {@code server_id} must differ from the
 *       relay's; {@code @master_binlog_checksum} takes the primary's {@code binlog_checksum} (so
 *       the primary sends the checksums, which are verified and stored);
 *       {@code @master_heartbeat_period} in nanoseconds; the flavour's variables;
 *   <li>COM_REGISTER_SLAVE with the relay's server_id and report host and port ({@code SHOW
 *       REPLICAS} lists a replica only after it);
 *   <li>semi-sync, if configured and the primary has it: the session variable that makes the
 *       primary's dump thread add the semi-sync header to each event packet;
 *   <li>the start ({@link ResumePlan}): where the store ends, by position if this primary wrote the
 *       stored files, else by GTID into files of the relay's naming; for an empty store, the
 *       configured {@link StartPosition}; a primary that lacks stored transactions is refused;
 *   <li>the dump request, then every packet through {@link EventIngest} until something fails; with
 *       semi-sync, an {@link AckSender} acknowledges the flagged events once the store has made
 *       them durable.
 * </ol>
 *
 * {@link #run()} only ends by throwing; {@link #abort()} (any thread) closes the sockets to end it.
 */
final class PrimaryStream {
  private static final Logger LOG = LoggerFactory.getLogger(PrimaryStream.class);

  /** What the replicator hears from a session, on the session's thread. */
  interface Progress {
    /** Hears nothing (a connection that only checks the primary). */
    Progress NONE =
        new Progress() {
          @Override
          public void connected(PrimaryConnection connection, long primaryServerId) {}

          @Override
          public void streaming(String requested) {}
        };

    /** Authenticated and set up; about to register and request the dump. */
    void connected(PrimaryConnection connection, long primaryServerId);

    /**
     * The primary's binlog variables ({@link #PRIMARY_VARIABLES}), name in lower case to value,
     * read right after {@link #connected}.
     */
    default void primaryVariables(Map<String, String> variables) {}

    /**
     * The first packet of the dump was accepted; {@code requested} says what the dump asked for.
     */
    void streaming(String requested);
  }

  /**
   * The primary's variables the relay reports as its own where it mirrors the primary (its binlog
   * format, row image, checksum, sizes ...; docs/downstream.md), read at each connection.
   */
  static final String PRIMARY_VARIABLES =
      "SHOW GLOBAL VARIABLES WHERE Variable_name LIKE 'binlog%' OR Variable_name"
          + " IN ('max_binlog_size', 'max_binlog_cache_size', 'max_binlog_stmt_cache_size', 'server_uuid')";

  private final UpstreamConfig config;
  private final BinlogStore store;
  private final IngestCounters counters;
  private final Time time;
  private final Progress progress;
  private final Set<Socket> sockets = new HashSet<>();
  private boolean aborted;
  private EventIngest ingest;

  PrimaryStream(
      UpstreamConfig config,
      BinlogStore store,
      IngestCounters counters,
      Time time,
      Progress progress) {
    this.config = config;
    this.store = store;
    this.counters = counters;
    this.time = time;
    this.progress = progress;
  }

  /** Runs the connection until it fails or is aborted; always throws. */
  void run() throws IOException {
    try (Configured c = openConfigured()) {
      PrimaryConnection connection = c.connection;
      progress.connected(connection, c.primaryServerId);
      progress.primaryVariables(primaryVariables(connection));
      boolean semiSync = config.semiSync() && requestSemiSync(c);
      connection.command(
          RegisterReplicaCommand.of(config.serverId(), config.reportHost(), config.reportPort())
              .encode(),
          "COM_REGISTER_SLAVE for server_id " + config.serverId());
      ResumePlan plan =
          ResumePlan.decide(
              store,
              connection,
              c.flavor,
              c.primaryServerId,
              config.serverId(),
              config.start(),
              new StartResolver(connection, c.flavor, this::locateGtidStart),
              this::storedGtids);
      AckSender acker =
          semiSync
              ? new AckSender(connection::sendAck, connection.address(), counters).start()
              : null;
      try {
        counters.semiSync = semiSync;
        ingest =
            new EventIngest(
                store,
                c.checksum,
                counters,
                time,
                connection.address(),
                plan.toString(),
                plan.storeEnd(),
                semiSync,
                plan.mapping(),
                (primaryEnd, storeEnd) -> acker.ackWhenDurable(primaryEnd, durable(storeEnd)));
        plan.requestDump(connection, c.flavor, config.serverId());
        connection.streamTimeout(config.deadAfter());
        LOG.info(
            "upstream {}: {} (server_id {}, connection {}{}): dump requested from {}{}",
            connection.address(),
            connection.serverVersion(),
            c.primaryServerId,
            connection.connectionId(),
            connection.tls() == null ? "" : ", " + connection.tls(),
            plan,
            semiSync ? ", semi-sync" : "");
        stream(connection, plan.toString(), acker);
      } finally {
        counters.semiSync = false;
        if (acker != null) {
          acker.close();
        }
      }
    }
  }

  /**
   * Checks, on a connection of its own, that this session's primary can continue the store:
   * reachable, authenticated, the store's flavour, another server_id than the relay's, and its
   * executed GTIDs contain the store's. On the store's writer thread (it calls {@link
   * BinlogStore#startStream()}).
   *
   * @throws FatalUpstreamException if the primary cannot continue the store, saying why
   * @throws IOException if it could not be asked
   */
  void verifyHistory() throws IOException {
    try (Configured c = openConfigured()) {
      Optional<Position> resume = store.startStream();
      Optional<StoreTail> tail =
          resume.isEmpty() ? Optional.empty() : StoreTail.read(store, resume.get());
      if (tail.isEmpty()) {
        return; // an empty store holds no history yet
      }
      GtidSet stored = storedGtids(tail.get().end());
      ResumePlan.requireHistory(
          c.connection.address(),
          c.primaryServerId,
          c.flavor,
          c.flavor.executedGtids(c.connection),
          stored);
    }
  }

  /** The primary's {@link #PRIMARY_VARIABLES}; a primary that refuses the statement gives none. */
  private Map<String, String> primaryVariables(PrimaryConnection connection) throws IOException {
    Map<String, String> values = new HashMap<>();
    try {
      for (List<String> row : connection.query(PRIMARY_VARIABLES).rows()) {
        if (row.size() >= 2 && row.get(0) != null) {
          values.put(row.get(0).toLowerCase(Locale.ROOT), row.get(1) == null ? "" : row.get(1));
        }
      }
    } catch (PrimaryErrorException e) {
      LOG.warn(
          "upstream {}: cannot read the primary's binlog variables ({}); the relay reports its defaults",
          connection.address(),
          e.getMessage());
    }
    return values;
  }

  /** Asks for semi-sync; false (and a warning) if the primary has no semi-sync source side. */
  private boolean requestSemiSync(Configured c) throws IOException {
    if (c.flavor.requestSemiSync(c.connection)) {
      return true;
    }
    LOG.warn(
        "upstream {}: semi-sync is configured but the primary ({}) has no semi-sync source side (no"
            + " rpl_semi_sync_source_enabled / rpl_semi_sync_master_enabled variable: install the plugin or component);"
            + " replicating asynchronously",
        c.connection.address(),
        c.connection.serverVersion());
    return false;
  }

  /**
   * Completes once {@code end} is durable. Unless the store forces every transaction anyway, asks
   * it to force now: the primary waits for this acknowledgement.
   */
  private CompletableFuture<Position> durable(Position end) {
    if (end == null) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Position> durable = store.whenDurable(end);
    if (!durable.isDone() && !store.config().syncPolicy().forcesEveryTransaction()) {
      store.sync();
    }
    return durable;
  }

  /**
   * The store's executed GTIDs once everything up to {@code end} (a boundary it wrote) is readable.
   */
  private GtidSet storedGtids(Position end) throws IOException {
    Position readable = store.readableEnd();
    if (readable == null || readable.isBefore(end)) {
      store.sync();
      try {
        store
            .readable()
            .whenReached(end)
            .get(config.connectTimeout().toMillis(), TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        throw new IOException(
            "binlog store "
                + store.directory()
                + " did not make "
                + end
                + " readable within "
                + config.connectTimeout().toMillis()
                + " ms (a slow disk force?)",
            e);
      } catch (ExecutionException e) {
        throw new FatalUpstreamException(
            "binlog store "
                + store.directory()
                + " failed before "
                + end
                + " became readable: "
                + e.getCause().getMessage(),
            e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException(
            "interrupted while waiting for the store to make " + end + " readable");
      }
    }
    return store.executedGtids();
  }

  /**
   * What this session did, for {@link ReconnectSchedule}: where it resumed, the end of the last
   * transaction it completed, and how long it streamed.
   *
   * @param streamed how long it streamed, measured by the caller
   */
  ReconnectSchedule.Attempt attempt(Duration streamed) {
    EventIngest i = ingest;
    return i == null
        ? new ReconnectSchedule.Attempt(null, null, streamed)
        : new ReconnectSchedule.Attempt(i.start(), i.completedEnd(), streamed);
  }

  /** Closes every socket of this session; {@link #run()} then fails. Any thread; idempotent. */
  void abort() {
    List<Socket> open;
    synchronized (sockets) {
      aborted = true;
      open = List.copyOf(sockets);
    }
    for (Socket s : open) {
      try {
        s.close();
      } catch (IOException e) {
        LOG.warn(
            "upstream {}:{}: closing a socket to stop failed: {}",
            config.host(),
            config.port(),
            e.toString());
      }
    }
  }

  private void stream(PrimaryConnection connection, String requested, AckSender acker)
      throws IOException {
    boolean first = true;
    while (true) {
      byte[] packet;
      try {
        packet = connection.readPacket();
      } catch (SocketTimeoutException e) {
        SocketTimeoutException dead =
            new SocketTimeoutException(
                "no event or heartbeat from primary "
                    + connection.address()
                    + " for "
                    + config.deadAfter().toMillis()
                    + " ms ("
                    + config.deadAfterHeartbeats()
                    + " heartbeat periods of "
                    + config.heartbeatPeriod().toMillis()
                    + " ms); the connection is dead (stream"
                    + " at "
                    + counters.position
                    + ")");
        dead.initCause(e);
        throw dead;
      }
      if (acker != null && SemiSyncPackets.restartsSequence(packet)) {
        connection.restartSequence();
      }
      ingest.accept(packet);
      if (acker != null && acker.failure() != null) {
        Throwable f = acker.failure();
        throw f instanceof IOException io ? io : new IOException(f.getMessage(), f);
      }
      if (first) {
        first = false;
        progress.streaming(requested);
      }
    }
  }

  /**
   * Asks the primary where a replica that executed {@code gtids} starts, on a connection of its
   * own: a GTID dump whose first event, the artificial ROTATE, names the file.
   */
  private Position locateGtidStart(String gtids) throws IOException {
    try (Configured c = openConfigured()) {
      c.flavor.requestGtidDump(c.connection, gtids, config.serverId());
      byte[] packet = c.connection.readPacket();
      if (ErrPacket.isErr(packet)) {
        throw PrimaryErrorException.of(
            "primary "
                + c.connection.address()
                + " cannot serve a replica that executed '"
                + gtids
                + "'",
            ErrPacket.decode(packet));
      }
      if (packet.length == 0 || packet[0] != 0) {
        throw new ProtocolException(
            "the GTID dump from " + c.connection.address() + " did not start with an event");
      }
      BinlogEventDecoder decoder =
          new BinlogEventDecoder(c.checksum, store.config().maxEventSize());
      BinlogEvent event = decoder.decode(packet, 1, packet.length - 1);
      if (event.type() != EventType.ROTATE
          || !event.header().hasFlag(EventHeader.LOG_EVENT_ARTIFICIAL_F)) {
        throw new ProtocolException(
            "the GTID dump from "
                + c.connection.address()
                + " started with "
                + event.header().typeName()
                + ", not the artificial ROTATE naming its file");
      }
      RotateEvent rotate = RotateEvent.parse(event, decoder.format());
      Position start = Position.startOf(rotate.nextFile());
      LOG.info(
          "upstream {}: a replica that executed '{}' starts at {}",
          c.connection.address(),
          gtids,
          start);
      return start;
    }
  }

  /**
   * Connects, authenticates and sets the session up as a replica (no registration, no dump yet).
   */
  private Configured openConfigured() throws IOException {
    Socket socket = new Socket();
    synchronized (sockets) {
      if (aborted) {
        throw new InterruptedIOException(
            "upstream connection to " + config.host() + ":" + config.port() + " stopped");
      }
      sockets.add(socket);
    }
    PrimaryConnection connection = null;
    try {
      connection = PrimaryConnection.open(socket, config, EventIngest.maxPacket(store));
      PrimaryFlavor flavor = PrimaryFlavor.of(connection.serverVersion());
      if (flavor.gtidFlavor() != store.flavor()) {
        throw new FatalUpstreamException(
            "primary "
                + connection.address()
                + " is "
                + connection.serverVersion()
                + " ("
                + flavor.gtidFlavor()
                + ") but the binlog store in "
                + store.directory()
                + " holds "
                + store.flavor()
                + " binlogs; point the relay at a "
                + store.flavor()
                + " primary or give it a new store");
      }
      ResultRows vars = connection.query("SELECT @@global.server_id, @@global.binlog_checksum");
      if (vars.isEmpty()) {
        throw new ProtocolException(
            "primary " + connection.address() + " returned no row for @@server_id");
      }
      long primaryServerId = Long.parseLong(vars.rows().get(0).get(0));
      if (primaryServerId == config.serverId()) {
        throw new FatalUpstreamException(
            "primary "
                + connection.address()
                + " has server_id "
                + primaryServerId
                + ", the same as the relay's: a replica's server_id must differ from its primary's and from every other"
                + " replica's; configure another server_id for the relay");
      }
      String checksumName = vars.rows().get(0).get(1);
      ChecksumAlgorithm checksum = checksum(checksumName, connection);
      connection.execute(
          "SET @master_binlog_checksum = '"
              + checksumName
              + "', @master_heartbeat_period = "
              + config.heartbeatPeriod().toNanos());
      flavor.prepareSession(connection, config);
      return new Configured(socket, connection, flavor, primaryServerId, checksum);
    } catch (IOException | RuntimeException e) {
      close(socket, connection, e);
      throw e;
    }
  }

  private static ChecksumAlgorithm checksum(String name, PrimaryConnection connection) {
    if ("CRC32".equalsIgnoreCase(name)) {
      return ChecksumAlgorithm.CRC32;
    }
    if ("NONE".equalsIgnoreCase(name)) {
      return ChecksumAlgorithm.OFF;
    }
    throw new FatalUpstreamException(
        "primary "
            + connection.address()
            + " has binlog_checksum '"
            + name
            + "'; the relay understands NONE and CRC32");
  }

  private void close(Socket socket, PrimaryConnection connection, Throwable failure) {
    try {
      if (connection != null) {
        connection.close();
      } else {
        socket.close();
      }
    } catch (IOException e) {
      failure.addSuppressed(e);
    } finally {
      synchronized (sockets) {
        sockets.remove(socket);
      }
    }
  }

  /** An authenticated, set-up connection and what the set-up learnt. */
  private final class Configured implements AutoCloseable {
    final Socket socket;
    final PrimaryConnection connection;
    final PrimaryFlavor flavor;
    final long primaryServerId;
    final ChecksumAlgorithm checksum;

    Configured(
        Socket socket,
        PrimaryConnection connection,
        PrimaryFlavor flavor,
        long primaryServerId,
        ChecksumAlgorithm checksum) {
      this.socket = socket;
      this.connection = connection;
      this.flavor = flavor;
      this.primaryServerId = primaryServerId;
      this.checksum = checksum;
    }

    @Override
    public void close() throws IOException {
      try {
        connection.close();
      } finally {
        synchronized (sockets) {
          sockets.remove(socket);
        }
      }
    }
  }
}
