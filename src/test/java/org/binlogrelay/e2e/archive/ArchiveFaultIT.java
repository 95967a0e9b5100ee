package org.binlogrelay.e2e.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.binlogrelay.archive.testing.S3FaultProxy;
import org.binlogrelay.archive.testing.S3FaultProxy.Fault;
import org.binlogrelay.archive.testing.S3FaultProxy.Rule;
import org.binlogrelay.e2e.servers.Credentials;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.HostAndPort;
import org.binlogrelay.e2e.servers.ReplicationLink;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.binlogrelay.e2e.upstream.RelayMainChild;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The archive's faults end to end (issue #18, "tested against a real S3 server, with faults"): a
 * MySQL 9.7 primary with 1 MiB binlogs under a steady write load, the whole relay in a child JVM
 * archiving to a real s3proxy through an {@code S3FaultProxy}, a MySQL 9.7 replica of the relay by
 * GTID. One fault after the other, on the same relay, primary and s3proxy: s3proxy stopped then
 * restarted; 503 SlowDown and 500 answers; every upload slowed by 3 s; 403 AccessDenied; the relay
 * SIGKILLed while an upload is in flight, then restarted on its data directory. During each fault
 * files keep closing, and the replica keeps up with the primary through the relay; after each,
 * every closed file of the primary is archived, byte-identical, each data and metadata object
 * written exactly once, and no multipart upload is left.
 *
 * <p>Not here: the relay's disk filling while the archive is down, which needs the relay's data
 * directory on a small tmpfs: {@link ArchiveDiskFullIT}.
 */
@ExtendWith(ServerFarmExtension.class)
class ArchiveFaultIT {
  private static final Logger LOG = LoggerFactory.getLogger(ArchiveFaultIT.class);
  private static final Duration CATCH_UP = Duration.ofSeconds(90);
  private static final Duration RECOVERED = Duration.ofMinutes(2);
  private static final String DATA_PUT = "/binlog-relay-test/relays/faults/binlogs/.*";

  @Test
  void mysqlArchiveCatchesUpAfterEachFaultWhileIngestAndServingGoOn(
      ServerFarm farm, @TempDir Path dir) throws Exception {
    long started = System.nanoTime();
    DatabaseServer primary =
        farm.start(
            ServerSpec.of(ServerVersion.MYSQL_9_7).named("primary").withMaxBinlogSize(1L << 20));
    DatabaseServer replica = farm.start(ServerVersion.MYSQL_9_7, "replica");
    ArchiveHarness.createSchema(primary);

    try (ArchiveHarness archive = ArchiveHarness.start("relays/faults");
        ArchiveHarness.Writer writer = new ArchiveHarness.Writer(primary)) {
      int port = ArchiveHarness.freePort();
      Path data = dir.resolve("relay-data");
      RelayMainChild relay = archive.relay(primary, dir, data, port);
      try {
        ReplicationLink link =
            ReplicationLink.establish(
                replica, new HostAndPort("127.0.0.1", port), Credentials.REPLICATION, "relay");
        recovered("start", primary, archive, link, relay);

        // s3proxy down, then back
        archive.s3.stop();
        filesClose(primary, 2);
        link.awaitCaughtUp(primary, CATCH_UP);
        archive.s3.restart();
        recovered("s3proxy stopped and restarted", primary, archive, link, relay);

        // 503 SlowDown and 500 InternalError on writes
        archive.faults.add(Rule.on("PUT", DATA_PUT).times(3).fault(Fault.slowDown()));
        archive.faults.add(Rule.on("PUT", ".*").times(2).fault(Fault.internalError()));
        filesClose(primary, 2);
        link.awaitCaughtUp(primary, CATCH_UP);
        recovered("503 SlowDown and 500 InternalError", primary, archive, link, relay);
        archive.faults.clearRules();

        // a slow object store: every request 3 s late
        archive.faults.add(Rule.on(null, ".*").fault(Fault.delay(Duration.ofSeconds(3))));
        filesClose(primary, 2);
        link.awaitCaughtUp(primary, CATCH_UP);
        archive.faults.clearRules();
        recovered("every request 3 s late", primary, archive, link, relay);

        // 403 AccessDenied on every write; the relay retries those every 5 minutes, so once the
        // "permission" is back the relay is SIGKILLed while its next upload is stalled, and
        // restarted
        archive.faults.add(Rule.on("PUT", ".*").fault(Fault.accessDenied()));
        filesClose(primary, 2);
        link.awaitCaughtUp(primary, CATCH_UP);
        assertThat(archive.faults.exchanges().stream().anyMatch(e -> e.status() == 403))
            .as("the relay met 403 AccessDenied")
            .isTrue();
        archive.faults.clearRules();
        archive.faults.add(Rule.on("PUT", DATA_PUT).fault(Fault.stall()));
        relay.kill();
        relay = archive.relay(primary, dir, data, port);
        relay.awaitUpstream(
            "streaming after the restart",
            u -> "STREAMING".equals(u.path("state").asText()),
            CATCH_UP);
        awaitUploadInFlight(data, relay, archive.faults);
        relay.kill();
        eventually(
            Duration.ofSeconds(30),
            "the fault proxy recording the stalled PUT the SIGKILL ended",
            () ->
                archive.faults.exchanges().stream()
                    .filter(e -> e.fault() instanceof S3FaultProxy.Stall)
                    .map(e -> e.method() + " " + e.path())
                    .toList(),
            stalled -> !stalled.isEmpty());
        LOG.info("relay SIGKILLed with an upload in flight (stalled by the fault proxy)");
        archive.faults.clearRules();
        relay = archive.relay(primary, dir, data, port);
        recovered("403, then SIGKILL mid-upload and restart", primary, archive, link, relay);
      } finally {
        relay.close();
      }
      LOG.info(
          "FIGURE ArchiveFaultIT: {} rows written, whole test {} s",
          writer.rows(),
          Duration.ofNanos(System.nanoTime() - started).toSeconds());
    }
  }

  /**
   * Files closed (FLUSH BINARY LOGS), the replica caught up, then every closed file of the primary
   * archived once and byte-identical, no multipart upload left.
   */
  private static void recovered(
      String after,
      DatabaseServer primary,
      ArchiveHarness archive,
      ReplicationLink link,
      RelayMainChild relay)
      throws Exception {
    long t0 = System.nanoTime();
    primary.execute("FLUSH BINARY LOGS");
    List<String> closed = ArchiveHarness.closedFiles(primary);
    link.awaitCaughtUp(primary, CATCH_UP);
    archive.awaitArchived(closed, RECOVERED, relay);
    archive.assertArchiveIsThePrimarys(primary, closed, true);
    LOG.info(
        "FIGURE after {}: {} closed files archived once and byte-identical {} ms after the fault"
            + " cleared",
        after,
        closed.size(),
        Duration.ofNanos(System.nanoTime() - t0).toMillis());
  }

  /** Waits until the primary closed {@code n} more files (the writer runs). */
  private static void filesClose(DatabaseServer primary, int n) throws Exception {
    int before = ArchiveHarness.closedFiles(primary).size();
    eventually(
        CATCH_UP,
        n + " more closed files on the primary",
        () -> ArchiveHarness.closedFiles(primary).size(),
        size -> size >= before + n);
  }

  /**
   * Waits until the relay has upload state ({@code archive/uploads/*.state}) and the fault proxy
   * holds one of its data PUTs (a stalled exchange is recorded when the stall begins): the moment
   * to kill the relay with an upload in flight.
   */
  private static void awaitUploadInFlight(Path data, RelayMainChild relay, S3FaultProxy faults)
      throws Exception {
    Path uploads = data.resolve("archive").resolve("uploads");
    eventually(
        CATCH_UP,
        "an upload in flight in " + uploads,
        () -> {
          if (!relay.isAlive()) {
            throw new AssertionError("the relay exited:\n" + relay.logTail(40));
          }
          return stateFiles(uploads);
        },
        n -> n > 0);
    eventually(
        CATCH_UP,
        "the fault proxy holding a PUT of the relay's",
        () ->
            faults.exchanges().stream()
                .filter(e -> e.fault() instanceof S3FaultProxy.Stall)
                .count(),
        n -> n > 0);
  }

  private static long stateFiles(Path uploads) throws IOException {
    if (!Files.isDirectory(uploads)) {
      return 0;
    }
    try (Stream<Path> files = Files.list(uploads)) {
      return files.filter(p -> p.getFileName().toString().endsWith(".state")).count();
    }
  }
}
