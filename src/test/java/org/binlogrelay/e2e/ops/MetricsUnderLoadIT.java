package org.binlogrelay.e2e.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.data.Offset;
import org.binlogrelay.bench.report.Report;
import org.binlogrelay.e2e.bench.BenchRuns;
import org.binlogrelay.e2e.load.Sysbench;
import org.binlogrelay.e2e.process.ChildProcesses;
import org.binlogrelay.e2e.servers.Credentials;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.HostAndPort;
import org.binlogrelay.e2e.servers.Provisioning;
import org.binlogrelay.e2e.servers.ReplicaStatus;
import org.binlogrelay.e2e.servers.ReplicationLink;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.binlogrelay.e2e.upstream.FaultyProxy;
import org.binlogrelay.protocol.auth.CachingSha2Hash;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.server.DownstreamSettings;
import org.binlogrelay.server.Relay;
import org.binlogrelay.server.RelayConfig;
import org.binlogrelay.server.admin.AdminConfig;
import org.binlogrelay.server.downstream.ReplicaServerConfig;
import org.binlogrelay.server.downstream.account.UserAccounts;
import org.binlogrelay.server.upstream.UpstreamConfig;
import org.binlogrelay.storage.SyncPolicy;
import org.binlogrelay.storage.Time;
import org.binlogrelay.storage.retention.RetentionPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MySQL 9.7 primary under sysbench oltp_write_only -> the relay ({@link Relay}, admin API on a free
 * port) -> a MySQL 9.7 replica. Scrapes {@code /metrics} and checks each metric family for
 * plausible non-zero values; compares the upstream lag metric with pt-heartbeat's measurement;
 * checks a paused replica's bytes-behind against the difference of positions; and, after a pause
 * under load, that the catch-up rate and ETA track the real catch-up seen from the replica.
 */
@ExtendWith(ServerFarmExtension.class)
class MetricsUnderLoadIT {
  private static final Logger LOG = LoggerFactory.getLogger(MetricsUnderLoadIT.class);
  private static final long RELAY_SERVER_ID = 9001;
  private static final int RATE = 60;

  /** How far behind the paused replica falls under load before it is resumed. */
  private static final Duration PAUSE = Duration.ofSeconds(20);

  /** Transactions sent to the replica before the first measurement: some 8 s of the load. */
  private static final int WARM_TRANSACTIONS = 8 * RATE;

  /**
   * Bytes per second of the slow link to the replica in phase 3: about three times what the load
   * writes.
   */
  private static final int LINK_RATE = 300_000;

  /**
   * {@code --replica-send-buffer}: bytes in the relay's socket buffer count as sent, so keep it
   * small.
   */
  private static final int SEND_BUFFER = 64 << 10;

  /**
   * pt-heartbeat updates once a second and measures (on the replica, one hop further) now minus the
   * newest heartbeat row's time, so its reading lags the truth by up to its interval plus the
   * replica's apply time; the relay measures against the newest commit timestamp it received. Both
   * are sampled within the same second.
   */
  private static final double HEARTBEAT_TOLERANCE_SECONDS = 1.5;

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final ObjectMapper json = new ObjectMapper();

  @TempDir Path dir;

  // The topology, set up by the first step and used by the others (one test, so one instance).
  private DatabaseServer primary;
  private DatabaseServer replica;
  private long primaryServerId;
  private Sysbench load;
  private Relay relay;
  private String api;
  private FaultyProxy link;
  private Process heartbeat;
  private Future<?> running;

  /** The replica's dump, by its id in the admin API. */
  private long dumpId;

  @Test
  void metricsAndAdminApiTrackARealTopologyUnderLoad(ServerFarm farm) throws Exception {
    startTopology(farm);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      startLoadAndHeartbeat(pool);
      upstreamLagAgreesWithPtHeartbeat();
      relayBenchSeesTheRelaysLatency();
      everyMetricFamilyIsPlausibleUnderLoad();
      scrapeOfNamedFamiliesOnly();
      Paused paused = pauseTheReplicaUnderLoad();
      catchUpRateAndEtaFollowTheReplica(paused);
      bytesBehindIsTheDifferenceOfPositions();
    } finally {
      if (heartbeat != null) {
        ChildProcesses.kill(heartbeat);
      }
      if (link != null) {
        link.close();
      }
      pool.shutdownNow();
      relay.close();
    }
  }

  /**
   * A MySQL 9.7 primary (with pt-heartbeat's table), the relay, and a MySQL 9.7 replica that
   * reaches the relay through a proxy (a slow link in the catch-up step), caught up.
   */
  private void startTopology(ServerFarm farm) throws Exception {
    primary =
        farm.start(
            ServerSpec.of(ServerVersion.MYSQL_9_7).named("primary").withMaxBinlogSize(4 << 20));
    replica = farm.start(ServerSpec.of(ServerVersion.MYSQL_9_7).named("replica"));
    load = Sysbench.against(primary).withTables(2).withTableSize(5_000).withRate(RATE);
    load.prepare();
    // pt-heartbeat's table without its optional file/position columns: with them, --update runs
    // SHOW MASTER
    // STATUS, which MySQL 8.4 removed (pt-heartbeat 3.x then fails on MySQL 9.7).
    primary.execute(
        "CREATE DATABASE IF NOT EXISTS percona",
        "CREATE TABLE IF NOT EXISTS percona.heartbeat (ts varchar(26) NOT NULL, server_id int unsigned NOT NULL"
            + " PRIMARY KEY)");
    primaryServerId = primary.queryLong("SELECT @@server_id");

    relay = new Relay(config(primary), Time.SYSTEM);
    relay.start();
    api = "http://127.0.0.1:" + relay.adminServer().address().getPort();
    link = new FaultyProxy(new HostAndPort("127.0.0.1", relay.replicaServer().port()), SEND_BUFFER);
    HostAndPort at = farm.backend().hostPortForServers(link.address().port());
    ReplicationLink.establish(replica, at, Credentials.REPLICATION, "relay");
    awaitExecuted(replica, primary.executedGtidSet(), Duration.ofMinutes(2));
  }

  /**
   * pt-heartbeat --update and the sysbench load, until the load is well under way: heartbeats on
   * the replica and {@value #WARM_TRANSACTIONS} transactions sent to it (the figures the next steps
   * check need some history).
   */
  private void startLoadAndHeartbeat(ExecutorService pool) throws Exception {
    heartbeat =
        ChildProcesses.start(
            ptHeartbeat(primary, "--update", "--interval", "1", "--run-time", "150"),
            dir,
            dir.resolve("pt-heartbeat-update.out"),
            null);
    running = pool.submit(() -> load.run(Duration.ofSeconds(110)));
    String labels = replicaLabels();
    eventually(
        Duration.ofMinutes(1),
        WARM_TRANSACTIONS + " transactions sent to the replica",
        () -> seriesOrNull(scrape(api), "binlogrelay_replica_sent_transactions_total", labels),
        sent -> sent != null && sent >= WARM_TRANSACTIONS);
    eventually(
        Duration.ofMinutes(1),
        "pt-heartbeat's rows on the replica",
        () -> replica.queryLong("SELECT COUNT(*) FROM percona.heartbeat"),
        rows -> rows > 0);
  }

  /** 1. Upstream lag against pt-heartbeat, both sampled at once, five times 0.7 s apart. */
  private void upstreamLagAgreesWithPtHeartbeat() throws Exception {
    LOG.info(
        "pt-heartbeat --update so far: {}; heartbeat row on the primary: {}",
        Files.readString(dir.resolve("pt-heartbeat-update.out")).strip(),
        primary.queryRows("SELECT * FROM percona.heartbeat"));
    List<String> agreement = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      double relayLag = gauge(scrape(api), "binlogrelay_upstream_behind_source_seconds", "");
      double pt = ptHeartbeatCheck(replica, primaryServerId);
      agreement.add(String.format("relay %.3f s / pt-heartbeat %.3f s", relayLag, pt));
      assertThat(relayLag).isBetween(0.0, 5.0);
      assertThat(Math.abs(relayLag - pt))
          .as("relay %s vs pt-heartbeat %s", relayLag, pt)
          .isLessThanOrEqualTo(HEARTBEAT_TOLERANCE_SECONDS);
      Thread.sleep(
          700); // the sampling interval (any phase of pt-heartbeat's second), not a wait for
      // anything
    }
    LOG.info(
        "FIGURE upstream lag vs pt-heartbeat (replica through the relay), {} tps sysbench: {}",
        RATE,
        agreement);
  }

  /**
   * 1b. relay-bench lag through the relay, with the relay's own view from its metrics (issue 7).
   */
  private void relayBenchSeesTheRelaysLatency() throws Exception {
    List<String> lagArgs = new ArrayList<>(BenchRuns.admin(primary, replica));
    lagArgs.addAll(
        List.of(
            "--duration=6", "--interval=100", "--poll=2", "--relay-metrics=" + api + "/metrics"));
    Report lag = BenchRuns.run("lag", lagArgs);
    assertThat(lag.value("caught_up")).isEqualTo(true);
    assertThat(BenchRuns.number(lag, "samples")).isGreaterThan(10);
    assertThat(BenchRuns.number(lag, "relay_metrics_scrapes")).isGreaterThanOrEqualTo(5);
    assertThat(BenchRuns.number(lag, "relay_latency_observations"))
        .as("transactions handed to the replica")
        .isGreaterThan(50);
    assertThat(BenchRuns.decimal(lag, "relay_latency_p99_ms"))
        .isGreaterThanOrEqualTo(BenchRuns.decimal(lag, "relay_latency_p50_ms"))
        .isLessThan(10_000);
    assertThat(BenchRuns.decimal(lag, "relay_upstream_behind_max_ms")).isBetween(0.0, 5_000.0);
    LOG.info(
        "FIGURE relay-bench lag through the relay, {} tps sysbench: heartbeat p50 {} / p99 {} ms; relay behind"
            + " the primary p50 {} / max {} ms; time in the relay mean {} / p50 {} / p99 {} ms ({} transactions)",
        RATE,
        lag.value("lag_p50_ms"),
        lag.value("lag_p99_ms"),
        lag.value("relay_upstream_behind_p50_ms"),
        lag.value("relay_upstream_behind_max_ms"),
        lag.value("relay_latency_mean_ms"),
        lag.value("relay_latency_p50_ms"),
        lag.value("relay_latency_p99_ms"),
        lag.value("relay_latency_observations"));
  }

  /**
   * 2b. {@code /metrics?name[]=...} renders the named families only, as the Prometheus clients do
   * (a sampler of the heap need not render every replica's series).
   */
  private void scrapeOfNamedFamiliesOnly() throws Exception {
    String m =
        scrape(
            api,
            "?name%5B%5D=jvm_memory_used_bytes&name%5B%5D=binlogrelay_replica_sent_bytes_total");
    List<String> families =
        m.lines()
            .filter(l -> !l.isBlank() && !l.startsWith("#"))
            .map(l -> l.replaceFirst("[{ ].*", ""))
            .distinct()
            .sorted()
            .toList();
    assertThat(families)
        .containsExactly("binlogrelay_replica_sent_bytes_total", "jvm_memory_used_bytes");
    assertThat(gauge(m, "binlogrelay_replica_sent_bytes_total", replicaLabels()))
        .isGreaterThan(100_000);
    assertThat(m).contains("area=\"heap\"");
  }

  /** 2. Every metric family, plausible and non-zero under load. */
  private void everyMetricFamilyIsPlausibleUnderLoad() throws Exception {
    String m = scrape(api);
    assertThat(gauge(m, "binlogrelay_upstream_state", "state=\"streaming\"")).isEqualTo(1.0);
    assertThat(gauge(m, "binlogrelay_upstream_received_bytes_total", "")).isGreaterThan(100_000);
    assertThat(gauge(m, "binlogrelay_upstream_received_events_total", "")).isGreaterThan(1000);
    assertThat(gauge(m, "binlogrelay_upstream_received_transactions_total", "")).isGreaterThan(100);
    assertThat(gauge(m, "binlogrelay_upstream_last_commit_timestamp_seconds", ""))
        .isCloseTo(System.currentTimeMillis() / 1000.0, Offset.offset(10.0));
    assertThat(m)
        .containsPattern(
            "binlogrelay_upstream_info\\{file=\"binlog\\.\\d+\",source=\"[^\"]+\"\\} 1")
        .containsPattern(
            "binlogrelay_upstream_position_bytes\\{file=\"binlog\\.\\d+\",source=\"[^\"]+\"\\} [1-9]")
        .containsPattern(
            "binlogrelay_upstream_last_gtid_sequence\\{gtid_source=\"[0-9a-f-]{36}\"\\} [1-9]");
    assertThat(gauge(m, "binlogrelay_store_files", "")).isGreaterThanOrEqualTo(1);
    assertThat(gauge(m, "binlogrelay_store_size_bytes", "")).isGreaterThan(100_000);
    assertThat(gauge(m, "binlogrelay_store_oldest_event_timestamp_seconds", ""))
        .isLessThan(System.currentTimeMillis() / 1000.0)
        .isGreaterThan(1.7e9);
    assertThat(gauge(m, "binlogrelay_store_fsync_seconds_count", "")).isGreaterThan(10);
    assertThat(gauge(m, "binlogrelay_store_fsync_seconds_sum", "")).isGreaterThan(0);
    assertThat(gauge(m, "binlogrelay_store_group_commit_transactions_count", "")).isGreaterThan(10);
    assertThat(gauge(m, "binlogrelay_store_group_commit_transactions_sum", ""))
        .isGreaterThanOrEqualTo(gauge(m, "binlogrelay_store_group_commit_transactions_count", ""));
    assertThat(gauge(m, "binlogrelay_store_recovery_duration_seconds", "")).isGreaterThan(0);
    assertThat(gauge(m, "binlogrelay_store_accepting", "")).isEqualTo(1.0);
    assertThat(gauge(m, "binlogrelay_replicas_connected", "")).isEqualTo(1.0);
    for (String reason : List.of("max_connections", "host_rate", "host_blocked")) {
      assertThat(
              gauge(
                  m,
                  "binlogrelay_downstream_connections_refused_total",
                  "reason=\"" + reason + "\""))
          .isZero();
    }
    String labels = replicaLabels();
    assertThat(gauge(m, "binlogrelay_replica_connected", labels)).isEqualTo(1.0);
    assertThat(gauge(m, "binlogrelay_replica_sent_bytes_total", labels)).isGreaterThan(100_000);
    assertThat(gauge(m, "binlogrelay_replica_sent_transactions_total", labels)).isGreaterThan(100);
    assertThat(gauge(m, "binlogrelay_replica_send_rate_bytes_per_second", labels))
        .isGreaterThan(1000);
    assertThat(gauge(m, "binlogrelay_replica_behind_bytes", labels)).isBetween(0.0, 1e6);
    assertThat(gauge(m, "binlogrelay_replica_behind_seconds", labels)).isBetween(0.0, 60.0);
    assertThat(gauge(m, "binlogrelay_relay_latency_seconds_count", "")).isGreaterThan(100);
    double latencyMean =
        gauge(m, "binlogrelay_relay_latency_seconds_sum", "")
            / gauge(m, "binlogrelay_relay_latency_seconds_count", "");
    assertThat(latencyMean).isBetween(0.0, 0.5);
    assertThat(gauge(m, "jvm_memory_used_bytes", "area=\"heap\"")).isGreaterThan(0);
    assertThat(gauge(m, "process_uptime_seconds", "")).isGreaterThan(0);
    assertThat(gauge(m, "process_files_open_files", "")).isGreaterThan(0);
    LOG.info(
        "FIGURE relay-added latency mean {} ms over {} observations; fsync mean {} ms over {}; group"
            + " commit mean {} transactions",
        String.format("%.3f", latencyMean * 1000),
        gauge(m, "binlogrelay_relay_latency_seconds_count", ""),
        String.format(
            "%.3f",
            1000
                * gauge(m, "binlogrelay_store_fsync_seconds_sum", "")
                / gauge(m, "binlogrelay_store_fsync_seconds_count", "")),
        gauge(m, "binlogrelay_store_fsync_seconds_count", ""),
        gauge(m, "binlogrelay_store_group_commit_transactions_sum", "")
            / gauge(m, "binlogrelay_store_group_commit_transactions_count", ""));
  }

  /** The labels of the replica's series. */
  private String replicaLabels() {
    return "host=\"127.0.0.1\",server_id=\"" + replica.queryLong("SELECT @@server_id") + "\"";
  }

  /** The replica's dump in the admin API when it was resumed, and its bytes behind. */
  private record Paused(JsonNode before, long behind) {}

  /**
   * 3a. The replica's feed paused under load until it is {@link #PAUSE} behind; its bytes behind
   * grow, its catch-up rate is negative and it has no ETA. From here the link to the replica
   * carries {@link #LINK_RATE} bytes a second, about three times what the load writes: the replica
   * catches up at the link's pace, the case where a catch-up ETA matters.
   */
  private Paused pauseTheReplicaUnderLoad() throws Exception {
    JsonNode replicas = get(api + "/api/v1/replicas");
    assertThat(replicas.size()).isEqualTo(1);
    dumpId = replicas.get(0).get("id").asLong();
    assertThat(replicas.get(0).get("mode").asText()).isEqualTo("gtid");
    link.throttle(LINK_RATE);
    JsonNode paused = post(api + "/api/v1/replicas/" + dumpId + "/pause");
    assertThat(paused.get("state").asText()).isEqualTo("PAUSED");
    JsonNode before =
        eventually(
            PAUSE.multipliedBy(4),
            "the paused replica " + PAUSE.toSeconds() + " s behind",
            () -> get(api + "/api/v1/replicas/" + dumpId),
            r -> r.get("secondsBehind").asDouble() >= PAUSE.toSeconds());
    long behind = before.get("bytesBehind").asLong();
    assertThat(behind).isGreaterThan(10_000);
    assertThat(before.get("catchUpRateBytesPerSecond").asDouble())
        .as("falling behind")
        .isLessThan(0);
    assertThat(before.get("etaSeconds").isNull()).isTrue();
    assertThat(before.get("secondsBehind").asDouble()).isGreaterThan(PAUSE.toSeconds() / 2.0);
    return new Paused(before, behind);
  }

  /** What the catch-up after a resume looked like, sampled from the relay and the replica. */
  private static final class CatchUp {
    static final double SAMPLE_EVERY_SECONDS = 0.5;
    final long resumed = System.nanoTime();
    final List<String> samples = new ArrayList<>();

    /** {t, eta, relay bytes behind, replica apply bytes behind, rate}. */
    final List<double[]> etas = new ArrayList<>();

    double firstApplyBehind = Double.NaN;
    double firstSampleAt;
    double feedDrainedAt = Double.NaN;
    boolean positiveRateSeen;

    /** When the last sample was taken ({@link #secondsSinceResume()}), -1 before the first. */
    double lastSampleAt = -1;

    double secondsSinceResume() {
      return (System.nanoTime() - resumed) / 1e9;
    }

    /**
     * Whether a sample is due: one every {@link #SAMPLE_EVERY_SECONDS} (the replica is checked more
     * often).
     */
    boolean sampleDue() {
      return lastSampleAt < 0 || secondsSinceResume() - lastSampleAt >= SAMPLE_EVERY_SECONDS;
    }
  }

  /**
   * 3b. Resumed, the replica catches up at the slow link's pace; the relay's catch-up rate and ETA,
   * sampled meanwhile, must follow the catch-up seen from the replica.
   */
  private void catchUpRateAndEtaFollowTheReplica(Paused paused) throws Exception {
    post(api + "/api/v1/replicas/" + dumpId + "/resume");
    CatchUp c = new CatchUp();
    try {
      eventually(
          Duration.ofMinutes(2),
          "the replica caught up (sampled every 0.5 s meanwhile)",
          () -> {
            boolean done =
                replica.flavor().dialect().hasExecuted(replica, primary.executedGtidSet());
            if (!done && c.sampleDue()) {
              sample(c);
            }
            return done;
          });
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + ": " + c.samples, e);
    }
    double caughtUp = c.secondsSinceResume();
    LOG.info(
        "FIGURE paused {} s under {} tps: {} bytes behind, {} s behind; feed drained {} s and replica"
            + " caught up (executed the primary's GTIDs) {} s after resume; samples {}",
        PAUSE.toSeconds(),
        RATE,
        paused.behind(),
        paused.before().get("secondsBehind"),
        c.feedDrainedAt,
        String.format("%.1f", caughtUp),
        c.samples);
    assertThat(c.feedDrainedAt).as("the feed drained: %s", c.samples).isNotNaN();
    assertThat(c.feedDrainedAt).isLessThanOrEqualTo(caughtUp);
    assertThat(c.positiveRateSeen)
        .as("a positive catch-up rate while draining: %s", c.samples)
        .isTrue();
    // The replica's own catch-up: how fast what it has not applied shrank, from resume to caught
    // up. The
    // relay's rate and ETA, once the connection's buffers are full (t >= 2 s), must follow it. What
    // the
    // relay cannot see is the bytes in the connection (its send buffer, the link's receive buffer):
    // they
    // count as sent, so the ETA ends early by about their size over the rate (some 400 KB here, 2
    // s).
    // Hence the tolerances: rate within a factor of 1.3, predicted end within 40% of the catch-up
    // time or
    // 5 s.
    double replicaRate = c.firstApplyBehind / (caughtUp - c.firstSampleAt);
    List<Double> relayRates = new ArrayList<>();
    List<Double> predictedEnds = new ArrayList<>();
    for (double[] e : c.etas) {
      if (e[0] >= 2 && e[2] > 0) {
        predictedEnds.add(e[0] + e[1]);
        relayRates.add(e[4]);
      }
    }
    assertThat(predictedEnds).as("ETAs while draining, after 2 s: %s", c.samples).isNotEmpty();
    double medianEnd = median(predictedEnds);
    double medianRate = median(relayRates);
    LOG.info(
        "FIGURE catch-up: replica caught up {} s after resume, the relay's ETAs (t >= 2 s) predicted {} s"
            + " (median of {}; all {}); catch-up rate relay {} B/s (median) vs replica {} B/s",
        String.format("%.1f", caughtUp),
        String.format("%.1f", medianEnd),
        predictedEnds.size(),
        predictedEnds,
        String.format("%.0f", medianRate),
        String.format("%.0f", replicaRate));
    assertThat(medianEnd)
        .as("predicted end vs caught up at %.1f s: %s", caughtUp, c.samples)
        .isCloseTo(caughtUp, Offset.offset(Math.max(5.0, 0.4 * caughtUp)));
    assertThat(medianRate / replicaRate)
        .as("relay rate %s vs replica rate %s: %s", medianRate, replicaRate, c.samples)
        .isBetween(1 / 1.3, 1.3);

    link.throttle(0);
  }

  /**
   * One sample of the catch-up: the relay's view of the dump and the replica's read and apply
   * positions.
   */
  private void sample(CatchUp c) throws Exception {
    JsonNode r = get(api + "/api/v1/replicas/" + dumpId);
    Map<String, String> rs = ReplicaStatus.of(replica).columns();
    JsonNode st = get(api + "/api/v1/status").get("store").get("head");
    JsonNode files = get(api + "/api/v1/binlogs");
    double t = c.secondsSinceResume();
    c.lastSampleAt = t;
    long relayBehind = r.get("bytesBehind").asLong();
    long applyBehind =
        bytesBetween(
            files,
            rs.get("Relay_Source_Log_File"),
            Long.parseLong(rs.get("Exec_Source_Log_Pos")),
            st.get("file").asText(),
            st.get("position").asLong());
    long readBehind =
        bytesBetween(
            files,
            rs.get("Source_Log_File"),
            Long.parseLong(rs.get("Read_Source_Log_Pos")),
            st.get("file").asText(),
            st.get("position").asLong());
    c.samples.add(
        String.format(
            "t=%.1fs relay_behind=%d replica_read_behind=%d replica_apply_behind=%d"
                + " rate=%s eta=%s",
            t,
            relayBehind,
            readBehind,
            applyBehind,
            r.get("catchUpRateBytesPerSecond"),
            r.get("etaSeconds")));
    if (Double.isNaN(c.firstApplyBehind)) {
      c.firstApplyBehind = applyBehind;
      c.firstSampleAt = t;
    }
    if (Double.isNaN(c.feedDrainedAt) && relayBehind == 0) {
      c.feedDrainedAt = t;
    }
    c.positiveRateSeen |= r.get("catchUpRateBytesPerSecond").asDouble() > 0;
    if (r.get("etaSeconds").isNumber()) {
      c.etas.add(
          new double[] {
            t,
            r.get("etaSeconds").asDouble(),
            relayBehind,
            applyBehind,
            r.get("catchUpRateBytesPerSecond").asDouble()
          });
    }
  }

  /**
   * 4. Bytes behind against the difference of positions: the load stopped, the replica paused
   * again, 50 more transactions on the primary, all of them in the relay.
   */
  private void bytesBehindIsTheDifferenceOfPositions() throws Exception {
    running.get(120, TimeUnit.SECONDS);
    awaitExecuted(replica, primary.executedGtidSet(), Duration.ofMinutes(1));
    post(api + "/api/v1/replicas/" + dumpId + "/pause");
    primary.execute(
        "CREATE TABLE IF NOT EXISTS sbtest.paused_marker (id int primary key, pad varchar(200))");
    for (int i = 0; i < 50; i++) {
      primary.execute("INSERT INTO sbtest.paused_marker VALUES (" + i + ", REPEAT('x', 200))");
    }
    GtidSet onPrimary = MysqlGtidSet.parse(primary.queryValue("SELECT @@global.gtid_executed"));
    eventually(
        Duration.ofMinutes(1),
        "the relay's readable GTIDs at the primary's " + onPrimary,
        () -> relay.store().readableSnapshot().executedGtids(),
        onPrimary::equals);
    // pt-heartbeat still writes once a second, so the head can move between the three reads: take
    // a reading in which the head is the same before and after (bounded: a heartbeat every second).
    JsonNode head;
    Map<String, String> rs;
    JsonNode p;
    int attempts = 0;
    while (true) {
      head = get(api + "/api/v1/status").get("store").get("head");
      rs = ReplicaStatus.of(replica).columns();
      p = get(api + "/api/v1/replicas/" + dumpId);
      JsonNode after = get(api + "/api/v1/status").get("store").get("head");
      if (head.equals(after)) {
        break;
      }
      assertThat(++attempts)
          .as("readings with the relay's head unchanged (it moved from %s to %s)", head, after)
          .isLessThan(20);
    }
    assertThat(rs.get("Source_Log_File")).isEqualTo(head.get("file").asText());
    long byPositions =
        head.get("position").asLong() - Long.parseLong(rs.get("Read_Source_Log_Pos"));
    LOG.info(
        "FIGURE paused replica: bytesBehind {} vs head {} minus Read_Source_Log_Pos {} = {}",
        p.get("bytesBehind"),
        head,
        rs.get("Read_Source_Log_Pos"),
        byPositions);
    assertThat(byPositions).isGreaterThan(10_000);
    assertThat(p.get("bytesBehind").asLong()).isEqualTo(byPositions);
    post(api + "/api/v1/replicas/" + dumpId + "/resume");
    awaitExecuted(replica, primary.executedGtidSet(), Duration.ofMinutes(1));
    // pt-heartbeat's next write can land between the replica's catching up and this reading, and
    // the replica is then one heartbeat (a few hundred bytes) behind for as long as its hand-over
    // takes: wait, bounded, for a reading at the head.
    eventually(
        Duration.ofSeconds(30),
        "the resumed replica's bytesBehind back at 0",
        () -> get(api + "/api/v1/replicas/" + dumpId).get("bytesBehind").asLong(),
        behind -> behind == 0);
    assertThat(ReplicaStatus.of(replica).lastIoErrno()).isZero();
    assertThat(ReplicaStatus.of(replica).lastSqlErrno()).isZero();
  }

  private RelayConfig config(DatabaseServer primary) throws Exception {
    Path[] tls = certificate();
    String hash =
        CachingSha2Hash.create(Credentials.REPLICATION.password(), 5000, new SecureRandom())
            .storedForm();
    DownstreamSettings downstream =
        new DownstreamSettings(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            RELAY_SERVER_ID,
            UpstreamConfig.defaultReplicaUuid(RELAY_SERVER_ID).toString(),
            UserAccounts.parse(
                Credentials.REPLICATION.user()
                    + "@% REPLICATION_SLAVE,REPLICATION_CLIENT "
                    + hash
                    + "\n"),
            new ReplicaServerConfig.TlsFiles(tls[0], tls[1]),
            false,
            DownstreamSettings.DEFAULT_MAX_CONNECTIONS,
            0,
            SEND_BUFFER);
    UpstreamConfig upstream =
        UpstreamConfig.builder(
                primary.address().host(),
                primary.address().port(),
                Credentials.TEST.user(),
                Credentials.TEST.password())
            .serverId(RELAY_SERVER_ID)
            .report("127.0.0.1", 0)
            .heartbeatPeriod(Duration.ofMillis(500))
            .build();
    return new RelayConfig(
        dir.resolve("data"),
        GtidFlavor.MYSQL,
        SyncPolicy.everyTransaction(),
        RetentionPolicy.keepEverything(),
        RelayConfig.DEFAULT_RETENTION_INTERVAL,
        upstream,
        downstream,
        Duration.ofSeconds(30),
        AdminConfig.of(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), null));
  }

  private Path[] certificate() throws Exception {
    Path tlsDir = Files.createDirectories(dir.resolve("tls"));
    ChildProcesses.run(
            List.of(
                Provisioning.executable("openssl", "openssl").toString(),
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-keyout",
                tlsDir.resolve("key.pem").toString(),
                "-out",
                tlsDir.resolve("cert.pem").toString(),
                "-days",
                "2",
                "-subj",
                "/CN=binlog-relay-ops"),
            tlsDir,
            tlsDir.resolve("openssl.out"),
            null,
            Duration.ofSeconds(60))
        .requireSuccess("openssl req");
    return new Path[] {tlsDir.resolve("cert.pem"), tlsDir.resolve("key.pem")};
  }

  private List<String> ptHeartbeat(DatabaseServer server, String... extra) {
    List<String> command =
        new ArrayList<>(
            List.of(
                "pt-heartbeat",
                "--host",
                server.address().host(),
                "--port",
                Integer.toString(server.address().port()),
                "--user",
                Credentials.TEST.user(),
                "--password",
                Credentials.TEST.password(),
                "--database",
                "percona",
                "--utc"));
    command.addAll(List.of(extra));
    return command;
  }

  /**
   * pt-heartbeat --check on the replica: its lag behind the primary's heartbeat row, in seconds.
   */
  private double ptHeartbeatCheck(DatabaseServer replica, long primaryServerId) throws Exception {
    Path out = dir.resolve("pt-heartbeat-check.out");
    ChildProcesses.run(
            ptHeartbeat(replica, "--check", "--master-server-id", Long.toString(primaryServerId)),
            dir,
            out,
            null,
            Duration.ofSeconds(30))
        .requireSuccess("pt-heartbeat --check");
    String text = Files.readString(out).strip();
    String[] lines = text.split("\n");
    return Double.parseDouble(lines[lines.length - 1].strip());
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  /** Stored bytes from {@code file:pos} to {@code headFile:headPos}, by the relay's binlog list. */
  private static long bytesBetween(
      JsonNode binlogs, String file, long pos, String headFile, long headPos) {
    long total = 0;
    boolean counting = false;
    for (JsonNode f : binlogs) {
      String name = f.get("name").asText();
      long size = name.equals(headFile) ? headPos : f.get("size").asLong();
      if (name.equals(file)) {
        counting = true;
        total += Math.max(0, size - Math.max(pos, 4));
      } else if (counting) {
        total += size - 4;
      }
      if (name.equals(headFile)) {
        break;
      }
    }
    return counting ? total : -1;
  }

  private static void awaitExecuted(DatabaseServer replica, String gtids, Duration timeout)
      throws Exception {
    try {
      eventually(
          timeout,
          replica + " executing " + gtids,
          () -> replica.flavor().dialect().hasExecuted(replica, gtids));
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\n" + ReplicaStatus.of(replica).summary(), e);
    }
  }

  private String scrape(String api) throws Exception {
    return scrape(api, "");
  }

  private String scrape(String api, String query) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(api + "/metrics" + query)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    return r.body();
  }

  private JsonNode get(String url) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(url)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return json.readTree(r.body());
  }

  private JsonNode post(String url) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(url))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return json.readTree(r.body());
  }

  /**
   * The value of one series in a Prometheus text scrape; {@code labels} is the exact label text, ""
   * for none.
   */
  static double gauge(String scrape, String name, String labels) {
    Double v = seriesOrNull(scrape, name, labels);
    if (v == null) {
      throw new AssertionError(
          "no series "
              + name
              + "{"
              + labels
              + "} in the scrape; found "
              + series(scrape, name).keySet());
    }
    return v;
  }

  /**
   * Like {@link #gauge}, but null while the series is not in the scrape (a replica's series appear
   * once it has registered).
   */
  static Double seriesOrNull(String scrape, String name, String labels) {
    Map<String, Double> found = series(scrape, name);
    Double v = found.get(labels);
    if (v == null) {
      for (Map.Entry<String, Double> e : found.entrySet()) {
        if (!labels.isEmpty() && e.getKey().contains(labels)) {
          return e.getValue();
        }
      }
    }
    return v;
  }

  /** Every series of {@code name} in a scrape, by label text. */
  private static Map<String, Double> series(String scrape, String name) {
    Map<String, Double> found = new HashMap<>();
    Matcher m =
        Pattern.compile("(?m)^" + Pattern.quote(name) + "(\\{[^}]*\\})? (\\S+)$").matcher(scrape);
    while (m.find()) {
      String l = m.group(1) == null ? "" : m.group(1).substring(1, m.group(1).length() - 1);
      found.put(l, Double.parseDouble(m.group(2)));
    }
    return found;
  }
}
