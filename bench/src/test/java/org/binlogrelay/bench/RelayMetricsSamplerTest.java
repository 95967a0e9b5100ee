package org.binlogrelay.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.binlogrelay.bench.report.Report;
import org.junit.jupiter.api.Test;

class RelayMetricsSamplerTest {
  private static byte[] histogram(long count) {
    return ("binlogrelay_upstream_behind_source_seconds 0.001\n"
            + "binlogrelay_relay_latency_seconds_bucket{le=\"0.001\"} "
            + count
            + "\nbinlogrelay_relay_latency_seconds_bucket{le=\"+Inf\"} "
            + count
            + "\nbinlogrelay_relay_latency_seconds_count "
            + count
            + "\nbinlogrelay_relay_latency_seconds_sum "
            + count * 0.0005
            + "\n")
        .getBytes(StandardCharsets.UTF_8);
  }

  /**
   * synthetic starts the sampler from its pacer at the start of the measured window: a slow first
   * scrape (a fresh HTTP client takes hundreds of milliseconds) held the pacer up, and it then sent
   * the transactions due meanwhile in one burst that set the run's p99. The first scrape now runs
   * on the sampler's thread: here it cannot complete before the constructor returned.
   */
  @Test
  void theConstructorReturnsBeforeTheFirstScrapeCompletes() throws Exception {
    CountDownLatch firstAnswered = new CountDownLatch(1);
    CountDownLatch constructed = new CountDownLatch(1);
    AtomicInteger requests = new AtomicInteger();
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/metrics",
        exchange -> {
          long count = 110;
          if (requests.incrementAndGet() == 1) {
            try {
              constructed.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            count = 10;
          }
          byte[] body = histogram(count);
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
          firstAnswered.countDown();
        });
    server.start();
    try {
      RelayMetricsScraper scraper =
          new RelayMetricsScraper(
              URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/metrics"));
      // a guard against a hang (the old constructor would wait for the held answer forever), not a
      // timing assertion
      RelayMetricsSampler sampler =
          assertTimeoutPreemptively(
              Duration.ofSeconds(60), () -> new RelayMetricsSampler(scraper, System.nanoTime()));
      assertThat(firstAnswered.getCount()).as("first scrape still held by the server").isEqualTo(1);
      constructed.countDown();
      firstAnswered.await();
      sampler.stop();
      Report report = new Report("t", "t");
      sampler.report(report);
      assertThat(report.value("relay_latency_observations"))
          .as("the run's share: the last scrape (110) minus the first (10)")
          .isEqualTo(100L);
    } finally {
      server.stop(0);
    }
  }
}
