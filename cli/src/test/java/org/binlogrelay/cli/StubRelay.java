package org.binlogrelay.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Test side: a stand-in for the relay's admin HTTP API on 127.0.0.1 and an ephemeral port (JDK
 * {@code com.sun.net.httpserver}), answering contract-shaped JSON ({@code docs/admin-api.md}) that
 * a test sets per method and path, and recording every request it gets. With a token set, it
 * answers 401 to requests without {@code Authorization: Bearer <token>} as the relay does. Unknown
 * paths get the contract's 404 body. Thread-safe.
 */
final class StubRelay implements AutoCloseable {
  /** One request as the stub received it. */
  record Request(
      String method, String path, String authorization, String contentType, String body) {}

  private record Answer(int status, String body) {}

  private final HttpServer server;
  private final Map<String, Deque<Answer>> answers = new ConcurrentHashMap<>();
  private final List<Request> requests = new ArrayList<>();
  private final CountDownLatch released = new CountDownLatch(1);
  private volatile String token;
  private volatile boolean hang;

  StubRelay() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "stub-relay");
              t.setDaemon(true);
              return t;
            }));
    server.createContext("/", this::handle);
    server.start();
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  int port() {
    return server.getAddress().getPort();
  }

  StubRelay token(String token) {
    this.token = token;
    return this;
  }

  /** Requests are held without an answer until {@link #close()} (for timeouts). */
  StubRelay hang() {
    this.hang = true;
    return this;
  }

  /**
   * Answers {@code method path} with {@code status} and {@code body}; several calls queue answers,
   * the last repeats.
   */
  StubRelay answer(String method, String path, int status, String body) {
    answers
        .computeIfAbsent(method + " " + path, k -> new ArrayDeque<>())
        .add(new Answer(status, body));
    return this;
  }

  StubRelay answer(String method, String path, String body) {
    return answer(method, path, 200, body);
  }

  synchronized List<Request> requests() {
    return List.copyOf(requests);
  }

  synchronized int count(String method, String path) {
    return (int)
        requests.stream().filter(r -> r.method().equals(method) && r.path().equals(path)).count();
  }

  Request only() {
    List<Request> all = requests();
    if (all.size() != 1) {
      throw new AssertionError("expected one request, got " + all);
    }
    return all.get(0);
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      Request request =
          new Request(
              exchange.getRequestMethod(),
              exchange.getRequestURI().getRawPath(),
              exchange.getRequestHeaders().getFirst("Authorization"),
              exchange.getRequestHeaders().getFirst("Content-Type"),
              body);
      synchronized (this) {
        requests.add(request);
      }
      if (hang) {
        released.await(60, TimeUnit.SECONDS);
        return;
      }
      Answer answer;
      String expected = token == null ? null : "Bearer " + token;
      if (expected != null && !expected.equals(request.authorization())) {
        answer =
            new Answer(
                401, "{\"error\":\"missing or wrong bearer token\",\"code\":\"unauthorized\"}");
      } else {
        Deque<Answer> queue = answers.get(request.method() + " " + request.path());
        if (queue == null) {
          answer =
              new Answer(
                  404,
                  "{\"error\":\"no such endpoint: "
                      + request.path()
                      + "\",\"code\":\"not_found\"}");
        } else {
          synchronized (queue) {
            answer = queue.size() > 1 ? queue.poll() : queue.peek();
          }
        }
      }
      byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(answer.status(), bytes.length == 0 ? -1 : bytes.length);
      if (bytes.length > 0) {
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(bytes);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    released.countDown();
    server.stop(0);
  }
}
