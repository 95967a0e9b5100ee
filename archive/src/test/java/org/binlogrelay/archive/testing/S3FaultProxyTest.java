package org.binlogrelay.archive.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.binlogrelay.archive.testing.S3FaultProxy.Exchange;
import org.binlogrelay.archive.testing.S3FaultProxy.Fault;
import org.binlogrelay.archive.testing.S3FaultProxy.Rule;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The proxy's HTTP framing and rules, against the JDK's small HTTP server as the target and a raw
 * socket as the client, so every byte on the wire is the test's.
 */
class S3FaultProxyTest {
  private HttpServer server;
  private S3FaultProxy proxy;
  private final List<String> served = new ArrayList<>();

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 10);
    server.createContext(
        "/",
        exchange -> {
          byte[] body = exchange.getRequestBody().readAllBytes();
          synchronized (served) {
            served.add(
                exchange.getRequestMethod()
                    + " "
                    + exchange.getRequestURI()
                    + " "
                    + new String(body, StandardCharsets.UTF_8));
          }
          byte[] answer = ("got " + body.length).getBytes(StandardCharsets.UTF_8);
          boolean chunked = exchange.getRequestURI().getPath().endsWith("/chunked");
          if (exchange.getRequestMethod().equals("HEAD")) {
            exchange.getResponseHeaders().add("Content-Length", "42");
            exchange.sendResponseHeaders(200, -1);
          } else {
            exchange.sendResponseHeaders(200, chunked ? 0 : answer.length);
            try (OutputStream out = exchange.getResponseBody()) {
              out.write(answer);
            }
          }
          exchange.close();
        });
    server.start();
    proxy = new S3FaultProxy(URI.create("http://127.0.0.1:" + server.getAddress().getPort()));
  }

  @AfterEach
  void stop() throws IOException {
    proxy.close();
    server.stop(0);
  }

  @Test
  void carriesManyRequestsOnOneConnectionUnchanged() throws IOException {
    try (Socket s = connect()) {
      var in = reader(s);
      send(s, "PUT /b/k1 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello");
      assertThat(readAnswer(in)).isEqualTo("200 got 5");
      send(s, "HEAD /b/k1 HTTP/1.1\r\nHost: x\r\n\r\n");
      assertThat(readHead(in)).startsWith("HTTP/1.1 200");
      send(s, "GET /b/chunked HTTP/1.1\r\nHost: x\r\n\r\n");
      assertThat(readAnswer(in)).isEqualTo("200 got 0");
      send(
          s,
          "PUT /b/k2?partNumber=1&uploadId=u HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nab");
      assertThat(readAnswer(in)).isEqualTo("200 got 2");
    }

    assertThat(served)
        .containsExactly(
            "PUT /b/k1 hello",
            "HEAD /b/k1 ",
            "GET /b/chunked ",
            "PUT /b/k2?partNumber=1&uploadId=u ab");
    assertThat(proxy.exchanges())
        .extracting(Exchange::connection, Exchange::method, Exchange::path, Exchange::status)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1, "PUT", "/b/k1", 200),
            org.assertj.core.groups.Tuple.tuple(1, "HEAD", "/b/k1", 200),
            org.assertj.core.groups.Tuple.tuple(1, "GET", "/b/chunked", 200),
            org.assertj.core.groups.Tuple.tuple(1, "PUT", "/b/k2", 200));
    assertThat(proxy.completedWrites("/b/k1")).isEqualTo(1);
    assertThat(proxy.completedWrites("/b/k2")).isZero(); // a part is not a completed write
  }

  @Test
  void passesOnTheServersContinueBeforeTheBody() throws IOException {
    try (Socket s = connect()) {
      var in = reader(s);
      send(s, "PUT /b/k HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n");
      assertThat(readHead(in)).startsWith("HTTP/1.1 100");
      send(s, "abc");
      assertThat(readAnswer(in)).isEqualTo("200 got 3");
    }
    assertThat(served).containsExactly("PUT /b/k abc");
  }

  @Test
  void answersTheNthMatchWithAnS3ErrorTheServerNeverSees() throws IOException {
    proxy.add(Rule.on("PUT", "/b/.*").query("partNumber=2").nth(2).fault(Fault.slowDown()));
    List<String> answers = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      try (Socket s = connect()) {
        send(
            s,
            "PUT /b/k?partNumber=2&uploadId=u HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nz");
        answers.add(readAnswer(reader(s)));
      }
    }

    assertThat(answers.get(0)).isEqualTo("200 got 1");
    assertThat(answers.get(1)).startsWith("503 <?xml").contains("<Code>SlowDown</Code>");
    assertThat(answers.get(2)).isEqualTo("200 got 1");
    assertThat(served).hasSize(2);
    assertThat(proxy.exchanges()).extracting(Exchange::status).containsExactly(200, 503, 200);
  }

  @Test
  void aDelayedRequestIsForwarded() throws IOException {
    proxy.add(Rule.on("GET", "/b/slow").fault(Fault.delay(java.time.Duration.ofMillis(200))));
    try (Socket s = connect()) {
      send(s, "GET /b/slow HTTP/1.1\r\nHost: x\r\n\r\n");
      assertThat(readAnswer(reader(s))).isEqualTo("200 got 0");
    }
    assertThat(proxy.exchanges())
        .singleElement()
        .satisfies(e -> assertThat(e.fault()).isInstanceOf(S3FaultProxy.Delay.class))
        .satisfies(e -> assertThat(e.headers()).containsEntry("host", "x"));
  }

  @Test
  void resetsHalfwayThroughTheBody() throws IOException {
    proxy.add(Rule.on("PUT", ".*").fault(Fault.reset()));
    try (Socket s = connect()) {
      send(s, "PUT /b/k HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456789");
      assertThat(s.getInputStream().read()).isEqualTo(-1);
    } catch (java.net.SocketException expected) {
      // "Connection reset": what the test wants
    }
    assertThat(proxy.exchanges()).extracting(Exchange::status).containsExactly(-1);
  }

  private Socket connect() throws IOException {
    Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.endpoint().getPort());
    s.setSoTimeout(10_000);
    return s;
  }

  private static void send(Socket s, String text) throws IOException {
    s.getOutputStream().write(text.getBytes(StandardCharsets.ISO_8859_1));
    s.getOutputStream().flush();
  }

  private static BufferedReader reader(Socket s) throws IOException {
    return new BufferedReader(
        new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1));
  }

  private static String readHead(BufferedReader in) throws IOException {
    StringBuilder head = new StringBuilder();
    for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
      head.append(line).append('\n');
    }
    return head.toString();
  }

  /** "status body" of one answer with a Content-Length or chunked body. */
  private static String readAnswer(BufferedReader in) throws IOException {
    String head = readHead(in);
    String status = head.split(" ")[1];
    String lower = head.toLowerCase(java.util.Locale.ROOT);
    StringBuilder body = new StringBuilder();
    if (lower.contains("transfer-encoding: chunked")) {
      for (int size = Integer.parseInt(in.readLine().trim(), 16);
          size > 0;
          size = Integer.parseInt(in.readLine().trim(), 16)) {
        char[] chunk = new char[size];
        int n = 0;
        while (n < size) {
          n += in.read(chunk, n, size - n);
        }
        body.append(chunk);
        in.readLine();
      }
      in.readLine();
    } else {
      int at = lower.indexOf("content-length: ");
      int length = Integer.parseInt(lower.substring(at + 16, lower.indexOf('\n', at)).trim());
      char[] chars = new char[length];
      int n = 0;
      while (n < length) {
        n += in.read(chars, n, length - n);
      }
      body.append(chars);
    }
    return status + " " + body;
  }
}
