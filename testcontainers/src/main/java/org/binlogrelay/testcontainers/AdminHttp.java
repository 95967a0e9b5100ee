package org.binlogrelay.testcontainers;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Requests to a relay's admin API (docs/admin-api.md) with its bearer token, over the JDK's HTTP
 * client: the body of a 200 answer, or an {@link IllegalStateException} that names the relay, the
 * request and the relay's error. The base URL is asked for at each request, because a restarted
 * container's port may be mapped anew.
 *
 * <p>Thread-safe (the JDK's client is).
 */
final class AdminHttp {
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

  /** Less than the admin API's 30 s idle timeout; its commands answer within 25 s. */
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(29);

  private final Supplier<String> baseUrl;
  private final Supplier<String> token;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).build();

  AdminHttp(Supplier<String> baseUrl, Supplier<String> token) {
    this.baseUrl = baseUrl;
    this.token = token;
  }

  String get(String path, String relayName) {
    return send(HttpRequest.newBuilder(uri(path)).GET(), path, relayName);
  }

  String post(String path, String jsonBody, String relayName) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri(path))
            .header("Content-Type", "application/json")
            .POST(
                jsonBody == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(jsonBody, StandardCharsets.UTF_8));
    return send(request, path, relayName);
  }

  private URI uri(String path) {
    Objects.requireNonNull(path, "path");
    if (!path.startsWith("/")) {
      throw new IllegalArgumentException("an admin API path starts with '/': '" + path + "'");
    }
    return URI.create(baseUrl.get() + path);
  }

  private String send(HttpRequest.Builder request, String path, String relayName) {
    HttpRequest built =
        request.header("Authorization", "Bearer " + token.get()).timeout(REQUEST_TIMEOUT).build();
    HttpResponse<String> response;
    try {
      response = http.send(built, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalStateException(
          "admin API of relay " + relayName + " unreachable at " + built.uri() + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while asking the relay's admin API", e);
    }
    if (response.statusCode() != 200) {
      throw new IllegalStateException(
          built.method()
              + " "
              + path
              + " on relay "
              + relayName
              + " answered "
              + response.statusCode()
              + ": "
              + response.body());
    }
    return response.body();
  }
}
