package org.binlogrelay.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RelayMetricsScraperTest {
  /**
   * The shape the relay's Micrometer Prometheus registry writes (names and labels as in
   * docs/metrics.md).
   */
  private static String exposition(double behind, long[] cumulative, double sum) {
    String[] le = {"1.0E-4", "2.5E-4", "5.0E-4", "0.001", "0.0025", "0.005", "0.01", "+Inf"};
    StringBuilder b =
        new StringBuilder()
            .append(
                "# HELP binlogrelay_upstream_behind_source_seconds Seconds the relay is behind\n")
            .append("# TYPE binlogrelay_upstream_behind_source_seconds gauge\n")
            .append("binlogrelay_upstream_behind_source_seconds ")
            .append(behind)
            .append('\n')
            .append("binlogrelay_replica_behind_seconds{host=\"127.0.0.1\",server_id=\"3\"} 0.0\n")
            .append("binlogrelay_replica_behind_seconds{host=\"127.0.0.1\",server_id=\"4\"} 2.0\n")
            .append("# TYPE binlogrelay_relay_latency_seconds histogram\n");
    for (int i = 0; i < le.length; i++) {
      b.append("binlogrelay_relay_latency_seconds_bucket{le=\"")
          .append(le[i])
          .append("\"} ")
          .append(cumulative[i])
          .append('\n');
    }
    return b.append("binlogrelay_relay_latency_seconds_count ")
        .append(cumulative[le.length - 1])
        .append('\n')
        .append("binlogrelay_relay_latency_seconds_sum ")
        .append(sum)
        .append('\n')
        .append("jvm_threads_live_threads 31.0\n")
        .toString();
  }

  @Test
  void readsTheGaugesAndTheRunsShareOfTheLatencyHistogram() {
    RelayMetricsScraper.Snapshot before =
        RelayMetricsScraper.parse(
            exposition(0.25, new long[] {0, 0, 10, 10, 10, 10, 10, 10}, 0.004));
    RelayMetricsScraper.Snapshot after =
        RelayMetricsScraper.parse(
            exposition(0.003, new long[] {0, 0, 10, 60, 100, 110, 110, 110}, 0.204));
    assertThat(before.upstreamBehind()).isEqualTo(0.25);
    assertThat(after.replicaBehind()).as("the largest replica").isEqualTo(2.0);
    RelayMetricsScraper.Snapshot run = after.since(before);
    assertThat(run.count()).isEqualTo(100);
    assertThat(run.mean()).isCloseTo(0.002, within(1e-12));
    // 100 observations: 50 in (0.5, 1] ms, 40 in (1, 2.5] ms, 10 in (2.5, 5] ms
    assertThat(run.quantile(0.5)).isCloseTo(0.001, within(1e-12));
    assertThat(run.quantile(0.25)).isCloseTo(0.00075, within(1e-12));
    assertThat(run.quantile(0.95)).isCloseTo(0.00375, within(1e-12));
    assertThat(
            RelayMetricsScraper.parse("binlogrelay_relay_latency_seconds_count 0\n").quantile(0.5))
        .isNaN();
  }

  @Test
  void aQuantileInTheInfiniteBucketIsTheLargestFiniteBound() {
    RelayMetricsScraper.Snapshot s =
        RelayMetricsScraper.parse(exposition(0, new long[] {0, 0, 0, 0, 0, 0, 1, 4}, 1));
    assertThat(s.quantile(0.99)).isEqualTo(0.01);
  }

  @Test
  void scrapesAnHttpEndpointAndSaysWhatFailed() throws IOException, InterruptedException {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/metrics",
        exchange -> {
          byte[] body =
              exposition(0.5, new long[] {1, 1, 1, 1, 1, 1, 1, 1}, 0.0001)
                  .getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
    try {
      int port = server.getAddress().getPort();
      RelayMetricsScraper metrics =
          new RelayMetricsScraper(URI.create("http://127.0.0.1:" + port + "/metrics"));
      assertThat(metrics.scrape().upstreamBehind()).isEqualTo(0.5);
      RelayMetricsScraper wrong =
          new RelayMetricsScraper(URI.create("http://127.0.0.1:" + port + "/nothing"));
      assertThatThrownBy(wrong::scrape)
          .isInstanceOf(IOException.class)
          .hasMessageContaining("HTTP 404");
    } finally {
      server.stop(0);
    }
    assertThatThrownBy(() -> new RelayMetricsScraper(URI.create("ftp://x/metrics")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("http(s) URL");
  }
}
