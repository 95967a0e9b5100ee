package org.binlogrelay.server.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import org.binlogrelay.archive.Archive;
import org.binlogrelay.archive.ArchiveConfig;
import org.binlogrelay.archive.ArchiveLocation;
import org.binlogrelay.archive.objectstore.S3Settings;
import org.binlogrelay.archive.upload.UploadConfig;
import org.binlogrelay.archive.upload.UploadStatus;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.server.metrics.ReplicaView;
import org.binlogrelay.server.serving.DumpStatus;
import org.binlogrelay.server.upstream.SourceSwitch;
import org.binlogrelay.server.upstream.UpstreamConfig;
import org.binlogrelay.server.upstream.UpstreamReplicator;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.StoreConfig;
import org.binlogrelay.storage.Time;
import org.binlogrelay.storage.read.ReaderRegistry;
import org.binlogrelay.storage.retention.RetentionRun;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server's side of the admin API contract: each view endpoint of a relay with a store (two
 * files of the protocol module's MySQL 9.7 fixtures), an upstream replicator (not started) and two
 * replicas answers JSON of the shape of {@code docs/admin-api/NAME.json} (on the test classpath as
 * {@code /admin-api/NAME.json}), the same files relayctl's tests are fed with and its {@code
 * AdminObjectsTest} checks its records against: the same keys in the same order at every level, and
 * the same JSON type wherever both sides are not {@code null}. With an archive (an S3 endpoint on a
 * loopback port nobody listens on, so that the uploader fails and reports why), the archive
 * endpoint, the status's archive block and the binlogs' tiers too.
 */
class AdminContractTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  private BinlogStore store;
  private UpstreamReplicator upstream;
  private AdminApi api;
  private Archive archive;

  @BeforeEach
  void open() throws IOException {
    Path data = Files.createDirectories(dir.resolve("data"));
    for (String file : List.of("binlog.000001", "binlog.000002")) {
      Files.copy(fixtures().resolve(file), data.resolve(file));
    }
    Files.writeString(data.resolve("binlog.index"), "./binlog.000001\n./binlog.000002\n");
    store = BinlogStore.open(StoreConfig.builder(data, GtidFlavor.MYSQL).build());
    upstream =
        new UpstreamReplicator(
            UpstreamConfig.builder("db1.example", 3306, "repl", "pw").serverId(9001).build(),
            store);
    api = new AdminApi(new FixedRelay(), null);
  }

  @AfterEach
  void close() throws IOException {
    if (archive != null) {
      archive.close();
    }
    upstream.close();
    store.close();
  }

  @Test
  void statusHasTheContractsShape() throws IOException {
    assertShape("status", "/api/v1/status");
  }

  @Test
  void upstreamHasTheContractsShape() throws IOException {
    assertShape("upstream", "/api/v1/upstream");
  }

  @Test
  void binlogsHaveTheContractsShape() throws IOException {
    assertShape("binlogs", "/api/v1/binlogs");
  }

  @Test
  void gtidHasTheContractsShape() throws IOException {
    assertShape("gtid", "/api/v1/gtid");
  }

  @Test
  void replicasHaveTheContractsShape() throws IOException {
    assertShape("replicas", "/api/v1/replicas");
    assertShape("replica", "/api/v1/replicas/3");
  }

  @Test
  void lagHasTheContractsShape() throws IOException {
    assertShape("lag", "/api/v1/lag");
    assertShape("lag-2", "/api/v1/lag");
  }

  @Test
  void archiveHasTheContractsShape() throws Exception {
    archive = unreachableArchive();
    archive.start();
    eventually(
        Duration.ofSeconds(60),
        "the uploader retrying with its last error",
        () -> archive.status().upload().state() == UploadStatus.State.RETRYING);
    assertShape("archive", "/api/v1/archive");
    assertShape("status", "/api/v1/status");
    assertShape("binlogs", "/api/v1/binlogs");
    JsonNode answer = JSON.readTree(api.handle("GET", "/api/v1/archive", null, new byte[0]).body());
    assertThat(answer.get("location").asText()).isEqualTo("s3://binlog-archive/relay1/");
    assertThat(answer.get("lastErrorKind").asText()).isEqualTo("UNREACHABLE");
    assertThat(answer.get("advice").asText()).contains("check the archive endpoint");
    assertThat(answer.get("pendingFiles").asLong())
        .as("the closed files, none archived")
        .isEqualTo(store.files().stream().filter(FileMetadata::closed).count());
    assertThat(answer.get("lastErrorAt").asText()).endsWith("Z");
    JsonNode binlogs =
        JSON.readTree(api.handle("GET", "/api/v1/binlogs", null, new byte[0]).body());
    assertThat(binlogs.findValuesAsText("tier"))
        .as("nothing uploaded yet: both files only local")
        .containsExactly("local", "local");
  }

  @Test
  void withoutAnArchiveTheArchiveEndpointIsAConflictAndEveryFileIsLocal() throws IOException {
    Answer answer = api.handle("GET", "/api/v1/archive", null, new byte[0]);
    assertThat(answer.status()).isEqualTo(409);
    JsonNode error = JSON.readTree(answer.body());
    assertThat(error.get("code").asText()).isEqualTo("conflict");
    assertThat(error.get("error").asText())
        .startsWith("no archive is configured")
        .contains("--archive s3://bucket/prefix");
    JsonNode status = JSON.readTree(api.handle("GET", "/api/v1/status", null, new byte[0]).body());
    assertThat(status.has("archive")).as("the key is there, null: " + status).isTrue();
    assertThat(status.get("archive").isNull()).isTrue();
    JsonNode binlogs =
        JSON.readTree(api.handle("GET", "/api/v1/binlogs", null, new byte[0]).body());
    assertThat(binlogs.findValuesAsText("tier")).containsExactly("local", "local");
    assertThat(api.handle("POST", "/api/v1/archive", null, new byte[0]).status()).isEqualTo(405);
  }

  /** An archive whose S3 endpoint is a loopback port nobody listens on (no call until started). */
  private Archive unreachableArchive() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    S3Settings s3 =
        S3Settings.forBucket("binlog-archive")
            .withEndpoint(URI.create("http://127.0.0.1:" + port))
            .withPathStyle(true)
            .withRegion("us-east-1")
            .withStaticCredentials("id", "secret")
            .withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofSeconds(5))
            .withMaxAttempts(1);
    UploadConfig upload =
        UploadConfig.defaults("relay1/", "9001@contract")
            .withBackoff(Duration.ofMillis(10), Duration.ofSeconds(30), Duration.ofSeconds(30));
    return Archive.open(
        ArchiveConfig.defaults(ArchiveLocation.parse("s3://binlog-archive/relay1/"), s3, upload),
        store,
        Time.SYSTEM);
  }

  private void assertShape(String contract, String path) throws IOException {
    Answer answer = api.handle("GET", path, null, new byte[0]);
    assertThat(answer.status()).as(answer.bodyText()).isEqualTo(200);
    JsonNode expected;
    try (InputStream in =
        AdminContractTest.class.getResourceAsStream("/admin-api/" + contract + ".json")) {
      assertThat(in)
          .as("admin-api/" + contract + ".json on the test classpath (docs/admin-api)")
          .isNotNull();
      expected = JSON.readTree(in);
    }
    JsonNode actual = JSON.readTree(answer.body());
    List<String> differences = new ArrayList<>();
    compare("$", expected, actual, differences);
    assertThat(differences).as(contract + ".json against " + path + ": " + actual).isEmpty();
  }

  /** Adds where {@code actual} differs in shape from {@code expected}. */
  static void compare(String at, JsonNode expected, JsonNode actual, List<String> differences) {
    if (expected.isNull() || actual.isNull()) {
      return;
    }
    if (expected.getNodeType() != actual.getNodeType()) {
      differences.add(
          at
              + ": "
              + expected.getNodeType()
              + " in the contract, "
              + actual.getNodeType()
              + " answered");
      return;
    }
    if (expected.isObject()) {
      List<String> keys = names(expected);
      if (!keys.equals(names(actual))) {
        differences.add(at + ": keys " + keys + " in the contract, " + names(actual) + " answered");
        return;
      }
      for (String key : keys) {
        compare(at + "." + key, expected.get(key), actual.get(key), differences);
      }
    } else if (expected.isArray()) {
      if (expected.isEmpty() != actual.isEmpty()) {
        differences.add(
            at
                + ": "
                + expected.size()
                + " elements in the contract, "
                + actual.size()
                + " answered");
        return;
      }
      for (int i = 0; i < actual.size(); i++) {
        compare(
            at + "[" + i + "]",
            expected.get(Math.min(i, expected.size() - 1)),
            actual.get(i),
            differences);
      }
    }
  }

  private static List<String> names(JsonNode object) {
    List<String> names = new ArrayList<>();
    for (Iterator<String> i = object.fieldNames(); i.hasNext(); ) {
      names.add(i.next());
    }
    return names;
  }

  private static Path fixtures() {
    return checkout("protocol/src/test/resources/fixtures/mysql-9.7");
  }

  private static Path checkout(String relative) {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.isDirectory(d.resolve(relative))) {
        return d.resolve(relative);
      }
    }
    throw new IllegalStateException(
        relative + " is not under a parent directory of " + Path.of("").toAbsolutePath());
  }

  /** A relay whose facts and replicas are fixed; commands are not called by these tests. */
  private final class FixedRelay implements RelayControl {
    private static final long STARTED = Instant.parse("2026-11-20T09:58:00Z").toEpochMilli();

    @Override
    public RelayFacts relay() {
      return new RelayFacts(
          "RUNNING",
          "0.1.0",
          "mysql",
          9001,
          "4e6c6179-0000-4000-8000-000000009001",
          "127.0.0.1:3307",
          STARTED,
          STARTED + 120_500);
    }

    @Override
    public BinlogStore store() {
      return store;
    }

    @Override
    public Optional<Archive> archive() {
      return Optional.ofNullable(archive);
    }

    @Override
    public ReaderRegistry readers() {
      return null;
    }

    @Override
    public boolean primaryConfigured() {
      return true;
    }

    @Override
    public Optional<UpstreamReplicator> upstream() {
      return Optional.of(upstream);
    }

    @Override
    public List<ReplicaView> replicas() {
      DumpStatus.Replica first =
          new DumpStatus.Replica(
              101,
              "10.0.0.7",
              "repl",
              "5d2e8a6c-71ca-11e1-9e33-c80aa9429562",
              "replica1.example",
              3306,
              true,
              STARTED + 30_000);
      DumpStatus.Replica second =
          new DumpStatus.Replica(
              102,
              "10.0.0.8",
              "repl",
              "6f2e8a6c-71ca-11e1-9e33-c80aa9429562",
              "",
              0,
              false,
              STARTED + 60_000);
      return List.of(
          new ReplicaView(
              new DumpStatus(
                  "101@10.0.0.7",
                  DumpStatus.State.SENDING,
                  "binlog.000001",
                  203,
                  120,
                  52428800,
                  3,
                  3,
                  first,
                  "binlog.000001",
                  203,
                  1100,
                  0,
                  false),
              1258291,
              3.4,
              12582912.0,
              2202009.6,
              41.2),
          new ReplicaView(
              new DumpStatus(
                  "102@10.0.0.8",
                  DumpStatus.State.PAUSED,
                  "",
                  0,
                  0,
                  0,
                  0,
                  4,
                  second,
                  "",
                  0,
                  0,
                  2,
                  true),
              25165824,
              null,
              null,
              null,
              null));
    }

    @Override
    public boolean pause(long id) {
      return false;
    }

    @Override
    public Optional<Boolean> paused(long id) {
      return Optional.empty();
    }

    @Override
    public boolean resume(long id) {
      return false;
    }

    @Override
    public boolean kick(long id) {
      return false;
    }

    @Override
    public void stopUpstream() {}

    @Override
    public void startUpstream() {}

    @Override
    public SourceSwitch changeUpstream(String host, Integer port, String user, String password) {
      throw new UnsupportedOperationException();
    }

    @Override
    public String rotate() {
      throw new UnsupportedOperationException();
    }

    @Override
    public RetentionRun purge(String to, Instant before, boolean force) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Optional<String> unhealthy() {
      return Optional.empty();
    }

    @Override
    public Optional<String> notReady() {
      return Optional.empty();
    }

    @Override
    public String scrape() {
      return "";
    }
  }
}
