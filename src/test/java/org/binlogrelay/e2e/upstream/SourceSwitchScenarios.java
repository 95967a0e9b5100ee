package org.binlogrelay.e2e.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.e2e.load.Sysbench;
import org.binlogrelay.e2e.load.SysbenchResult;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.ReplicationLink;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFlavor;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.binlogrelay.protocol.gtid.MariadbGtid;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.server.upstream.SourceRefusedException;
import org.binlogrelay.server.upstream.SourceSwitch;
import org.binlogrelay.server.upstream.UpstreamStatus;
import org.binlogrelay.storage.FileMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Test side: the relay follows primary P under load; P goes away, its replica R is promoted, the
 * relay switches to R and follows R's load; a server whose history lacks what the relay stored is
 * refused.
 */
final class SourceSwitchScenarios {
  private static final Logger LOG = LoggerFactory.getLogger(SourceSwitchScenarios.class);
  private static final long MAX_BINLOG_SIZE = 1L << 20;

  private SourceSwitchScenarios() {}

  static void switchesToAPromotedReplica(ServerFarm farm, ServerVersion version, Path dir)
      throws Exception {
    DatabaseServer p =
        farm.start(ServerSpec.of(version).named("p").withMaxBinlogSize(MAX_BINLOG_SIZE));
    DatabaseServer r =
        farm.start(ServerSpec.of(version).named("r").withMaxBinlogSize(MAX_BINLOG_SIZE));
    ReplicationLink link = farm.replicate(r, p);
    Sysbench onP = UpstreamScenarios.load(p).withRate(150);
    onP.prepare();
    ExecutorService background = Executors.newSingleThreadExecutor();
    try (UpstreamUnderTest relay = UpstreamUnderTest.follow(p, dir)) {
      Future<SysbenchResult> loadP = background.submit(() -> onP.run(Duration.ofSeconds(6)));
      relay.awaitStatus(UpstreamStatus.STREAMING, UpstreamScenarios.CONNECT);
      assertThat(loadP.get(2, TimeUnit.MINUTES).transactions()).isPositive();
      relay.awaitCaughtUp(UpstreamScenarios.CATCH_UP);
      link.awaitCaughtUp(p, UpstreamScenarios.CATCH_UP);
      relay.assertIdenticalToPrimary();
      List<String> pFiles = relay.store().files().stream().map(FileMetadata::name).toList();
      Path pBinlogs = p.binlogDir();

      // P goes away; R is promoted
      p.stop();
      link.stop();
      r.execute(r.flavor() == ServerFlavor.MYSQL ? "RESET REPLICA ALL" : "RESET SLAVE ALL");
      refusesADivergedServer(farm, version, relay);

      SourceSwitch done = relay.switchTo(r);
      LOG.info("SWITCHED: {}", done);
      assertThat(done.to()).isEqualTo(r.address().toString());
      Sysbench onR =
          Sysbench.against(r).withTables(4).withTableSize(5_000).withThreads(2).withRate(150);
      Future<SysbenchResult> loadR = background.submit(() -> onR.run(Duration.ofSeconds(6)));
      relay.awaitState(
          s -> s.status() == UpstreamStatus.STREAMING && s.source().equals(r.address().toString()),
          "streaming from R",
          UpstreamScenarios.CONNECT);
      UpstreamScenarios.awaitMoreEvents(relay, 200, "events from R");
      relay.restart(); // a restart on R: the new replicator resumes by GTID by itself
      assertThat(loadR.get(2, TimeUnit.MINUTES).transactions()).isPositive();
      relay.awaitSameGtids(UpstreamScenarios.CATCH_UP);

      List<FileMetadata> files = relay.store().files();
      LOG.info(
          "after the switch: files {}",
          files.stream().map(f -> f.name() + "(" + f.size() + ")").toList());
      assertThat(files.size()).as("relay-named files after P's").isGreaterThan(pFiles.size());
      for (int i = 0; i < pFiles.size() - 1; i++) {
        String name = pFiles.get(i);
        assertThat(Files.mismatch(relay.store().directory().resolve(name), pBinlogs.resolve(name)))
            .as("P's " + name + " still byte-identical")
            .isEqualTo(-1L);
      }
      relay.assertSameHistoryAsPrimary(transactionsOf(r));
    } finally {
      background.shutdownNow();
    }
  }

  /**
   * A server with a local transaction and none of P's: it lacks what the relay stored, so the
   * switch is refused.
   */
  private static void refusesADivergedServer(
      ServerFarm farm, ServerVersion version, UpstreamUnderTest relay) throws Exception {
    DatabaseServer d = farm.start(ServerSpec.of(version).named("diverged"));
    d.execute("CREATE DATABASE local_only");
    DatabaseServer was = relay.primary();
    assertThatThrownBy(() -> relay.switchTo(d))
        .isInstanceOf(SourceRefusedException.class)
        .hasMessageContaining("lacks transactions the relay has stored")
        .satisfies(e -> LOG.info("REFUSED as expected: {}", e.getMessage()));
    relay.followFromNowOn(was);
    assertThat(relay.state().source())
        .as("the relay stays with its source")
        .isEqualTo(was.address().toString());
    d.close();
  }

  /** How many transactions a history of one origin each numbered from 1 holds. */
  static long transactionsOf(DatabaseServer server) {
    if (server.flavor() == ServerFlavor.MYSQL) {
      return MysqlGtidSet.parse(server.queryValue("SELECT @@global.gtid_executed"))
          .size()
          .longValueExact();
    }
    MariadbGtidSet pos =
        MariadbGtidSet.parsePosition(server.queryValue("SELECT @@global.gtid_binlog_pos"));
    return pos.newest(0).map(MariadbGtid::seqNo).orElse(0L);
  }
}
