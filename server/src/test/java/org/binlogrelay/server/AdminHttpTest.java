package org.binlogrelay.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.server.admin.AdminConfig;
import org.binlogrelay.storage.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin HTTP server of a real relay (store in a temporary directory, no primary):
 * authentication, routing, error answers, JSON shapes, size limits and the Prometheus scrape.
 */
@Timeout(60)
class AdminHttpTest {
  private static final String TOKEN = "s3cret-token";
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final ObjectMapper json = new ObjectMapper();

  @TempDir Path dir;

  private Relay relay;
  private String base;

  @BeforeEach
  void start() throws Exception {
    AdminConfig admin =
        new AdminConfig(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            TOKEN,
            1024,
            Duration.ofSeconds(5),
            Duration.ofSeconds(4));
    relay =
        new Relay(
            FlavorDetectionTest.config(dir.resolve("data"), GtidFlavor.MYSQL, null, Duration.ZERO)
                .withAdmin(admin),
            Time.SYSTEM);
    relay.start();
    base = "http://127.0.0.1:" + relay.adminServer().address().getPort();
  }

  @AfterEach
  void stop() {
    relay.close();
  }

  private HttpResponse<String> get(String path, String token) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return http.send(b.GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(String path, String body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofSeconds(10))
            .header("Authorization", "Bearer " + TOKEN)
            .POST(
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private JsonNode error(HttpResponse<String> r, int status, String code) throws Exception {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    assertThat(r.headers().firstValue("Content-Type"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
    JsonNode body = json.readTree(r.body());
    assertThat(body.get("code").asText()).isEqualTo(code);
    assertThat(body.get("error").asText())
        .isNotBlank()
        .doesNotContain("\n")
        .doesNotContain("at org.");
    return body;
  }

  @Test
  void healthAndReadinessNeedNoToken() throws Exception {
    HttpResponse<String> health = get("/health", null);
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(json.readTree(health.body()).get("status").asText()).isEqualTo("UP");
    HttpResponse<String> ready = get("/ready", null);
    assertThat(ready.statusCode()).isEqualTo(200);
    assertThat(json.readTree(ready.body()).get("status").asText()).isEqualTo("READY");
  }

  @Test
  void everythingElseNeedsTheToken() throws Exception {
    for (String path : new String[] {"/metrics", "/api/v1/status", "/api/v1/replicas", "/nope"}) {
      error(get(path, null), 401, "unauthorized");
      error(get(path, "wrong"), 401, "unauthorized");
      error(get(path, TOKEN + "x"), 401, "unauthorized");
    }
    assertThat(get("/api/v1/status", null).headers().firstValue("WWW-Authenticate")).isPresent();
  }

  @Test
  void statusHasTheContractsShape() throws Exception {
    HttpResponse<String> r = get("/api/v1/status", TOKEN);
    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode s = json.readTree(r.body());
    JsonNode relayNode = s.get("relay");
    assertThat(relayNode.get("state").asText()).isEqualTo("RUNNING");
    assertThat(relayNode.get("flavor").asText()).isEqualTo("mysql");
    assertThat(relayNode.get("serverId").asLong()).isEqualTo(9001);
    assertThat(relayNode.get("replicaAddress").asText()).startsWith("127.0.0.1:");
    assertThat(relayNode.get("startedAt").asText()).endsWith("Z");
    assertThat(relayNode.get("uptimeSeconds").isNumber()).isTrue();
    assertThat(s.get("upstream").isNull()).isTrue();
    JsonNode store = s.get("store");
    assertThat(store.get("condition").asText()).isEqualTo("ACCEPTING");
    assertThat(store.get("files").asInt()).isZero();
    assertThat(store.get("head").isNull()).isTrue();
    assertThat(store.has("executedGtids")).isTrue();
    assertThat(s.get("replicas").get("connected").asInt()).isZero();

    JsonNode gtid = json.readTree(get("/api/v1/gtid", TOKEN).body());
    assertThat(gtid.get("flavor").asText()).isEqualTo("mysql");
    assertThat(gtid.get("executed").asText()).isEmpty();
    assertThat(json.readTree(get("/api/v1/binlogs", TOKEN).body()).isArray()).isTrue();
    assertThat(json.readTree(get("/api/v1/replicas", TOKEN).body()).size()).isZero();
    JsonNode lag = json.readTree(get("/api/v1/lag", TOKEN).body());
    assertThat(lag.get("upstream").get("state").isNull()).isTrue();
    assertThat(lag.get("replicas").isArray()).isTrue();
  }

  @Test
  void wrongPathsMethodsAndBodiesGetTheirErrors() throws Exception {
    error(get("/api/v1/nothing", TOKEN), 404, "not_found");
    error(get("/api/v1/replicas/42", TOKEN), 404, "not_found");
    error(post("/api/v1/replicas/42/pause", null), 404, "not_found");
    error(post("/api/v1/status", null), 405, "method_not_allowed");
    error(get("/api/v1/binlogs/purge", TOKEN), 405, "method_not_allowed");
    error(get("/api/v1/upstream", TOKEN), 409, "conflict");
    error(post("/api/v1/upstream/stop", null), 409, "conflict");
    error(post("/api/v1/binlogs/rotate", null), 409, "conflict");
    error(post("/api/v1/binlogs/purge", "{not json"), 400, "bad_request");
    error(post("/api/v1/binlogs/purge", "[1]"), 400, "bad_request");
    error(post("/api/v1/binlogs/purge", "{}"), 400, "bad_request");
    error(post("/api/v1/binlogs/purge", "{\"before\": \"yesterday\"}"), 400, "bad_request");
    error(
        post("/api/v1/binlogs/purge", "{\"to\": \"binlog.000009\", \"force\": \"yes\"}"),
        400,
        "bad_request");
    error(post("/api/v1/binlogs/purge", "{\"to\": \"binlog.000009\"}"), 404, "not_found");
    error(
        post("/api/v1/binlogs/purge", "{\"to\": \"" + "x".repeat(2000) + "\"}"), 413, "too_large");
  }

  @Test
  void metricsAreThePrometheusTextFormat() throws Exception {
    HttpResponse<String> r = get("/metrics", TOKEN);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("text/plain"));
    assertThat(r.body())
        .contains("# TYPE binlogrelay_store_files gauge")
        .contains("binlogrelay_store_files 0.0")
        .contains("# TYPE binlogrelay_store_fsync_seconds histogram")
        .contains("binlogrelay_store_recovery_duration_seconds ")
        .contains("binlogrelay_upstream_state{state=\"streaming\"} 0.0")
        .contains("binlogrelay_replicas_connected 0.0")
        .contains("binlogrelay_relay_latency_seconds_bucket")
        .contains("jvm_memory_used_bytes")
        .contains("process_uptime_seconds");
  }

  @Test
  void oversizedHeadersAreRefusedAndTheConnectionClosed() throws Exception {
    try (Socket s = new Socket("127.0.0.1", relay.adminServer().address().getPort())) {
      s.setSoTimeout(5000);
      OutputStream out = s.getOutputStream();
      out.write(
          ("GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(20_000) + "\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      String answer = readAll(s.getInputStream());
      assertThat(answer).startsWith("HTTP/1.1 431").contains("\"code\":\"too_large\"");
    }
  }

  private static String readAll(InputStream in) throws IOException {
    return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
  }
}
