package org.binlogrelay.e2e.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.HostAndPort;
import org.binlogrelay.e2e.servers.ServerFlavor;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.server.upstream.SourceSwitch;
import org.binlogrelay.server.upstream.UpstreamConfig;
import org.binlogrelay.server.upstream.UpstreamReplicator;
import org.binlogrelay.server.upstream.UpstreamState;
import org.binlogrelay.server.upstream.UpstreamStatus;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.FileVerification;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.StoreConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Test side: the relay's upstream half against one real primary, an {@link UpstreamReplicator}
 * writing into a {@link BinlogStore} in a directory of the test, with the checks a DBA would make:
 * the stored files are the primary's files byte for byte, and the store's executed GTIDs are the
 * primary's.
 */
final class UpstreamUnderTest implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(UpstreamUnderTest.class);

  /** Relay server_ids start here; the harness gives servers ids below 1000. */
  static final long RELAY_SERVER_ID = 9001;

  /**
   * The FORMAT_DESCRIPTION's flags byte: 4 bytes of magic number, then flags at 17 in the header.
   */
  private static final int IN_USE_FLAG_OFFSET = 4 + 17;

  private DatabaseServer primary;
  private HostAndPort via;
  private final Path directory;
  private final Consumer<UpstreamConfig.Builder> tweak;
  private BinlogStore store;
  private UpstreamReplicator replicator;
  private final List<UpstreamState> transitions = new ArrayList<>();

  private UpstreamUnderTest(
      DatabaseServer primary,
      HostAndPort via,
      Path directory,
      Consumer<UpstreamConfig.Builder> tweak) {
    this.primary = primary;
    this.via = via;
    this.directory = directory;
    this.tweak = tweak;
  }

  /** Opens a store in {@code directory} and starts a replicator following {@code primary}. */
  static UpstreamUnderTest follow(
      DatabaseServer primary, Path directory, Consumer<UpstreamConfig.Builder> tweak) {
    return follow(primary, primary.address(), directory, tweak);
  }

  /**
   * Like {@link #follow(DatabaseServer, Path, Consumer)}, connecting to {@code via} (a proxy)
   * instead.
   */
  static UpstreamUnderTest follow(
      DatabaseServer primary,
      HostAndPort via,
      Path directory,
      Consumer<UpstreamConfig.Builder> tweak) {
    UpstreamUnderTest relay = new UpstreamUnderTest(primary, via, directory, tweak);
    relay.openStore();
    relay.startReplicator();
    return relay;
  }

  static UpstreamUnderTest follow(DatabaseServer primary, Path directory) {
    return follow(primary, directory, b -> {});
  }

  /**
   * Opens a store in {@code directory} for following {@code primary}, without starting the
   * replicator: {@link #startReplicator} does (benchmarks that time the ingest alone).
   */
  static UpstreamUnderTest opened(DatabaseServer primary, Path directory) {
    UpstreamUnderTest relay = new UpstreamUnderTest(primary, primary.address(), directory, b -> {});
    relay.openStore();
    return relay;
  }

  UpstreamConfig config() {
    return configFor(primary, via);
  }

  /**
   * The relay's configuration (with the test's tweaks) for following {@code server} through {@code
   * address}.
   */
  UpstreamConfig configFor(DatabaseServer server, HostAndPort address) {
    UpstreamConfig.Builder builder =
        UpstreamConfig.builder(
                address.host(),
                address.port(),
                server.replicationCredentials().user(),
                server.replicationCredentials().password())
            .serverId(RELAY_SERVER_ID)
            .report("127.0.0.1", 13306)
            .heartbeatPeriod(Duration.ofMillis(500))
            .connectTimeout(Duration.ofSeconds(10));
    tweak.accept(builder);
    return builder.build();
  }

  BinlogStore store() {
    return store;
  }

  UpstreamReplicator replicator() {
    return replicator;
  }

  UpstreamState state() {
    return replicator.state();
  }

  /** Every status change so far, oldest first. */
  synchronized List<UpstreamState> transitions() {
    return List.copyOf(transitions);
  }

  void openStore() {
    GtidFlavor flavor =
        primary.flavor() == ServerFlavor.MYSQL ? GtidFlavor.MYSQL : GtidFlavor.MARIADB;
    try {
      store = BinlogStore.open(StoreConfig.builder(directory, flavor).build());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  void startReplicator() {
    replicator = new UpstreamReplicator(config(), store);
    replicator.addListener(
        s -> {
          synchronized (this) {
            transitions.add(s);
          }
        });
    replicator.start();
  }

  /**
   * Switches the running replicator to {@code next} ({@link UpstreamReplicator#switchSource}); from
   * then on this relay's primary is {@code next}.
   */
  SourceSwitch switchTo(DatabaseServer next) throws Exception {
    SourceSwitch done =
        replicator.switchSource(configFor(next, next.address()), Duration.ofSeconds(60));
    primary = next;
    via = next.address();
    return done;
  }

  /**
   * From now on this relay follows {@code next} (for a replicator started later, e.g. after a
   * restart).
   */
  void followFromNowOn(DatabaseServer next) {
    primary = next;
    via = next.address();
  }

  DatabaseServer primary() {
    return primary;
  }

  void stopReplicator() throws InterruptedException {
    assertThat(replicator.stop(Duration.ofSeconds(30))).as("replicator stopped in time").isTrue();
    assertThat(replicator.state().status()).isEqualTo(UpstreamStatus.STOPPED);
  }

  /**
   * Simulates a relay restart: stops the replicator, closes and reopens the store, starts a new
   * replicator.
   */
  void restart() throws InterruptedException {
    stopReplicator();
    closeStore();
    openStore();
    LOG.info("reopened store: {}", store.recoveryReport());
    startReplicator();
  }

  void closeStore() {
    try {
      store.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  UpstreamState awaitState(Predicate<UpstreamState> condition, String what, Duration timeout)
      throws InterruptedException {
    return eventually(timeout, "relay at '" + what + "'", replicator::state, condition);
  }

  UpstreamState awaitStatus(UpstreamStatus status, Duration timeout) throws InterruptedException {
    return awaitState(s -> s.status() == status, status.name(), timeout);
  }

  /** The primary's current binlog file and offset. */
  Position primaryPosition() {
    String statement =
        primary.flavor() == ServerFlavor.MYSQL ? "SHOW BINARY LOG STATUS" : "SHOW MASTER STATUS";
    Map<String, String> row = primary.queryRows(statement).get(0);
    return new Position(row.get("File"), Long.parseLong(row.get("Position")));
  }

  /** Waits until the store's readable end is the primary's current position. */
  Position awaitCaughtUp(Duration timeout) throws InterruptedException {
    return eventually(
            timeout,
            "the store's end at the primary's position [primary, store]",
            () -> {
              List<Position> both = Arrays.asList(primaryPosition(), store.readableEnd());
              requireNotFailed("catching up: [primary, store] " + both);
              return both;
            },
            both -> both.get(0).equals(both.get(1)))
        .get(1);
  }

  private void requireNotFailed(String doing) {
    UpstreamState s = replicator.state();
    if (s.status() == UpstreamStatus.FAILED) {
      throw new AssertionError("the replicator failed while " + doing + ": " + s);
    }
  }

  /**
   * Waits until the store's executed GTIDs are the primary's (positions differ once the relay names
   * its files).
   */
  void awaitSameGtids(Duration timeout) throws InterruptedException {
    eventually(
        timeout,
        "the store at " + primary + "'s GTIDs [primary, store]",
        () -> {
          List<GtidSet> both = List.of(executedOn(primary), store.executedGtids());
          requireNotFailed("reaching the primary's GTIDs: [primary, store] " + both);
          return both;
        },
        both -> both.get(0).equals(both.get(1)));
  }

  /**
   * A server's executed GTIDs as the store counts them: MySQL gtid_executed, MariaDB
   * gtid_binlog_state.
   */
  static GtidSet executedOn(DatabaseServer server) {
    if (server.flavor() == ServerFlavor.MYSQL) {
      return MysqlGtidSet.parse(server.queryValue("SELECT @@global.gtid_executed"));
    }
    return MariadbGtidSet.parse(server.queryValue("SELECT @@global.gtid_binlog_state"));
  }

  /**
   * The store holds the primary's history, each transaction once: its executed GTIDs are the
   * primary's, the transactions its files hold are as many as the GTIDs in the set, and every file
   * reads back clean (sizes, CRC32, log_pos continuity).
   *
   * @param transactionsExpected how many transactions the set stands for (MySQL: its size; MariaDB:
   *     the newest sequence number of domain 0 when the history starts at 1)
   */
  void assertSameHistoryAsPrimary(long transactionsExpected) throws IOException {
    GtidSet target = executedOn(primary);
    assertThat(store.executedGtids()).as("store's GTIDs vs " + primary).isEqualTo(target);
    long transactions = 0;
    for (FileMetadata f : store.files()) {
      FileVerification v = store.verify(f.name());
      assertThat(v.problem()).as("verification of stored " + f.name()).isNull();
      transactions += v.transactions();
    }
    assertThat(transactions)
        .as("transactions in the stored files (each GTID once)")
        .isEqualTo(transactionsExpected);
    LOG.info(
        "store holds {}'s history: {} files, {} transactions, GTIDs {}",
        primary,
        store.files().size(),
        transactions,
        target);
  }

  /** Closed files identical to the primary's, the open one a prefix, same file list, same GTIDs. */
  void assertIdenticalToPrimary() throws IOException {
    assertIdenticalToPrimary(Set.of());
  }

  /**
   * Like {@link #assertIdenticalToPrimary()}; the files in {@code crashEnded} (open when the
   * primary was SIGKILLed) are compared whole too, in-use flag (byte 21) included: the primary's
   * crash recovery clears that flag in place after the fact, and the store clears it in its copy
   * when the primary's next file shows the old one was abandoned (docs/upstream.md). Their flag
   * bytes are logged.
   */
  void assertIdenticalToPrimary(Set<String> crashEnded) throws IOException {
    // a file the store closed is final in files() at once; its in-use flag and force are the
    // syncer's next
    // round (StoreWriter.closeOpenFile): let that round run before comparing bytes on disk
    try {
      store.sync().get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted waiting for the store's syncer", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new AssertionError("the store's syncer did not finish a round: " + e, e);
    }
    List<String> primaryFiles =
        primary.queryRows("SHOW BINARY LOGS").stream().map(r -> r.get("Log_name")).toList();
    List<FileMetadata> stored = store.files();
    List<String> storedNames = stored.stream().map(FileMetadata::name).toList();
    assertThat(primaryFiles)
        .as("primary's binlog files")
        .endsWith(storedNames.toArray(String[]::new));
    Path primaryDir = primary.binlogDir();
    for (FileMetadata f : stored) {
      Path ours = store.directory().resolve(f.name());
      Path theirs = primaryDir.resolve(f.name());
      if (f.closed() && crashEnded.contains(f.name())) {
        byte[] a = Files.readAllBytes(ours);
        byte[] b = Files.readAllBytes(theirs);
        LOG.info(
            "crash-ended {}: in-use flag byte here 0x{}, on the primary 0x{}",
            f.name(),
            Integer.toHexString(a[IN_USE_FLAG_OFFSET]),
            Integer.toHexString(b[IN_USE_FLAG_OFFSET]));
        assertThat(Arrays.mismatch(a, b))
            .as("first differing byte of crash-ended " + f.name())
            .isEqualTo(-1);
      } else if (f.closed()) {
        assertThat(Files.mismatch(ours, theirs))
            .as("first differing byte of closed " + f.name())
            .isEqualTo(-1L);
      } else {
        byte[] a = Files.readAllBytes(ours);
        byte[] b = Files.readAllBytes(theirs);
        assertThat(a.length).as("open " + f.name() + " size").isLessThanOrEqualTo(b.length);
        assertThat(Arrays.mismatch(a, 0, a.length, b, 0, a.length))
            .as("first differing byte of open " + f.name())
            .isEqualTo(-1);
      }
    }
    if (primary.flavor() == ServerFlavor.MYSQL) {
      String ours = store.executedGtids().toString().replaceAll("\\s", "").toLowerCase(Locale.ROOT);
      assertThat(ours)
          .as("store's executed GTIDs vs the primary's @@gtid_executed")
          .isEqualTo(primary.executedGtidSet());
    } else {
      MariadbGtidSet ours = (MariadbGtidSet) store.executedGtids();
      assertThat(split(ours.toString()))
          .as("store's GTID state vs @@gtid_binlog_state")
          .isEqualTo(split(primary.queryValue("SELECT @@global.gtid_binlog_state")));
      assertThat(split(ours.toPositionString()))
          .as("store's GTID position vs @@gtid_binlog_pos")
          .isEqualTo(split(primary.queryValue("SELECT @@global.gtid_binlog_pos")));
    }
    LOG.info(
        "store identical to {}: {} files, {} closed, GTIDs {}",
        primary,
        stored.size(),
        stored.stream().filter(FileMetadata::closed).count(),
        store.executedGtids());
  }

  private static TreeSet<String> split(String gtids) {
    TreeSet<String> set = new TreeSet<>();
    for (String g : gtids.split(",")) {
      if (!g.isBlank()) {
        set.add(g.strip());
      }
    }
    return set;
  }

  @Override
  public void close() throws IOException {
    try {
      if (replicator != null) {
        replicator.close();
      }
    } finally {
      if (store != null) {
        store.close();
      }
    }
  }
}
