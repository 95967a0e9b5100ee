package org.binlogrelay.e2e.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.lang.management.ManagementFactory;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.archive.Archive;
import org.binlogrelay.archive.ArchiveConfig;
import org.binlogrelay.archive.ArchiveLocation;
import org.binlogrelay.archive.ArchiveStatus;
import org.binlogrelay.archive.objectstore.S3Settings;
import org.binlogrelay.archive.testing.S3ProxyProcess;
import org.binlogrelay.archive.upload.CatchUpDeferral;
import org.binlogrelay.archive.upload.UploadConfig;
import org.binlogrelay.bench.report.Report;
import org.binlogrelay.e2e.bench.BenchRuns;
import org.binlogrelay.e2e.load.Sysbench;
import org.binlogrelay.e2e.servers.Credentials;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.binlogrelay.protocol.auth.PasswordHashes;
import org.binlogrelay.server.upstream.UpstreamState;
import org.binlogrelay.storage.Time;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Benchmark, not a check (run it with {@code mvn -pl e2e -am verify -Pingest-benchmark -Dtest=none
 * -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=IngestBenchmarkIT}): how fast the relay stores
 * a backlog of 2 GB or more of a MySQL 9.7 primary's binlog, against a MySQL 9.7 replica's receiver
 * thread alone ({@code START REPLICA IO_THREAD}, applier stopped) on the same backlog in the same
 * run. The backlog is sysbench {@code prepare} and {@code oltp_write_only} transactions, then bulk
 * INSERT ... SELECT transactions of 4 KB rows up to the size. The relay's store is in {@code
 * /var/tmp} and deleted afterwards.
 */
@ExtendWith(ServerFarmExtension.class)
@EnabledIfSystemProperty(named = "binlogrelay.benchmark", matches = "true")
class IngestBenchmarkIT {
  private static final Logger LOG = LoggerFactory.getLogger(IngestBenchmarkIT.class);
  private static final long BACKLOG = Long.getLong("binlogrelay.benchmark.bytes", 2_100_000_000L);

  /**
   * The upload rate limit of a fourth configuration, archive on with --archive-max-upload-rate
   * ({@code -Dbinlogrelay.benchmark.uploadRate=BYTES}; 0, the default, leaves it out: its uploads
   * take a minute per GB).
   */
  private static final long UPLOAD_RATE = Long.getLong("binlogrelay.benchmark.uploadRate", 0);

  /** Rounds of the archive on/off ingest runs ({@code -Dbinlogrelay.benchmark.rounds}, 3). */
  private static final int ROUNDS = Integer.getInteger("binlogrelay.benchmark.rounds", 3);

  @Test
  void relayVersusReplicaReceiverOnA2GbBacklog(ServerFarm farm) throws Exception {
    DatabaseServer primary = backlogPrimary(farm, 256L << 20);
    long backlog = binlogBytes(primary);
    List<String> results = new ArrayList<>();
    results.add(relayRun(primary, "relay", 1, backlog).line());
    results.add(replicaReceiver(farm, primary, backlog));
    results.add(relayRun(primary, "relay", 2, backlog).line());
    LOG.info(
        "BENCH results (2 shared cores, ext4, local backend, same backlog):\n  {}",
        String.join("\n  ", results));
  }

  /**
   * A MySQL 9.7 primary with a backlog of {@link #BACKLOG} bytes of binlog: sysbench prepare and 30
   * s of oltp_write_only, then bulk transactions of 1000 x 4 KB rows.
   */
  private static DatabaseServer backlogPrimary(ServerFarm farm, long maxBinlogSize)
      throws Exception {
    DatabaseServer primary =
        farm.start(
            ServerSpec.of(ServerVersion.MYSQL_9_7)
                .named("primary")
                .withMaxBinlogSize(maxBinlogSize)
                .withOptions("--innodb-buffer-pool-size=512M"));
    long started = System.nanoTime();
    Sysbench sysbench =
        Sysbench.against(primary).withTables(8).withTableSize(100_000).withThreads(2);
    sysbench.prepare();
    sysbench.run(Duration.ofSeconds(30));
    long smallTransactionBytes = binlogBytes(primary);
    primary.execute(
        "CREATE TABLE sbtest.big (id BIGINT AUTO_INCREMENT PRIMARY KEY, pad VARCHAR(4000))");
    int bulk = 0;
    while (binlogBytes(primary) < BACKLOG) {
      primary.execute(
          "INSERT INTO sbtest.big (pad) SELECT REPEAT(c, 33) FROM sbtest.sbtest1 LIMIT "
              + (bulk * 1000 % 90_000)
              + ", 1000");
      bulk++;
    }
    long backlog = binlogBytes(primary);
    LOG.info(
        "BENCH backlog: {} bytes in {} files ({} bytes of sysbench prepare + 30 s oltp_write_only, then {}"
            + " bulk transactions of 1000 x 4 KB rows), built in {} s",
        backlog,
        primary.queryRows("SHOW BINARY LOGS").size(),
        smallTransactionBytes,
        bulk,
        (System.nanoTime() - started) / 1_000_000_000);
    return primary;
  }

  /**
   * The relay's ingest of one backlog with the archive off, on (uploads deferred while the relay
   * catches up, the default), and on with uploads not deferred (overlapping the ingest), and with
   * {@link #UPLOAD_RATE} also on with that limit, alternately ({@link #ROUNDS} rounds of the
   * configurations, each summarized by its median and range of MB/s and of CPU seconds per GB), and
   * the archive's upload throughput: a local s3proxy 2.6.0 (filesystem backend on the same disk)
   * receives every closed file. The clock starts when the replicator does: the store is open and
   * the archive started before, as at a relay's start. Run: {@code mvn -pl e2e -am verify
   * -Pingest-benchmark -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false
   * -Dit.test=IngestBenchmarkIT#ingestWithTheArchiveOnAndOff
   * -Dbinlogrelay.benchmark.bytes=1000000000}.
   */
  @Test
  void ingestWithTheArchiveOnAndOff(ServerFarm farm) throws Exception {
    DatabaseServer primary = backlogPrimary(farm, 64L << 20);
    long backlog = binlogBytes(primary);
    Map<String, List<Ingest>> byConfiguration = new LinkedHashMap<>();
    List<String> results = new ArrayList<>();
    // untimed: the first relay in this JVM runs partly interpreted, whichever configuration it has
    relayRun(primary, "warm-up, archive off", 0, backlog);
    try (S3ProxyProcess s3 = S3ProxyProcess.start()) {
      for (int run = 1; run <= ROUNDS; run++) {
        // one round = the three configurations back to back, so that drift hits all alike
        // the configurations of a round, started one place later each round, so that what a run
        // leaves behind (garbage, JIT state, dirty pages) does not always fall on the same one
        List<Callable<Ingest>> configurations = new ArrayList<>();
        int r = run;
        configurations.add(() -> relayRun(primary, "archive off", r, backlog));
        configurations.add(
            () ->
                archivedRun(
                    primary, s3, "archive on", r, backlog, "run" + r, 0, CatchUpDeferral.DEFAULT));
        configurations.add(
            () ->
                archivedRun(
                    primary,
                    s3,
                    "archive on, uploads not deferred",
                    r,
                    backlog,
                    "eager" + r,
                    0,
                    CatchUpDeferral.OFF));
        if (UPLOAD_RATE > 0) {
          configurations.add(
              () ->
                  archivedRun(
                      primary,
                      s3,
                      "archive on, upload limit " + UPLOAD_RATE + " bytes/s, not deferred",
                      r,
                      backlog,
                      "limited" + r,
                      UPLOAD_RATE,
                      CatchUpDeferral.OFF));
        }
        List<Ingest> round = new ArrayList<>();
        for (int i = 0; i < configurations.size(); i++) {
          round.add(configurations.get((i + run - 1) % configurations.size()).call());
        }
        for (Ingest i : round) {
          byConfiguration.computeIfAbsent(i.what(), k -> new ArrayList<>()).add(i);
          results.add(i.line());
        }
      }
    }
    for (Map.Entry<String, List<Ingest>> e : byConfiguration.entrySet()) {
      results.add(Ingest.summary(e.getKey(), e.getValue()));
    }
    LOG.info(
        "BENCH archive on/off (2 shared cores, ext4, local backend, same backlog of {} bytes, {}"
            + " rounds, the clock from the replicator's start):\n  {}",
        backlog,
        ROUNDS,
        String.join("\n  ", results));
  }

  /**
   * One ingest run: MB/s from the relay's start to caught up, and the test JVM's CPU time meanwhile
   * (the relay, and with an archive its uploader; s3proxy is a process of its own), per GB.
   */
  private record Ingest(String what, double mbPerSecond, double cpuSecondsPerGb, String line) {
    static String summary(String what, List<Ingest> runs) {
      double[] mb = runs.stream().mapToDouble(Ingest::mbPerSecond).sorted().toArray();
      double[] cpu = runs.stream().mapToDouble(Ingest::cpuSecondsPerGb).sorted().toArray();
      return String.format(
          "%s over %d runs: ingest median %.0f MB/s (%.0f-%.0f), CPU median %.2f s per GB"
              + " (%.2f-%.2f)",
          what,
          runs.size(),
          median(mb),
          mb[0],
          mb[mb.length - 1],
          median(cpu),
          cpu[0],
          cpu[cpu.length - 1]);
    }

    private static double median(double[] sorted) {
      int n = sorted.length;
      return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
  }

  /** CPU seconds this JVM used so far (all its threads). */
  /**
   * Before a timed run: writes every dirty page back ({@code sync}), so that the previous run's
   * writes (s3proxy's objects, a deleted store) do not compete with this run's fsyncs, and collects
   * the previous run's garbage (the uploads' buffers), so that its GC does not fall in this run.
   */
  private static void syncDisks() throws Exception {
    System.gc();
    Process p = new ProcessBuilder("sync").inheritIO().start();
    if (!p.waitFor(2, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError("sync did not end within 2 minutes");
    }
  }

  private static double processCpuSeconds() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
            .getProcessCpuTime()
        / 1e9;
  }

  /**
   * Serving with the archive: one client ({@code relay-bench catchup --non-blocking}, the bench
   * module's replica client, in this JVM) catches up over the same backlog from the relay (the
   * whole relay in a child JVM, {@link RelayMainChild}, archiving to a local s3proxy 2.6.0): twice
   * from local files, then, with every backlog file purged locally (archive-only), from archived
   * files: cold (the relay fetches each file from s3proxy while the client waits: the fetch is
   * inside the clock) then warm (from the relay's fetch cache), twice, the cache emptied and the
   * relay restarted between the two rounds. Run: {@code mvn -pl e2e -am verify -Pingest-benchmark
   * -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false
   * -Dit.test=IngestBenchmarkIT#servingFromLocalAndArchivedFiles
   * -Dbinlogrelay.benchmark.bytes=1000000000}.
   */
  @Test
  void servingFromLocalAndArchivedFiles(ServerFarm farm) throws Exception {
    DatabaseServer primary = backlogPrimary(farm, 64L << 20);
    primary.execute("FLUSH BINARY LOGS");
    List<String> names =
        primary.queryRows("SHOW BINARY LOGS").stream().map(r -> r.get("Log_name")).toList();
    int closed = names.size() - 1;
    long backlog = binlogBytes(primary);
    List<String> results = new ArrayList<>();
    Path dir = Files.createTempDirectory(Path.of("/var/tmp"), "relay-bench-");
    Path data = dir.resolve("relay-data");
    try (S3ProxyProcess s3 = S3ProxyProcess.start()) {
      int port = freePort();
      List<String> args = servingRelayArgs(s3, dir);
      Map<String, String> credentials =
          Map.of(
              "AWS_ACCESS_KEY_ID",
              S3ProxyProcess.IDENTITY,
              "AWS_SECRET_ACCESS_KEY",
              S3ProxyProcess.CREDENTIAL);
      // a relay without an archive beside it, for the same reads: what the archive costs serving
      RelayMainChild plain =
          RelayMainChild.start(
              primary,
              primary.address(),
              dir,
              dir.resolve("plain-data"),
              freePort(),
              List.of(args.get(0), args.get(1), "--server-id", "9402"), // a replica of its own
              Map.of());
      RelayMainChild relay =
          RelayMainChild.start(primary, primary.address(), dir, data, port, args, credentials);
      try {
        awaitStored(plain, backlog);
        awaitArchive(relay, "the backlog's " + closed + " files archived", closed);
        for (int round = 1; round <= 2; round++) {
          results.add(catchup(plain, "no archive, local files, run " + round, backlog, false));
          results.add(catchup(relay, "archive on, local files, run " + round, backlog, true));
        }
        plain.close();
        RelayMainChild.Answer purge =
            relay.post(
                "/api/v1/binlogs/purge", "{\"to\": \"" + names.get(names.size() - 1) + "\"}");
        assertThat(purge.code()).as("purge answer " + purge.body()).isEqualTo(200);
        assertThat(purge.json().path("removed").size())
            .as("files purged locally")
            .isEqualTo(closed);
        for (int round = 1; round <= 2; round++) {
          if (round > 1) {
            relay.close();
            deleteTree(data.resolve("archive").resolve("cache"));
            relay =
                RelayMainChild.start(
                    primary, primary.address(), dir, data, port, args, credentials);
            awaitArchive(relay, "the restarted relay's catalog", closed);
          }
          results.add(catchup(relay, "archived files, cold cache, run " + round, backlog, true));
          results.add(catchup(relay, "archived files, warm cache, run " + round, backlog, true));
        }
      } finally {
        plain.close();
        relay.close();
      }
    } finally {
      deleteTree(dir);
    }
    LOG.info(
        "BENCH serving from local and archived files (one client, 2 shared cores, ext4, s3proxy on"
            + " the same disk, same backlog of {} bytes in {} files):\n  {}",
        backlog,
        names.size(),
        String.join("\n  ", results));
  }

  /** The relay's options for {@link #servingFromLocalAndArchivedFiles}. */
  private static List<String> servingRelayArgs(S3ProxyProcess s3, Path dir) throws Exception {
    Path accounts = dir.resolve("accounts");
    Files.writeString(
        accounts,
        Credentials.REPLICATION.user()
            + "@% REPLICATION_SLAVE,REPLICATION_CLIENT "
            + PasswordHashes.cachingSha2(Credentials.REPLICATION.password())
            + "\n");
    return List.of(
        "--accounts-file",
        accounts.toString(),
        "--archive",
        "s3://" + S3ProxyProcess.BUCKET + "/serving",
        "--archive-endpoint",
        s3.endpoint().toString(),
        "--archive-region",
        "us-east-1",
        "--archive-path-style");
  }

  /** Waits until the relay's archive holds at least {@code files} files and uploads none. */
  private static void awaitArchive(RelayMainChild relay, String what, int files) throws Exception {
    eventually(
        Duration.ofMinutes(15),
        what,
        () -> {
          if (!relay.isAlive()) {
            throw new AssertionError("the relay exited:\n" + relay.logTail(40));
          }
          try {
            JsonNode a = relay.get("/api/v1/archive").json();
            return List.of(a.path("archivedFiles").asLong(), a.path("pendingFiles").asLong());
          } catch (ConnectException notUpYet) {
            return List.of(-1L, -1L);
          }
        },
        a -> a.get(0) >= files && a.get(1) == 0);
  }

  /** Waits until a relay's store holds {@code bytes} (the primary's backlog, all of it). */
  private static void awaitStored(RelayMainChild relay, long bytes) throws Exception {
    eventually(
        Duration.ofMinutes(15),
        "the relay stored the backlog",
        () -> {
          if (!relay.isAlive()) {
            throw new AssertionError("the relay exited:\n" + relay.logTail(40));
          }
          try {
            return relay.store().path("bytes").asLong();
          } catch (ConnectException notUpYet) {
            return -1L;
          }
        },
        stored -> stored >= bytes);
  }

  /**
   * One catch-up of relay-bench from the relay's first file to its EOF; the result line. {@code
   * archived}: the relay has an archive (its fetches are reported).
   */
  private static String catchup(RelayMainChild relay, String what, long backlog, boolean archived)
      throws Exception {
    JsonNode none = MissingNode.getInstance();
    JsonNode before = archived ? relay.get("/api/v1/archive").json() : none;
    Report r =
        BenchRuns.run(
            "catchup",
            List.of(
                "--host=127.0.0.1",
                "--port=" + relay.port(),
                "--user=" + Credentials.REPLICATION.user(),
                "--password=" + Credentials.REPLICATION.password(),
                "--non-blocking"));
    JsonNode after = archived ? relay.get("/api/v1/archive").json() : none;
    long bytes = BenchRuns.number(r, "event_bytes");
    String line =
        String.format(
            "%s: %d bytes in %.1f s = %.1f MB/s, %.0f events/s; the relay fetched %d files"
                + " (%d bytes) from the archive meanwhile",
            what,
            bytes,
            BenchRuns.decimal(r, "seconds"),
            BenchRuns.decimal(r, "mb_per_s"),
            BenchRuns.decimal(r, "events_per_s"),
            after.path("fetches").asLong() - before.path("fetches").asLong(),
            after.path("fetchedBytes").asLong() - before.path("fetchedBytes").asLong());
    LOG.info("BENCH {}", line);
    assertThat(r.value("end")).isEqualTo("EOF");
    assertThat(bytes).as("bytes served").isGreaterThanOrEqualTo(backlog - (1 << 20));
    return line;
  }

  private static int freePort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static Ingest archivedRun(
      DatabaseServer primary,
      S3ProxyProcess s3,
      String what,
      int run,
      long backlog,
      String prefix,
      long maxUploadRate,
      CatchUpDeferral deferral)
      throws Exception {
    Path dir = Files.createTempDirectory(Path.of("/var/tmp"), "relay-bench-");
    ArchiveLocation location =
        ArchiveLocation.parse("s3://" + S3ProxyProcess.BUCKET + "/" + prefix);
    ArchiveConfig config =
        ArchiveConfig.defaults(
            location,
            S3Settings.forBucket(S3ProxyProcess.BUCKET)
                .withEndpoint(s3.endpoint())
                .withRegion("us-east-1")
                .withPathStyle(true)
                .withStaticCredentials(S3ProxyProcess.IDENTITY, S3ProxyProcess.CREDENTIAL),
            UploadConfig.defaults(location.prefix(), "bench")
                .withMaxUploadRate(maxUploadRate)
                .withDeferral(deferral));
    try {
      try (UpstreamUnderTest relay = UpstreamUnderTest.opened(primary, dir);
          Archive archive = Archive.open(config, relay.store(), Time.SYSTEM)) {
        // as the relay wires it (Relay.openArchive): uploads wait while the relay catches up
        archive.deferUploadsWhileCatchingUp(
            () -> relay.replicator() == null ? Double.NaN : relay.replicator().secondsBehind());
        archive.start(); // the relay's start, before its upstream connects: not in the clock
        syncDisks();
        long started = System.nanoTime();
        double cpuBefore = processCpuSeconds();
        relay.startReplicator();
        relay.awaitCaughtUp(Duration.ofMinutes(15));
        double ingestSeconds = (System.nanoTime() - started) / 1e9;
        double cpuSeconds = processCpuSeconds() - cpuBefore;
        UpstreamState s = relay.state();
        long closed = relay.store().files().stream().filter(f -> f.closed()).count();
        eventually(
            Duration.ofMinutes(15),
            "every closed file archived",
            archive::status,
            st -> st.archivedFiles() >= closed && st.pendingFiles() == 0);
        double uploadSeconds = (System.nanoTime() - started) / 1e9;
        ArchiveStatus st = archive.status();
        String line =
            String.format(
                "%s, run %d: ingest %d bytes in %.1f s = %.1f MB/s, %.0f transactions/s, CPU"
                    + " %.1f s; %d closed files (%d bytes) archived %.1f s after the start = %.1f"
                    + " MB/s upload (uploads waited %.1f s for the catch-up)",
                what,
                run,
                s.bytesReceived(),
                ingestSeconds,
                s.bytesReceived() / ingestSeconds / 1e6,
                s.transactionsReceived() / ingestSeconds,
                cpuSeconds,
                st.archivedFiles(),
                st.archivedBytes(),
                uploadSeconds,
                st.archivedBytes() / uploadSeconds / 1e6,
                archive.counters().deferredNanos() / 1e9);
        LOG.info("BENCH {}", line);
        assertThat(s.bytesReceived()).isGreaterThanOrEqualTo(backlog - (1 << 20));
        return new Ingest(
            what,
            s.bytesReceived() / ingestSeconds / 1e6,
            cpuSeconds / (s.bytesReceived() / 1e9),
            line);
      }
    } finally {
      deleteTree(dir);
    }
  }

  private static Ingest relayRun(DatabaseServer primary, String what, int run, long backlog)
      throws Exception {
    Path dir = Files.createTempDirectory(Path.of("/var/tmp"), "relay-bench-");
    try {
      try (UpstreamUnderTest relay = UpstreamUnderTest.opened(primary, dir)) {
        syncDisks();
        long started = System.nanoTime();
        double cpuBefore = processCpuSeconds();
        relay.startReplicator();
        relay.awaitCaughtUp(Duration.ofMinutes(15));
        double seconds = (System.nanoTime() - started) / 1e9;
        double cpuSeconds = processCpuSeconds() - cpuBefore;
        UpstreamState s = relay.state();
        String line =
            String.format(
                "%s, run %d: %d bytes in %.1f s (connect included) = %.1f MB/s, %.0f events/s,"
                    + " %.0f transactions/s, CPU %.1f s (store: SyncPolicy.everyTransaction)",
                what,
                run,
                s.bytesReceived(),
                seconds,
                s.bytesReceived() / seconds / 1e6,
                s.eventsReceived() / seconds,
                s.transactionsReceived() / seconds,
                cpuSeconds);
        LOG.info("BENCH {}", line);
        assertThat(s.bytesReceived()).isGreaterThanOrEqualTo(backlog - (1 << 20));
        return new Ingest(
            what, s.bytesReceived() / seconds / 1e6, cpuSeconds / (s.bytesReceived() / 1e9), line);
      }
    } finally {
      deleteTree(dir);
    }
  }

  private static String replicaReceiver(ServerFarm farm, DatabaseServer primary, long backlog)
      throws Exception {
    DatabaseServer replica =
        farm.start(
            ServerSpec.of(ServerVersion.MYSQL_9_7)
                .named("receiver")
                .withOptions("--relay-log-space-limit=0"));
    String target = primary.queryValue("SELECT @@global.gtid_executed");
    long started = System.nanoTime();
    replica.execute(
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST='"
            + primary.address().host()
            + "', SOURCE_PORT="
            + primary.address().port()
            + ", SOURCE_USER='"
            + primary.replicationCredentials().user()
            + "', SOURCE_PASSWORD='"
            + primary.replicationCredentials().password()
            + "', SOURCE_AUTO_POSITION=1, GET_SOURCE_PUBLIC_KEY=1",
        "START REPLICA IO_THREAD");
    eventually(
        Duration.ofMinutes(15),
        "the receiver caught up (Retrieved_Gtid_Set, Last_IO_Error)",
        () -> {
          Map<String, String> status = replica.queryRows("SHOW REPLICA STATUS").get(0);
          return Arrays.asList(status.get("Retrieved_Gtid_Set"), status.get("Last_IO_Error"));
        },
        s ->
            s.get(0) != null
                && !s.get(0).isEmpty()
                && "1".equals(replica.queryValue("SELECT GTID_SUBSET(?, ?)", target, s.get(0))));
    double seconds = (System.nanoTime() - started) / 1e9;
    long relayLogBytes =
        replica.queryRows("SHOW RELAYLOG EVENTS LIMIT 1").isEmpty() ? 0 : relayLogSize(replica);
    String line =
        String.format(
            "MySQL 9.7 replica, receiver thread only: %d bytes of relay log in %.1f s = %.1f"
                + " MB/s of the primary's %d bytes (sync_relay_log=10000, the default)",
            relayLogBytes, seconds, backlog / seconds / 1e6, backlog);
    LOG.info("BENCH {}", line);
    replica.execute("STOP REPLICA");
    replica.close();
    return line;
  }

  private static long relayLogSize(DatabaseServer replica) throws Exception {
    Path data = replica.binlogDir().getParent().resolve("data");
    long total = 0;
    try (var files = Files.list(data)) {
      for (Path p :
          files.filter(p -> p.getFileName().toString().contains("relay-bin.0")).toList()) {
        total += Files.size(p);
      }
    }
    return total;
  }

  private static long binlogBytes(DatabaseServer server) {
    return server.queryRows("SHOW BINARY LOGS").stream()
        .mapToLong(r -> Long.parseLong(r.get("File_size")))
        .sum();
  }

  private static void deleteTree(Path dir) throws Exception {
    try (var walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
