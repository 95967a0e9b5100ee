package org.binlogrelay.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * The relay's own view of lag, read from its Prometheus endpoint ({@code GET /metrics} on the admin
 * port, docs/metrics.md) so that {@code lag} can report it next to the pt-heartbeat figures:
 *
 * <ul>
 *   <li>{@code binlogrelay_upstream_behind_source_seconds}: how far the relay is behind the primary
 *       (a gauge, sampled);
 *   <li>{@code binlogrelay_replica_behind_seconds}: how far each replica's feed is behind the
 *       relay's store (a gauge per replica, sampled; the largest is kept);
 *   <li>{@code binlogrelay_relay_latency_seconds}: the time a transaction spends in the relay, from
 *       its arrival to its hand-over to a replica's socket (a histogram; a run's share is the
 *       difference of two scrapes).
 * </ul>
 *
 * Only the text exposition format is read, line by line: {@code name{labels} value}. Series of one
 * name with several label sets are summed (histogram buckets, counts) or reduced to their maximum
 * (gauges). Immutable snapshots; the scraper is thread-safe.
 */
final class RelayMetricsScraper {
  static final String UPSTREAM_BEHIND = "binlogrelay_upstream_behind_source_seconds";
  static final String REPLICA_BEHIND = "binlogrelay_replica_behind_seconds";
  static final String LATENCY = "binlogrelay_relay_latency_seconds";

  /** Longest exposition read (a relay with 200 labelled replicas writes well under 1 MB). */
  private static final int MAX_BYTES = 16 << 20;

  /**
   * One scrape: the gauges' maxima and the latency histogram's cumulative buckets, count and sum.
   */
  record Snapshot(
      Double upstreamBehind,
      Double replicaBehind,
      TreeMap<Double, Double> buckets,
      double count,
      double sum) {

    /**
     * The latency observations between {@code earlier} and this scrape, as a histogram of their
     * own: bucket upper bound (seconds, the last +Inf) to cumulative count.
     */
    Snapshot since(Snapshot earlier) {
      TreeMap<Double, Double> delta = new TreeMap<>();
      for (Map.Entry<Double, Double> b : buckets.entrySet()) {
        delta.put(b.getKey(), b.getValue() - earlier.buckets.getOrDefault(b.getKey(), 0.0));
      }
      return new Snapshot(
          upstreamBehind, replicaBehind, delta, count - earlier.count, sum - earlier.sum);
    }

    /**
     * The {@code q} quantile (0..1) of the histogram in seconds, interpolated linearly inside its
     * bucket as Prometheus' {@code histogram_quantile} does; {@code NaN} without observations. A
     * quantile in the +Inf bucket is the largest finite bound.
     */
    double quantile(double q) {
      if (count <= 0 || buckets.isEmpty()) {
        return Double.NaN;
      }
      double rank = q * count;
      double lowerBound = 0;
      double lowerCount = 0;
      for (Map.Entry<Double, Double> b : buckets.entrySet()) {
        double bound = b.getKey();
        double cumulative = b.getValue();
        if (cumulative >= rank) {
          if (Double.isInfinite(bound)) {
            return lowerBound;
          }
          double inBucket = cumulative - lowerCount;
          return inBucket <= 0
              ? bound
              : lowerBound + (bound - lowerBound) * (rank - lowerCount) / inBucket;
        }
        lowerBound = Double.isInfinite(bound) ? lowerBound : bound;
        lowerCount = cumulative;
      }
      return lowerBound;
    }

    double mean() {
      return count <= 0 ? Double.NaN : sum / count;
    }
  }

  private final URI uri;
  private final HttpClient http;

  RelayMetricsScraper(URI uri) {
    if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
      throw new IllegalArgumentException(
          "--relay-metrics must be an http(s) URL, e.g. http://127.0.0.1:9307/metrics,"
              + " got "
              + uri);
    }
    this.uri = uri;
    this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  }

  URI uri() {
    return uri;
  }

  /** Scrapes the endpoint once. */
  Snapshot scrape() throws IOException, InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).GET().build();
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException(
          "GET "
              + uri
              + " answered HTTP "
              + response.statusCode()
              + " (is it the relay's admin"
              + " port? a relay bound off loopback needs its admin token, which relay-bench does not send)");
    }
    if (response.body().length() > MAX_BYTES) {
      throw new IOException(
          "GET "
              + uri
              + " returned "
              + response.body().length()
              + " characters, over the "
              + MAX_BYTES
              + " read");
    }
    return parse(response.body());
  }

  /** Reads a text exposition. */
  static Snapshot parse(String text) {
    Double upstream = null;
    Double replica = null;
    TreeMap<Double, Double> buckets = new TreeMap<>();
    double count = 0;
    double sum = 0;
    for (String line : text.split("\n")) {
      if (line.isEmpty() || line.charAt(0) == '#') {
        continue;
      }
      int brace = line.indexOf('{');
      int space = line.lastIndexOf(' ');
      if (space < 0) {
        continue;
      }
      int nameEnd = brace >= 0 && brace < space ? brace : line.indexOf(' ');
      String name = line.substring(0, nameEnd);
      double value;
      try {
        value = Double.parseDouble(line.substring(space + 1).strip());
      } catch (NumberFormatException e) {
        continue; // a timestamped or malformed line: not one of ours
      }
      switch (name) {
        case UPSTREAM_BEHIND -> upstream = max(upstream, value);
        case REPLICA_BEHIND -> replica = max(replica, value);
        case LATENCY + "_count" -> count += value;
        case LATENCY + "_sum" -> sum += value;
        case LATENCY + "_bucket" -> {
          String le = label(line, "le");
          if (le != null) {
            double bound = le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le);
            buckets.merge(bound, value, Double::sum);
          }
        }
        default -> {}
      }
    }
    return new Snapshot(upstream, replica, buckets, count, sum);
  }

  private static Double max(Double current, double value) {
    if (Double.isNaN(value)) {
      return current;
    }
    return current == null ? value : Math.max(current, value);
  }

  /** The value of label {@code name} in a series line, or {@code null}. */
  private static String label(String line, String name) {
    String key = name + "=\"";
    int at = line.indexOf("{" + key);
    if (at < 0) {
      at = line.indexOf("," + key);
    }
    if (at < 0) {
      return null;
    }
    int start = at + 1 + key.length();
    int end = line.indexOf('"', start);
    return end < 0 ? null : line.substring(start, end);
  }
}
