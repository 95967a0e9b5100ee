package org.binlogrelay.e2e.campaign;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Test side: the admin API of a campaign topology's relay (docs/admin-api.md), for the tests that
 * watch its store: status as JSON, one value of {@code /metrics}, and waiting until the upstream
 * waits for the store. Thread-safe.
 */
final class CampaignAdminClient {
  private final CampaignTopology topology;
  private final String base;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final ObjectMapper json = new ObjectMapper();

  CampaignAdminClient(CampaignTopology topology) {
    this.topology = topology;
    this.base = "http://" + topology.relayAdmin().host() + ":" + topology.relayAdmin().port();
  }

  /**
   * {@code GET /api/v1/status}; {@code null} while the admin API is not up (the relay is starting).
   */
  JsonNode status() throws IOException, InterruptedException {
    try {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(base + "/api/v1/status")).GET().build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as("GET /api/v1/status: " + r.body()).isEqualTo(200);
      return json.readTree(r.body());
    } catch (ConnectException notUpYet) {
      return null;
    }
  }

  /** The value of the first sample of {@code name} in {@code /metrics}. */
  double metric(String name) throws IOException, InterruptedException {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/metrics")).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    return r.body()
        .lines()
        .filter(l -> l.startsWith(name + " ") || l.startsWith(name + "{"))
        .map(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .findFirst()
        .orElseThrow(() -> new AssertionError(name + " missing from /metrics"));
  }

  /**
   * Waits up to {@code limit} until the relay's upstream waits for the store; returns the status's
   * store part.
   */
  JsonNode awaitWaitingForStore(Duration limit) throws Exception {
    return eventually(
            limit,
            "the relay's upstream waiting for the store",
            () -> {
              topology.relay().requireNoUnexpectedEnd();
              return status();
            },
            status ->
                status != null
                    && status.path("upstream").path("state").asText().equals("WAITING_FOR_STORE"))
        .get("store");
  }
}
