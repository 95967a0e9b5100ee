package org.binlogrelay.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.binlogrelay.archive.Archive;
import org.binlogrelay.archive.ArchiveConfig;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.server.admin.AdminApi;
import org.binlogrelay.server.admin.AdminConfig;
import org.binlogrelay.server.admin.AdminServer;
import org.binlogrelay.server.downstream.AnnouncedVersion;
import org.binlogrelay.server.downstream.ReplicaServer;
import org.binlogrelay.server.downstream.schema.ForwardingSchemaStatements;
import org.binlogrelay.server.downstream.schema.SchemaSource;
import org.binlogrelay.server.downstream.sql.BinlogListing;
import org.binlogrelay.server.downstream.sql.SchemaStatements;
import org.binlogrelay.server.downstream.sql.ServerIdentity;
import org.binlogrelay.server.downstream.sql.SqlFlavor;
import org.binlogrelay.server.downstream.sql.SystemVariable;
import org.binlogrelay.server.downstream.sql.VariableType;
import org.binlogrelay.server.metrics.RelayMetrics;
import org.binlogrelay.server.metrics.UpstreamSuccession;
import org.binlogrelay.server.serving.StoreDumpHandler;
import org.binlogrelay.server.upstream.SourceRefusedException;
import org.binlogrelay.server.upstream.SourceSwitch;
import org.binlogrelay.server.upstream.UpstreamConfig;
import org.binlogrelay.server.upstream.UpstreamReplicator;
import org.binlogrelay.storage.BinlogSource;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.RecoveryReport;
import org.binlogrelay.storage.StoreConfig;
import org.binlogrelay.storage.StoreException;
import org.binlogrelay.storage.StoreHealth;
import org.binlogrelay.storage.StoreListener;
import org.binlogrelay.storage.Time;
import org.binlogrelay.storage.read.ReaderRegistry;
import org.binlogrelay.storage.retention.ArchiveRules;
import org.binlogrelay.storage.retention.Retention;
import org.binlogrelay.storage.retention.RetentionRun;
import org.binlogrelay.storage.tier.TieredBinlog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay: the composition root that wires a {@link BinlogStore}, the {@link UpstreamReplicator}
 * that fills it from the primary, the {@link ReplicaServer} that serves it, and {@link Retention}.
 *
 * <pre>
 *   start():  flavour ({@link FlavorDetection}) -> open the store (recovery) -> open and start the archive (if
 *             configured: uploads closed files; replicas then read the store and the archive before it,
 *             {@link TieredBinlog}) -> listen for replicas (with the
 *             schema source, if configured: {@link SchemaSource}, connected on demand)
 *             -> admin HTTP server (if configured) -> follow the primary (if one is configured)
 *             -> schedule retention and the metrics sampler
 *   close():  stop accepting replicas (and close their connections) -> close the schema source's connections
 *             -> stop the admin server (waits for the commands in work) -> stop archiving (the uploader
 *             persists where it is) -> stop retention -> stop upstream
 *             -> close the store (final force)
 * </pre>
 *
 * Metrics ({@link RelayMetrics}) are registered before the store opens its writer to the upstream,
 * so that every transaction boundary is seen; the admin API ({@link RelayAdmin}) may stop, start
 * and switch the upstream, which {@link UpstreamControl} carries out (a new {@link
 * UpstreamReplicator} replaces one that stopped or FAILED), and purge, which {@link ManualPurge}
 * carries out, never during the store's close.
 *
 * <p>A replica port that is taken fails the start before anything connects upstream. An upstream
 * that fails (for example error 1236: the primary purged what the store needs next) leaves the
 * relay serving what it stored; the log says what to do. Time comes from the {@link Time} given
 * (store, upstream, retention ages, the downstream server's clock); retention runs on one scheduled
 * thread, {@code relay-scheduler}.
 *
 * <p>States ({@link State}): {@code NEW -start-> STARTING -> RUNNING -close-> CLOSING -> CLOSED}; a
 * failed start goes to CLOSED, a close before the start from NEW to CLOSING. {@link #setState} is
 * the one place the state changes (under one lock, {@code lock}); it rejects other moves and logs
 * one line per change. Upstream start and change and purge need RUNNING.
 *
 * <p>Thread-safety: {@link #start()} once, from one thread. {@link #close()} from any thread, at
 * any time (a shutdown hook): during the flavour detection it ends the wait for the primary;
 * otherwise it waits for the start to finish and then closes. The accessors are thread-safe and
 * return null/empty before the part is started.
 */
public final class Relay implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Relay.class);
  private static final Duration SCHEDULER_STOP_TIMEOUT = Duration.ofSeconds(30);

  /** Where the relay is in its life; {@link #setState} is the one place it changes. */
  public enum State {
    NEW,
    STARTING,
    RUNNING,
    CLOSING,
    CLOSED;

    /** The moves the class comment draws; a close before the start goes NEW -> CLOSING. */
    boolean canMoveTo(State next) {
      return switch (this) {
        case NEW -> next == STARTING || next == CLOSING;
        case STARTING -> next == RUNNING || next == CLOSED;
        case RUNNING -> next == CLOSING;
        case CLOSING -> next == CLOSED;
        case CLOSED -> false;
      };
    }

    /**
     * Refuses a command that needs the relay RUNNING (upstream start and change, purge), naming
     * this state.
     *
     * @throws IllegalStateException unless RUNNING
     */
    void requireRunning() {
      if (this != RUNNING) {
        throw new IllegalStateException("the relay is " + name().toLowerCase(Locale.ROOT));
      }
    }
  }

  private final RelayConfig config;
  private final Time time;
  private final CountDownLatch stopRequested = new CountDownLatch(1);
  private final CountDownLatch closed = new CountDownLatch(1);
  private final Object lock = new Object();

  private volatile State state = State.NEW;
  private volatile FlavorDetection flavor;
  private volatile BinlogStore store;

  /** The archive ({@code --archive}); null without one or before the store is open. */
  private volatile Archive archive;

  /** What replicas and listings read: the store, or the store and the archive before it. */
  private volatile BinlogSource binlogs;

  private volatile ReaderRegistry readers;
  private volatile ReplicaServer replicaServer;
  private volatile SchemaSource schemaSource;

  /**
   * The upstream replicators, one after another, and the commands that start, stop and switch them.
   */
  private final UpstreamControl upstream;

  private volatile Retention retention;

  /** Purges through the admin API; null before retention is scheduled. */
  private volatile ManualPurge purges;

  private ScheduledExecutorService scheduler;
  private RetentionSchedule retentionSchedule;
  private volatile boolean closedCleanly = true;
  private volatile StoreDumpHandler dumps;
  private volatile BinlogListing listing;
  private volatile RelayMetrics metrics;
  private volatile AdminServer adminServer;
  private final UpstreamSuccession upstreams = new UpstreamSuccession();
  private final long startedAtMillis;

  /**
   * @param time the clock for the store, the upstream state, retention and the downstream server
   */
  public Relay(RelayConfig config, Time time) {
    this.config = Objects.requireNonNull(config, "config");
    this.time = Objects.requireNonNull(time, "time");
    this.upstream = new UpstreamControl(config.upstream(), time, upstreams, this::state);
    this.startedAtMillis = time.milliseconds();
  }

  /**
   * Starts every part, in order. On failure, whatever was started is closed again and the relay is
   * CLOSED.
   *
   * @throws RelayStartException saying what failed and what to do (flavour unknown or primary
   *     unreachable for the detection, store unreadable or corrupt, replica port taken, certificate
   *     unreadable, ...)
   * @throws IllegalStateException if called twice
   */
  public void start() throws RelayStartException {
    synchronized (lock) {
      if (state != State.NEW) {
        throw new IllegalStateException("the relay was already started (it is " + state + ")");
      }
      setState(State.STARTING, "data directory " + config.dataDir().toAbsolutePath());
    }
    try {
      FlavorDetection detected = FlavorDetection.detect(config, time, stopRequested);
      synchronized (lock) {
        if (stopRequested.getCount() == 0) {
          throw new RelayStartException("stopped before the relay finished starting");
        }
        flavor = detected;
        LOG.info(
            "acting as {}, learnt from {}", detected.flavor().productName(), detected.source());
        metrics =
            new RelayMetrics(
                time, () -> store, this::retentions, upstreams, () -> dumps, () -> replicaServer);
        openStore(detected.flavor());
        openArchive();
        listenForReplicas(detected.flavor());
        serveAdmin();
        followPrimary();
        scheduleRetention();
        scheduleMetrics();
        setState(State.RUNNING, summary());
      }
    } catch (RelayStartException | RuntimeException e) {
      synchronized (lock) {
        closeParts();
        setState(State.CLOSED, "start failed");
        closed.countDown();
      }
      throw e;
    }
  }

  private void openStore(GtidFlavor gtidFlavor) throws RelayStartException {
    StoreConfig storeConfig =
        StoreConfig.builder(config.dataDir(), gtidFlavor)
            .syncPolicy(config.syncPolicy())
            .time(time)
            .build();
    try {
      store = BinlogStore.open(storeConfig);
    } catch (IOException | UncheckedIOException e) {
      throw new RelayStartException(
          "cannot open the binlog store in "
              + config.dataDir().toAbsolutePath()
              + ": "
              + e.getMessage()
              + "; check that the directory is writable and the disk is not full",
          e);
    } catch (StoreException e) {
      throw new RelayStartException(
          "cannot open the binlog store in "
              + config.dataDir().toAbsolutePath()
              + ": "
              + e.getMessage(),
          e);
    }
    metrics.storeListeners().forEach(store::addListener);
    store.addListener(
        new StoreListener() {
          @Override
          public void fileCreated(String name) {
            LOG.info("binlog rotated: now storing {}", name);
          }

          @Override
          public void failed(Throwable cause) {
            // the store logged the error itself (ERROR, with what to do); this is the relay's state
            // change
            LOG.warn(
                "store stopped accepting writes ({}); replicas are still served what is stored",
                cause.getMessage());
          }

          @Override
          public void resumed(StoreHealth health) {
            LOG.info("store accepts writes again ({} resume(s) so far)", health.resumes());
          }
        });
    RecoveryReport report = store.recoveryReport();
    LOG.info(
        "store {} opened ({} sync) in {} ms: {} file(s), ends at {}, next upstream position {}, {}",
        config.dataDir().toAbsolutePath(),
        config.syncPolicy(),
        report.took().toMillis(),
        store.files().size(),
        report.end() == null ? "(empty)" : report.end(),
        report.nextUpstreamPosition() == null ? "(none yet)" : report.nextUpstreamPosition(),
        report.clean()
            ? "nothing to repair"
            : report.truncations().size()
                + " truncation(s) and "
                + report.actions().size()
                + " repair(s), logged above");
    StoreHealth health = store.health();
    if (!health.accepting()) {
      // e.g. started on a full disk: recovery wrote nothing and left its repairs for when writes
      // work again
      LOG.warn(
          "store opened not accepting writes ({}: {}); replicas are served what it holds, and the upstream"
              + " retries the store until {} takes writes again",
          health.condition(),
          health.lastError(),
          config.dataDir().toAbsolutePath());
    }
  }

  /**
   * Opens and starts the archive over the open store, if one is configured; serving reads through
   * it from then on. No network call: an unreachable archive is retried by the uploader.
   */
  private void openArchive() throws RelayStartException {
    ArchiveConfig archiveConfig = config.archive();
    if (archiveConfig == null) {
      binlogs = store;
      return;
    }
    Archive opened;
    try {
      opened = Archive.open(archiveConfig, store, time);
    } catch (RuntimeException e) {
      throw new RelayStartException(
          "cannot open the archive " + archiveConfig.location() + ": " + e.getMessage(), e);
    }
    archive = opened;
    metrics.archive(opened);
    opened.deferUploadsWhileCatchingUp(
        () -> upstream.replicator().map(UpstreamReplicator::secondsBehind).orElse(Double.NaN));
    try {
      opened.start();
    } catch (IOException | UncheckedIOException e) {
      throw new RelayStartException(
          "cannot start archiving to "
              + archiveConfig.location()
              + ": "
              + e.getMessage()
              + "; check that "
              + config.dataDir().toAbsolutePath().resolve("archive")
              + " is writable",
          e);
    }
    binlogs = new TieredBinlog(store, opened.tier(), archiveConfig.prefetchFiles());
    LOG.info(
        "archiving closed binlogs to {} ({}; credentials from {}; objects {}), serving archived"
            + " files from it",
        archiveConfig.location(),
        archiveConfig.s3().endpoint().map(e -> "endpoint " + e).orElse("AWS"),
        archiveConfig.s3().credentialsSource(),
        archiveConfig.codec());
  }

  /**
   * The primary's version: from its greeting or the stored files; null if neither told it
   * (--flavor, empty).
   */
  private String upstreamVersion() {
    if (flavor.serverVersion() != null) {
      return flavor.serverVersion();
    }
    try {
      return StoredServerVersion.of(config.dataDir()).orElse(null);
    } catch (IOException e) {
      LOG.warn(
          "cannot read the stored binlogs' server version ({}); announcing the default version",
          e.getMessage());
      return null;
    }
  }

  private void listenForReplicas(GtidFlavor gtidFlavor) throws RelayStartException {
    readers = new ReaderRegistry();
    ServingWiring serving =
        ServingWiring.over(
            store,
            binlogs,
            archive,
            readers,
            config.downstream().serverId(),
            metrics.dumpObserver(),
            time,
            config.downstream().sharedBatches());
    dumps = serving.dumpHandler();
    listing = serving.listing();
    SqlFlavor dialect = SqlFlavor.of(gtidFlavor);
    String version = AnnouncedVersion.choose(null, upstreamVersion(), dialect);
    LOG.info("announcing server version '{}' to replicas", version);
    SchemaStatements schema = SchemaStatements.off(dialect.productName());
    if (config.schemaSource() != null) {
      schemaSource = new SchemaSource(config.schemaSource(), time);
      schema = new ForwardingSchemaStatements(schemaSource);
      LOG.info(
          "{}: statements that read table schemas are forwarded to it for accounts with SCHEMA_READ,"
              + " connecting when first asked",
          config.schemaSource());
    } else {
      LOG.info(
          "no schema source: statements that read table schemas get error 1235 (see --schema-source)");
    }
    try {
      replicaServer =
          ReplicaServer.start(
              config
                  .downstream()
                  .toConfig(
                      dialect,
                      version,
                      ownVariables(
                          dialect, config.downstream().toConfig(dialect, version).identity())),
              serving.dumpHandler(),
              serving.listing(),
              schema,
              time,
              new UpstreamReport(this::upstream, () -> store, serving.listing(), time),
              UpstreamReport.dumps(() -> dumps));
    } catch (UncheckedIOException e) {
      throw new RelayStartException(
          e.getMessage() + "; choose another --port or --bind-address", e);
    } catch (IllegalArgumentException e) {
      throw new RelayStartException("cannot serve replicas: " + e.getMessage(), e);
    }
  }

  /**
   * The binlog variables that describe the relay's own storage rather than the primary's
   * (docs/downstream.md): expiry from the retention policy, {@code sync_binlog} from the sync
   * policy.
   */
  private List<SystemVariable> ownVariables(SqlFlavor dialect, ServerIdentity identity) {
    Set<String> known = new HashSet<>();
    dialect.variables(identity, BinlogListing.EMPTY).forEach(v -> known.add(v.name()));
    long expire = config.retention().maxAge().toSeconds();
    boolean purges =
        expire > 0 || config.retention().maxTotalBytes() > 0 || config.retention().maxFiles() > 0;
    String sync = config.syncPolicy().forcesEveryTransaction() ? "1" : "0";
    return List.of(
            SystemVariable.global(
                "binlog_expire_logs_seconds", VariableType.UNSIGNED, Long.toString(expire)),
            SystemVariable.global(
                "binlog_expire_logs_auto_purge", VariableType.BOOLEAN, purges ? "1" : "0"),
            SystemVariable.global(
                "expire_logs_days",
                VariableType.STRING,
                String.format(Locale.ROOT, "%.6f", expire / 86400.0)),
            SystemVariable.global("sync_binlog", VariableType.UNSIGNED, sync))
        .stream()
        .filter(v -> known.contains(v.name()))
        .toList();
  }

  private void serveAdmin() throws RelayStartException {
    AdminConfig admin = config.admin();
    if (admin == null) {
      LOG.info("admin API and /metrics off (--admin-port 0)");
      return;
    }
    try {
      adminServer =
          AdminServer.start(
              admin,
              new AdminApi(new RelayAdmin(this, time, admin.commandTimeout()), admin.token()));
    } catch (UncheckedIOException e) {
      throw new RelayStartException(
          e.getMessage() + "; choose another --admin-port or --admin-bind-address", e);
    }
  }

  private void scheduleMetrics() {
    scheduler.scheduleAtFixedRate(
        () -> {
          try {
            metrics.sample();
          } catch (RuntimeException e) {
            LOG.warn("sampling the replicas' lag failed; the next sample retries", e);
          }
        },
        0,
        1,
        TimeUnit.SECONDS);
  }

  private void followPrimary() {
    Archive a = archive;
    if (a == null) {
      upstream.follow(store);
    } else {
      // an empty store continues the archive (ArchiveStart), found when the upstream connects
      upstream.follow(store, new ArchiveStart(a));
    }
  }

  /**
   * Stops following the primary; the replicator's thread has ended when this returns true.
   *
   * @param timeout how long to wait for the replicator's thread
   * @throws IllegalStateException if no primary is configured
   */
  boolean stopUpstream(Duration timeout) throws InterruptedException {
    return upstream.stop(timeout);
  }

  /**
   * Follows the primary again with a new replicator, after a stop or a failure ({@link
   * UpstreamControl#start}).
   *
   * @throws IllegalStateException if no primary is configured, the relay is not running, or the
   *     replicator still runs
   */
  void startUpstream() {
    upstream.start();
  }

  /**
   * Follows {@code next} from now on ({@link UpstreamControl#change}): switched by GTID while the
   * replicator runs, else a new replicator on it.
   *
   * @return the switch, or {@code null} when a new replicator was started
   * @throws IllegalStateException if no primary is configured or the relay is not running
   */
  SourceSwitch changeUpstream(UpstreamConfig next, Duration timeout)
      throws SourceRefusedException, TimeoutException, InterruptedException {
    return upstream.change(next, timeout);
  }

  /** The upstream configuration now (after a change: the new source's); null without a primary. */
  UpstreamConfig upstreamConfig() {
    return upstream.config();
  }

  /**
   * Purges through the admin API, with the configured retention's rules (or, without one, rules
   * that keep everything but what is asked): the files before {@code firstKept}.
   *
   * @throws IllegalStateException if the relay is not running (a purge never overlaps the store's
   *     close)
   * @throws IllegalArgumentException if the store holds no {@code firstKept}
   */
  RetentionRun purge(String firstKept, boolean force) throws IOException {
    ManualPurge p = purges;
    if (p == null) {
      // made when the start schedules retention, just before RUNNING: the relay is starting, or its
      // start failed
      state.requireRunning();
      throw new IllegalStateException("the relay is starting");
    }
    return p.purge(firstKept, force);
  }

  private List<Retention> retentions() {
    ManualPurge p = purges;
    return p == null ? List.of() : p.retentions();
  }

  private void scheduleRetention() {
    scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread thread = new Thread(r, "relay-scheduler");
              thread.setDaemon(true);
              return thread;
            });
    if (config.retention().maxAge().isZero()
        && config.retention().maxTotalBytes() == 0
        && config.retention().maxFiles() == 0) {
      LOG.info("retention off: every stored file is kept");
      purges = new ManualPurge(store, readers, time, null, this::state, archiveRules());
      return;
    }
    Archive a = archive;
    ArchiveRules rules = archiveRules();
    retention = new Retention(store, config.retention(), readers, time, rules);
    purges = new ManualPurge(store, readers, time, retention, this::state, rules);
    retentionSchedule =
        RetentionSchedule.start(retention, store, scheduler, config.retentionInterval());
    if (a != null) {
      // a file may go once it is archived: retention runs again then
      RetentionSchedule schedule = retentionSchedule;
      a.addListener((record, sent) -> schedule.runSoon());
      LOG.info("retention removes only archived files (and runs again when one is verified)");
    }
    LOG.info(
        "retention at each rotation and every {} s: {}",
        config.retentionInterval().toSeconds(),
        describe(config));
  }

  /** Retention's view of the archive: which files are archived; none without an archive. */
  private ArchiveRules archiveRules() {
    Archive a = archive;
    return a == null ? ArchiveRules.none() : ArchiveRules.of(a.gate());
  }

  private static String describe(RelayConfig c) {
    StringBuilder s = new StringBuilder();
    if (!c.retention().maxAge().isZero()) {
      s.append("files older than ").append(c.retention().maxAge().toSeconds()).append(" s");
    }
    if (c.retention().maxTotalBytes() > 0) {
      s.append(s.isEmpty() ? "" : ", ")
          .append("oldest files beyond ")
          .append(c.retention().maxTotalBytes())
          .append(" bytes");
    }
    if (c.retention().maxFiles() > 0) {
      s.append(s.isEmpty() ? "" : ", ")
          .append("oldest files beyond ")
          .append(c.retention().maxFiles())
          .append(" files");
    }
    return "removes "
        + s
        + (c.retention().purgeFilesInUse() ? "" : ", except files replicas still read");
  }

  private String summary() {
    return flavor.flavor().productName()
        + " relay, replicas on "
        + replicaServer.address()
        + " (server_id "
        + config.downstream().serverId()
        + "), "
        + upstream
            .replicator()
            .map(r -> "following " + r.config().host() + ":" + r.config().port())
            .orElse("no primary");
  }

  /**
   * Stops everything, in order: replicas, retention, upstream, store. Idempotent; never throws (a
   * part that fails to stop is logged and {@link #closedCleanly()} turns false). Waits for a start
   * under way.
   */
  @Override
  public void close() {
    stopRequested.countDown();
    synchronized (lock) {
      if (state == State.CLOSED || state == State.CLOSING) {
        return;
      }
      if (state == State.RUNNING || state == State.NEW) {
        setState(State.CLOSING, "stopping replicas, retention, upstream, then the store");
        closeParts();
        setState(State.CLOSED, "stopped");
        closed.countDown();
        return;
      }
    }
    // STARTING, outside the lock: the flavour detection sees stopRequested and the start cleans up.
    awaitClosed(Duration.ofSeconds(60));
  }

  /**
   * Closes whatever was started, in shutdown order. Holds {@link #lock}; the state is no longer
   * RUNNING, so no admin command starts a replicator or a purge any more (they check it under the
   * locks of {@link UpstreamControl} and {@link ManualPurge}, which the upstream and store steps
   * take). The admin server closes after the replica server, so that {@code /health} answers DOWN
   * meanwhile; its close waits for the commands in work.
   */
  private void closeParts() {
    if (replicaServer != null) {
      step("stop serving replicas", replicaServer::close);
    }
    if (schemaSource != null) {
      step("close the schema source's connections", schemaSource::close);
    }
    if (adminServer != null) {
      step("stop the admin server", adminServer::close);
    }
    if (archive != null) {
      step("stop archiving", archive::close);
    }
    if (retentionSchedule != null) {
      step("stop retention", retentionSchedule::close);
    }
    if (scheduler != null) {
      step(
          "stop the scheduler",
          () -> {
            scheduler.shutdown();
            if (!scheduler.awaitTermination(
                SCHEDULER_STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
              throw new IllegalStateException(
                  "a retention run did not end within " + SCHEDULER_STOP_TIMEOUT);
            }
          });
    }
    step("stop upstream", upstream::close);
    if (store != null) {
      step(
          "close the store",
          () -> {
            ManualPurge p = purges;
            if (p != null) {
              p.closeStore();
            } else {
              store.close();
            }
            LOG.info(
                "store {} closed at {}", config.dataDir().toAbsolutePath(), store.durableEnd());
          });
    }
    if (metrics != null) {
      step("close the metrics", metrics::close);
    }
  }

  private interface Step {
    void run() throws Exception;
  }

  private void step(String what, Step step) {
    try {
      step.run();
    } catch (InterruptedException e) {
      closedCleanly = false;
      Thread.currentThread().interrupt();
      LOG.error("interrupted while trying to {}", what);
    } catch (Exception e) {
      closedCleanly = false;
      LOG.error("could not {}: {}", what, e.toString(), e);
    }
  }

  /**
   * The one place the relay's state changes; rejects a move the class comment does not draw. Under
   * {@link #lock}.
   */
  private void setState(State next, String detail) {
    if (!state.canMoveTo(next)) {
      throw new IllegalStateException("the relay cannot move from " + state + " to " + next);
    }
    state = next;
    LOG.info("relay {}: {}", next.name().toLowerCase(Locale.ROOT), detail);
  }

  /**
   * Waits until the relay is CLOSED (after {@link #close()} or a failed start); false on timeout.
   */
  public boolean awaitClosed(Duration timeout) {
    try {
      return closed.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Waits until the relay is CLOSED. */
  public void awaitClosed() throws InterruptedException {
    closed.await();
  }

  /** False if a part failed to stop when the relay was closed (see the log). */
  public boolean closedCleanly() {
    return closedCleanly;
  }

  public State state() {
    return state;
  }

  public RelayConfig config() {
    return config;
  }

  /**
   * The flavour the relay acts as, and how it was learnt; null before {@link #start()} settled it.
   */
  public FlavorDetection flavor() {
    return flavor;
  }

  /** The store; null before it was opened. */
  public BinlogStore store() {
    return store;
  }

  /** The archive; empty without {@code --archive} or before the store was opened. */
  public Optional<Archive> archive() {
    return Optional.ofNullable(archive);
  }

  /**
   * What replicas, listings and lookups read: the store, and with an archive the archived files
   * before it ({@link TieredBinlog}); null before the store was opened.
   */
  public BinlogSource binlogs() {
    return binlogs;
  }

  /** The upstream replicator; empty without a primary or before it was started. */
  public Optional<UpstreamReplicator> upstream() {
    return upstream.replicator();
  }

  /** The downstream server; null before it listens. */
  public ReplicaServer replicaServer() {
    return replicaServer;
  }

  /** The readers of the store that retention protects; null before the store was opened. */
  public ReaderRegistry readers() {
    return readers;
  }

  /**
   * Retention, for its counters and {@code PURGE BINARY LOGS}; empty when no limit is configured.
   */
  public Optional<Retention> retention() {
    return Optional.ofNullable(retention);
  }

  /** What SHOW BINARY LOGS and the GTID variables answer from; null before replicas are served. */
  BinlogListing listing() {
    return listing;
  }

  /** The dumps being served; null before replicas are served. */
  public StoreDumpHandler dumps() {
    return dumps;
  }

  /** The relay's meters; null before the start settled the flavour. */
  public RelayMetrics metrics() {
    return metrics;
  }

  /** The admin HTTP server; null when off or before it listens. */
  public AdminServer adminServer() {
    return adminServer;
  }

  /** When the relay was made, epoch milliseconds by its clock. */
  long startedAtMillis() {
    return startedAtMillis;
  }
}
