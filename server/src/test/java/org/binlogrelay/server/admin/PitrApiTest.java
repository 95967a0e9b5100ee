package org.binlogrelay.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.StoreConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /api/v1/pitr/plan} and {@code GET /api/v1/pitr/binlog} over a store of the protocol
 * module's MySQL 9.7 fixtures: plans by GTID (their start, stop and files), the answers to bad
 * input and to points the store does not hold, and a download over a real socket (cut at an offset,
 * the in-use flag cleared, the rest byte for byte).
 */
class PitrApiTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  private Path data;
  private BinlogStore store;
  private AdminApi api;

  @BeforeEach
  void open() throws IOException {
    data = Files.createDirectories(dir.resolve("data"));
    for (String file : List.of("binlog.000001", "binlog.000002")) {
      Files.copy(fixtures().resolve(file), data.resolve(file));
    }
    Files.writeString(data.resolve("binlog.index"), "./binlog.000001\n./binlog.000002\n");
    store = BinlogStore.open(StoreConfig.builder(data, GtidFlavor.MYSQL).build());
    api = new AdminApi(relay(store), null);
  }

  @AfterEach
  void close() throws IOException {
    store.close();
  }

  /** A RelayControl that has a store and nothing else (every other call fails the test). */
  private static RelayControl relay(BinlogStore store) {
    InvocationHandler h =
        (proxy, method, args) -> {
          if (method.getName().equals("store")) {
            return store;
          }
          if (method.isDefault()) {
            return InvocationHandler.invokeDefault(proxy, method, args);
          }
          throw new AssertionError("not expected: " + method);
        };
    return (RelayControl)
        Proxy.newProxyInstance(
            RelayControl.class.getClassLoader(), new Class<?>[] {RelayControl.class}, h);
  }

  private Answer plan(String body) {
    return api.handle("POST", "/api/v1/pitr/plan", null, body.getBytes(StandardCharsets.UTF_8));
  }

  private static JsonNode json(Answer a) throws IOException {
    return JSON.readTree(a.body());
  }

  @Test
  void planAfterTheLastTransactionOfTheSecondFile() throws Exception {
    FileMetadata last = store.files().get(1);
    FileMetadata first = store.files().get(0);
    String set = last.gtidsAtEnd().toString().replace("\n", "");
    Answer a =
        plan(
            "{\"stopAfterGtids\":\""
                + set
                + "\",\"backupGtids\":\""
                + first.gtidsAtStart().toString().replace("\n", "")
                + "\"}");
    assertThat(a.status()).as(a.bodyText()).isEqualTo(200);
    JsonNode plan = json(a);
    assertThat(plan.path("flavor").asText()).isEqualTo("mysql");
    assertThat(plan.path("stop").path("file").asText()).isEqualTo("binlog.000002");
    assertThat(plan.path("stop").path("gtidExecuted").asText()).isEqualTo(set);
    assertThat(plan.path("start").path("file").asText()).isEqualTo("binlog.000001");
    assertThat(plan.path("start").path("position").asLong()).isEqualTo(4);
    JsonNode files = plan.path("files");
    assertThat(files).hasSize(2);
    assertThat(files.get(0).path("to").asLong()).isEqualTo(store.readableLength("binlog.000001"));
    long stop = plan.path("stop").path("position").asLong();
    assertThat(files.get(1).path("to").asLong()).isEqualTo(stop);
    assertThat(plan.path("bytesToApply").asLong())
        .isEqualTo(store.readableLength("binlog.000001") - 4 + stop - 4);
  }

  @Test
  void aBackupAtTheStopOrNewerIsRefused() throws Exception {
    FileMetadata last = store.files().get(1);
    String end = last.gtidsAtEnd().toString().replace("\n", "");
    String firstGtid = last.firstGtid();
    Answer a = plan("{\"stopBeforeGtid\":\"" + firstGtid + "\",\"backupGtids\":\"" + end + "\"}");
    assertThat(a.status()).as(a.bodyText()).isEqualTo(409);
    assertThat(json(a).path("error").asText()).contains("after the stop point");
  }

  @Test
  void badInputIs400() throws Exception {
    assertThat(plan("{}").status()).isEqualTo(400);
    assertThat(json(plan("{}")).path("error").asText()).contains("give exactly one of");
    assertThat(plan("{\"untilTime\":\"2026-11-20T00:00:00Z\",\"stopBeforeGtid\":\"x\"}").status())
        .isEqualTo(400);
    Answer time = plan("{\"untilTime\":\"yesterday\"}");
    assertThat(time.status()).isEqualTo(400);
    assertThat(json(time).path("error").asText()).contains("is not an ISO-8601 UTC time");
    assertThat(plan("{\"stopBeforeGtid\":\"0-1-5\"}").status()).isEqualTo(400);
    Answer set = plan("{\"stopAfterGtids\":\"not a set\"}");
    assertThat(set.status()).isEqualTo(400);
    assertThat(json(set).path("error").asText()).contains("is not a MySQL GTID set");
    assertThat(plan("{\"untilTime\":5}").status()).isEqualTo(400);
    assertThat(plan("").status()).isEqualTo(400);
    assertThat(api.handle("GET", "/api/v1/pitr/plan", null, new byte[0]).status()).isEqualTo(405);
    assertThat(api.handle("HEAD", PitrDownload.PATH, null, new byte[0]).status()).isEqualTo(405);
  }

  @Test
  void pointsNotInTheBinlogAre409() throws Exception {
    Answer unknown = plan("{\"stopBeforeGtid\":\"3e11fa47-71ca-11e1-9e33-c80aa9429562:4711\"}");
    assertThat(unknown.status()).as(unknown.bodyText()).isEqualTo(409);
    assertThat(json(unknown).path("error").asText()).contains("is not in the stored binlog");
    Answer early = plan("{\"untilTime\":\"2001-01-01T00:00:00Z\"}");
    assertThat(early.status()).as(early.bodyText()).isEqualTo(409);
    assertThat(json(early).path("error").asText()).contains("nothing to roll forward");
  }

  @Test
  void downloadRefusals() {
    assertThat(api.pitrDownload(null, Map.of()).error().status()).isEqualTo(400);
    assertThat(api.pitrDownload(null, Map.of("name", List.of("binlog.000099"))).error().status())
        .isEqualTo(404);
    assertThat(
            api.pitrDownload(null, Map.of("name", List.of("binlog.000001"), "end", List.of("3")))
                .error()
                .status())
        .isEqualTo(400);
    assertThat(
            api.pitrDownload(null, Map.of("name", List.of("binlog.000001"), "end", List.of("12x")))
                .error()
                .bodyText())
        .contains("is not a byte offset");
  }

  @Test
  void downloadStreamsTheFileUpToTheOffsetWithTheInUseFlagCleared() throws Exception {
    AdminServer server =
        AdminServer.start(
            new AdminConfig(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                null,
                64 * 1024,
                Duration.ofSeconds(30),
                Duration.ofSeconds(20)),
            api);
    try {
      byte[] whole = Files.readAllBytes(data.resolve("binlog.000002"));
      long end = store.readableLength("binlog.000002");
      HttpClient http = HttpClient.newHttpClient();
      String base = "http://127.0.0.1:" + server.address().getPort() + PitrDownload.PATH;
      HttpResponse<byte[]> all =
          http.send(
              HttpRequest.newBuilder(URI.create(base + "?name=binlog.000002")).build(),
              HttpResponse.BodyHandlers.ofByteArray());
      assertThat(all.statusCode()).isEqualTo(200);
      assertThat(all.body()).hasSize((int) end);
      int flags = 4 + EventHeader.FLAGS_OFFSET;
      assertThat(all.body()[flags] & EventHeader.LOG_EVENT_BINLOG_IN_USE_F).isZero();
      byte[] expected = Arrays.copyOf(whole, (int) end);
      expected[flags] &= (byte) ~EventHeader.LOG_EVENT_BINLOG_IN_USE_F;
      assertThat(all.body()).isEqualTo(expected);

      // Cut, on the same keep-alive client; then a JSON error on the same client.
      HttpResponse<byte[]> cut =
          http.send(
              HttpRequest.newBuilder(URI.create(base + "?name=binlog.000002&end=200")).build(),
              HttpResponse.BodyHandlers.ofByteArray());
      assertThat(cut.body()).isEqualTo(Arrays.copyOf(expected, 200));
      HttpResponse<String> missing =
          http.send(
              HttpRequest.newBuilder(URI.create(base + "?name=nope")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(missing.statusCode()).isEqualTo(404);
      assertThat(missing.body()).contains("\"code\":\"not_found\"");
    } finally {
      server.close();
    }
  }

  private static Path fixtures() {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      Path f = d.resolve("protocol/src/test/resources/fixtures/mysql-9.7");
      if (Files.isDirectory(f)) {
        return f;
      }
    }
    throw new IllegalStateException("protocol/src/test/resources/fixtures/mysql-9.7 not found");
  }
}
