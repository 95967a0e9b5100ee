package org.binlogrelay.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;

/**
 * The relay's admin HTTP API ({@code docs/admin-api.md}) as relayctl calls it: {@code GET} and
 * {@code POST} of JSON under a base URL, with the bearer token when there is one. Answers are
 * parsed JSON; everything else becomes a {@link RelayctlException} with relayctl's exit code: the
 * relay's own error message for a non-2xx answer ({@link Relayctl#RELAY_ERROR}), {@link
 * Relayctl#UNAUTHORIZED} for 401, and {@link Relayctl#UNREACHABLE} when no answer came.
 * Thread-safe.
 */
final class AdminClient {
  static final ObjectMapper JSON =
      new ObjectMapper()
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private final URI base;
  private final String token;
  private final Duration timeout;
  private final HttpClient http;

  AdminClient(URI base, String token, Duration timeout) {
    this.base = base;
    this.token = token;
    this.timeout = timeout;
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(timeout)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  URI base() {
    return base;
  }

  JsonNode get(String path) {
    return send("GET", path, null);
  }

  /** A command; {@code body} may be null (no body). */
  JsonNode post(String path, ObjectNode body) {
    return send("POST", path, body);
  }

  /**
   * {@code GET path} streamed into {@code target} (replaced), for the one binary answer (a binlog
   * file to apply); an error answer becomes a {@link RelayctlException} as for JSON.
   *
   * @return the bytes written
   */
  long download(String path, Path target) {
    URI uri = URI.create(base + path);
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri).timeout(timeout).header("User-Agent", "relayctl").GET();
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    HttpResponse<InputStream> response;
    try {
      response = http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
    } catch (HttpConnectTimeoutException e) {
      throw unreachable("no connection within " + HumanUnits.duration(timeout));
    } catch (HttpTimeoutException e) {
      throw unreachable("no answer within " + HumanUnits.duration(timeout));
    } catch (ConnectException e) {
      throw unreachable("connection refused");
    } catch (IOException e) {
      throw unreachable(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RelayctlException(Relayctl.RELAY_ERROR, "interrupted while waiting for the relay");
    }
    try (InputStream in = response.body()) {
      int status = response.statusCode();
      if (status / 100 != 2) {
        JsonNode answer = parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        JsonNode error = answer == null ? null : answer.get("error");
        throw new RelayctlException(
            status == 401 ? Relayctl.UNAUTHORIZED : Relayctl.RELAY_ERROR,
            error != null && error.isTextual()
                ? oneLine(error.asText())
                : "HTTP " + status + " from GET " + path);
      }
      return Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new RelayctlException(
          Relayctl.RELAY_ERROR, "downloading " + uri + " to " + target + " failed: " + e);
    }
  }

  private JsonNode send(String method, String path, ObjectNode body) {
    URI uri = URI.create(base + path);
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri)
            .timeout(timeout)
            .header("Accept", "application/json")
            .header("User-Agent", "relayctl");
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    if (body == null) {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      request
          .header("Content-Type", "application/json")
          .method(
              method, HttpRequest.BodyPublishers.ofString(body.toString(), StandardCharsets.UTF_8));
    }
    HttpResponse<String> response;
    try {
      response =
          http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (HttpConnectTimeoutException e) {
      throw unreachable("no connection within " + HumanUnits.duration(timeout));
    } catch (HttpTimeoutException e) {
      throw unreachable("no answer within " + HumanUnits.duration(timeout));
    } catch (ConnectException e) {
      throw unreachable("connection refused");
    } catch (IOException e) {
      throw unreachable(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RelayctlException(Relayctl.RELAY_ERROR, "interrupted while waiting for the relay");
    }
    int status = response.statusCode();
    if (status == 401) {
      throw new RelayctlException(
          Relayctl.UNAUTHORIZED,
          token == null
              ? "unauthorized: the relay at "
                  + base
                  + " wants a bearer token; give --token-file FILE or RELAYCTL_TOKEN"
              : "unauthorized: the relay at " + base + " refused the token");
    }
    JsonNode answer = parse(response.body());
    if (status / 100 != 2) {
      JsonNode error = answer == null ? null : answer.get("error");
      String message =
          error != null && error.isTextual() && !error.asText().isBlank()
              ? error.asText()
              : "HTTP " + status + " from " + method + " " + path;
      throw new RelayctlException(Relayctl.RELAY_ERROR, oneLine(message));
    }
    if (answer == null) {
      throw new RelayctlException(
          Relayctl.RELAY_ERROR,
          method
              + " "
              + uri
              + " answered with something that is not JSON; is --url the relay's admin port?");
    }
    return answer;
  }

  private static JsonNode parse(String body) {
    if (body == null || body.isBlank()) {
      return NullNode.getInstance();
    }
    try {
      return JSON.readTree(body);
    } catch (JsonProcessingException e) {
      return null;
    }
  }

  private RelayctlException unreachable(String reason) {
    return new RelayctlException(
        Relayctl.UNREACHABLE, "cannot reach the relay at " + base + ": " + oneLine(reason));
  }

  private static String oneLine(String message) {
    return message.replaceAll("\\s*[\\r\\n]+\\s*", " ").strip();
  }
}
