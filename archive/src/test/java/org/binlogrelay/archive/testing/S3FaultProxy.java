package org.binlogrelay.archive.testing;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

/**
 * Test side: an HTTP/1.1 forwarder on 127.0.0.1 in front of an S3-compatible server that fails
 * chosen requests the ways object stores and networks do, and records every request. Named for S3
 * so as not to be taken for the end-to-end tests' byte-level {@code FaultyProxy}.
 *
 * <p>It parses only request and response heads (request line, status line, headers) to find where
 * each message ends ({@code Content-Length}, {@code chunked}, no body for HEAD/1xx/204/304, else
 * until close): the bytes pass unchanged, so AWS signatures still verify. One client connection
 * carries any number of requests in turn (keep-alive), each over one connection to the server;
 * {@code Expect: 100-continue} is honoured (the server's {@code 100 Continue} is passed on before
 * the body). Pipelining is not supported (no S3 client pipelines).
 *
 * <p>A {@link Rule} picks requests by method, path (the whole path, without the query, as sent:
 * {@code /bucket/key}), optional query pattern and match count (the n-th matching request, or n of
 * them from the m-th); the first rule that picks a request applies its {@link Fault}: an S3 error
 * answer ({@code 503 SlowDown}, {@code 500 InternalError}, {@code 403 AccessDenied}) without the
 * server seeing the request, a delay before forwarding, a stall (never answered, connection kept
 * open until the client gives up), or a reset halfway through the request body (or, for a request
 * without a body, halfway through the response body). An injected answer closes the connection
 * after it.
 *
 * <p>{@link #exchanges()} lists every request with its status ({@code -1}: no answer reached the
 * client); {@link #completedWrites(String)} counts the successful object writes (PUT without {@code
 * uploadId}, POST with {@code uploadId}: a completed multipart upload) of one path.
 *
 * <p>Thread-safe: one acceptor thread and one thread per client connection; rules and the record
 * are concurrent lists.
 */
public final class S3FaultProxy implements AutoCloseable {
  private static final int MAX_HEAD_BYTES = 64 * 1024;

  private final InetSocketAddress target;
  private final ServerSocket listener;
  private final List<ActiveRule> rules = new CopyOnWriteArrayList<>();
  private final List<Exchange> exchanges = new CopyOnWriteArrayList<>();
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final AtomicInteger connections = new AtomicInteger();
  private volatile boolean closed;

  /** Starts forwarding to {@code target} ({@code http://host:port}). */
  public S3FaultProxy(URI target) throws IOException {
    this.target = new InetSocketAddress(target.getHost(), target.getPort());
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::accept, "s3-fault-proxy-" + listener.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** {@code http://127.0.0.1:port}: the endpoint clients use instead of the server's. */
  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + listener.getLocalPort());
  }

  /** Adds a rule after the existing ones; its match count starts at zero. */
  public void add(Rule rule) {
    rules.add(new ActiveRule(rule));
  }

  /** Removes every rule: requests are forwarded as they are. */
  public void clearRules() {
    rules.clear();
  }

  /** Every request so far, in the order their answers ended (or failed). */
  public List<Exchange> exchanges() {
    return List.copyOf(exchanges);
  }

  /** Forgets the recorded requests. */
  public void clearExchanges() {
    exchanges.clear();
  }

  /**
   * How many writes of the object at {@code path} ({@code /bucket/key}) the server answered with
   * 200: single PUTs and completed multipart uploads.
   */
  public long completedWrites(String path) {
    return exchanges.stream().filter(e -> e.path().equals(path) && e.completedWrite()).count();
  }

  /** Closes the listener and every connection (stalled ones included). */
  @Override
  public void close() throws IOException {
    closed = true;
    listener.close();
    for (Socket s : sockets) {
      closeQuietly(s);
    }
  }

  /**
   * Which requests a fault applies to. Immutable; build with {@link #on(String, String)} and the
   * {@code with}-style methods.
   *
   * @param method the HTTP method, or null for any
   * @param path regex the whole request path must match (without the query)
   * @param query regex found somewhere in the query, or null for any
   * @param first the first matching request that gets the fault (1-based)
   * @param count how many matching requests from {@code first} get it
   * @param fault what happens to them
   */
  public record Rule(
      String method, Pattern path, Pattern query, int first, int count, Fault fault) {

    /** Every request with {@code method} (null: any) whose path matches {@code pathRegex}. */
    public static Rule on(String method, String pathRegex) {
      return new Rule(
          method, Pattern.compile(pathRegex), null, 1, Integer.MAX_VALUE, Fault.forward());
    }

    /** Only requests whose query contains a match of {@code regex} ({@code partNumber=2}). */
    public Rule query(String regex) {
      return new Rule(method, path, Pattern.compile(regex), first, count, fault);
    }

    /** Only the n-th matching request (1-based). */
    public Rule nth(int n) {
      return new Rule(method, path, query, n, 1, fault);
    }

    /** The first {@code n} matching requests (from {@link #first()}). */
    public Rule times(int n) {
      return new Rule(method, path, query, first, n, fault);
    }

    /** With fault {@code f}. */
    public Rule fault(Fault f) {
      return new Rule(method, path, query, first, count, f);
    }

    boolean matches(String requestMethod, String requestPath, String requestQuery) {
      return (method == null || method.equalsIgnoreCase(requestMethod))
          && path.matcher(requestPath).matches()
          && (query == null || query.matcher(requestQuery).find());
    }
  }

  /** What happens to a request a rule picks. */
  public sealed interface Fault {
    /** Forwarded unchanged (a rule that only counts). */
    static Fault forward() {
      return new Delay(Duration.ZERO);
    }

    /** {@code 503 SlowDown}, as S3 answers when throttling. */
    static Fault slowDown() {
      return new Answer(503, "SlowDown", "Please reduce your request rate.");
    }

    /** {@code 500 InternalError}. */
    static Fault internalError() {
      return new Answer(
          500, "InternalError", "We encountered an internal error. Please try again.");
    }

    /** {@code 403 AccessDenied}. */
    static Fault accessDenied() {
      return new Answer(403, "AccessDenied", "Access Denied");
    }

    /** Forwarded after {@code d}. */
    static Fault delay(Duration d) {
      return new Delay(d);
    }

    /** Never answered; the connection stays open until the client or the proxy closes it. */
    static Fault stall() {
      return new Stall();
    }

    /** Both connections reset halfway through the request body (or the response body). */
    static Fault reset() {
      return new Reset();
    }
  }

  /** An S3 error answer with an XML body; the server never sees the request. */
  public record Answer(int status, String code, String message) implements Fault {}

  /** Forwarded after a delay. */
  public record Delay(Duration delay) implements Fault {}

  /** Never answered. */
  public record Stall() implements Fault {}

  /** Reset halfway through a body. */
  public record Reset() implements Fault {}

  /**
   * One request as the proxy saw it.
   *
   * @param connection the client connection's number (1-based, in accept order)
   * @param method the HTTP method
   * @param path the path as sent ({@code /bucket/key})
   * @param query the query, without {@code ?} (empty if none)
   * @param status the status the client got, or -1 if none (stall, reset, a broken connection)
   * @param fault the fault applied, or null
   * @param headers the request's headers, names in lower case (the last value of a repeated one)
   */
  public record Exchange(
      int connection,
      String method,
      String path,
      String query,
      int status,
      Fault fault,
      Map<String, String> headers) {
    public Exchange {
      headers = Map.copyOf(headers);
    }

    /** A 200 answer to a single PUT or to a multipart upload's completion. */
    public boolean completedWrite() {
      if (status != 200) {
        return false;
      }
      boolean hasUploadId = query.matches("(^|.*&)uploadId=.*");
      return "PUT".equals(method) && !hasUploadId && !query.contains("partNumber=")
          || "POST".equals(method) && hasUploadId;
    }
  }

  private static final class ActiveRule {
    final Rule rule;
    final AtomicInteger matches = new AtomicInteger();

    ActiveRule(Rule rule) {
      this.rule = rule;
    }

    /** Counts a matching request; true if it is one the fault applies to. */
    boolean picks(Head request) {
      if (!rule.matches(request.method(), request.path(), request.query())) {
        return false;
      }
      long n = matches.incrementAndGet();
      return n >= rule.first() && n - rule.first() < rule.count();
    }
  }

  private void accept() {
    while (!closed) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        return;
      }
      sockets.add(client);
      int number = connections.incrementAndGet();
      Thread t = new Thread(() -> serve(client, number), "s3-fault-proxy-conn-" + number);
      t.setDaemon(true);
      t.start();
    }
  }

  private void serve(Socket client, int number) {
    Socket upstream = new Socket();
    sockets.add(upstream);
    try {
      try {
        upstream.connect(target, 5000);
      } catch (IOException e) {
        reset(client, upstream);
        return;
      }
      InputStream in = new BufferedInputStream(client.getInputStream());
      // buffered: an answer's last bytes leave at flush(), after the exchange is recorded, so a
      // client that has its answer finds it in exchanges()
      OutputStream out = new BufferedOutputStream(client.getOutputStream(), 64 * 1024);
      InputStream upIn = new BufferedInputStream(upstream.getInputStream());
      OutputStream upOut = upstream.getOutputStream();
      while (!closed) {
        Head request = Head.read(in, true);
        if (request == null) {
          return;
        }
        Fault fault = faultFor(request);
        if (!forward(number, request, fault, in, out, upIn, upOut, client, upstream)) {
          return;
        }
      }
    } catch (IOException e) {
      // a side closed or reset: the connection ends
    } finally {
      closeQuietly(client);
      closeQuietly(upstream);
      sockets.remove(client);
      sockets.remove(upstream);
    }
  }

  private Fault faultFor(Head request) {
    for (ActiveRule r : rules) {
      if (r.picks(request)) {
        return r.rule.fault();
      }
    }
    return null;
  }

  /** Handles one request; false if the connection must end. */
  private boolean forward(
      int number,
      Head request,
      Fault fault,
      InputStream in,
      OutputStream out,
      InputStream upIn,
      OutputStream upOut,
      Socket client,
      Socket upstream)
      throws IOException {
    if (fault instanceof Delay d && !d.delay().isZero()) {
      sleep(d.delay());
    }
    if (fault instanceof Stall) {
      record(number, request, -1, fault);
      while (!closed && in.read() >= 0) {
        // swallow whatever the client sends until it gives up
      }
      return false;
    }
    if (fault instanceof Answer a) {
      if (!request.expectsContinue()) {
        Body.of(request, false).copy(in, OutputStream.nullOutputStream());
      }
      record(number, request, a.status(), fault);
      out.write(errorAnswer(a, request));
      out.flush();
      return false;
    }
    boolean reset = fault instanceof Reset;
    upOut.write(request.raw());
    upOut.flush();
    Body requestBody = Body.of(request, false);
    if (request.expectsContinue() && requestBody.hasBytes()) {
      Head interim = Head.read(upIn, false);
      if (interim == null) {
        throw new EOFException("the server closed the connection");
      }
      out.write(interim.raw());
      out.flush();
      if (interim.status() != 100) {
        Body.of(interim, request.method().equals("HEAD")).copy(upIn, out);
        record(number, request, interim.status(), fault);
        out.flush();
        return false;
      }
    }
    if (reset && requestBody.hasBytes()) {
      requestBody.copyHalf(in, upOut);
      upOut.flush();
      record(number, request, -1, fault);
      reset(client, upstream);
      return false;
    }
    requestBody.copy(in, upOut);
    upOut.flush();
    Head response;
    do {
      response = Head.read(upIn, false);
      if (response == null) {
        throw new EOFException("the server closed the connection");
      }
      out.write(response.raw());
      if (response.status() < 200) {
        out.flush();
      }
    } while (response.status() >= 100 && response.status() < 200);
    Body responseBody = Body.of(response, request.method().equals("HEAD"));
    if (reset) {
      responseBody.copyHalf(upIn, out);
      record(number, request, -1, fault);
      out.flush();
      reset(client, upstream);
      return false;
    }
    responseBody.copy(upIn, out);
    record(number, request, response.status(), fault);
    out.flush();
    return !responseBody.untilClose() && !request.closes() && !response.closes();
  }

  private void record(int number, Head request, int status, Fault fault) {
    exchanges.add(
        new Exchange(
            number,
            request.method(),
            request.path(),
            request.query(),
            status,
            fault,
            request.headers()));
  }

  private static byte[] errorAnswer(Answer a, Head request) {
    String key = request.path();
    String xml =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>"
            + a.code()
            + "</Code><Message>"
            + a.message()
            + "</Message><Resource>"
            + key
            + "</Resource><RequestId>S3FaultProxy</RequestId></Error>";
    byte[] body =
        request.method().equals("HEAD") ? new byte[0] : xml.getBytes(StandardCharsets.UTF_8);
    String head =
        "HTTP/1.1 "
            + a.status()
            + " "
            + a.code()
            + "\r\nContent-Type: application/xml\r\nContent-Length: "
            + body.length
            + "\r\nx-amz-request-id: S3FaultProxy\r\nConnection: close\r\n\r\n";
    ByteArrayOutputStream answer = new ByteArrayOutputStream();
    answer.writeBytes(head.getBytes(StandardCharsets.US_ASCII));
    answer.writeBytes(body);
    return answer.toByteArray();
  }

  private static void reset(Socket client, Socket upstream) {
    for (Socket s : new Socket[] {client, upstream}) {
      try {
        if (!s.isClosed() && s.isConnected()) {
          s.setSoLinger(true, 0);
        }
      } catch (IOException e) {
        // closing anyway
      }
      closeQuietly(s);
    }
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // nothing to do
    }
  }

  /**
   * A request or response head: its raw bytes (forwarded unchanged) and what framing needs.
   *
   * @param raw the head's bytes, blank line included
   * @param method request method (responses: empty)
   * @param path request path without the query (responses: empty)
   * @param query request query without {@code ?} (empty if none)
   * @param status response status (requests: 0)
   * @param headers header names in lower case to their (last) value
   */
  private record Head(
      byte[] raw,
      String method,
      String path,
      String query,
      int status,
      Map<String, String> headers) {

    /** Reads one head; null at a clean end of stream before its first byte. */
    static Head read(InputStream in, boolean request) throws IOException {
      ByteArrayOutputStream raw = new ByteArrayOutputStream();
      int last4 = 0;
      while (true) {
        int b = in.read();
        if (b < 0) {
          if (raw.size() == 0) {
            return null;
          }
          throw new EOFException("connection closed inside an HTTP head");
        }
        raw.write(b);
        last4 = (last4 << 8) | b;
        if (last4 == 0x0d0a0d0a) {
          break;
        }
        if (raw.size() > MAX_HEAD_BYTES) {
          throw new IOException("HTTP head longer than " + MAX_HEAD_BYTES + " bytes");
        }
      }
      byte[] bytes = raw.toByteArray();
      String[] lines = new String(bytes, StandardCharsets.ISO_8859_1).split("\r\n");
      Map<String, String> headers = new TreeMap<>();
      for (int i = 1; i < lines.length; i++) {
        int colon = lines[i].indexOf(':');
        if (colon > 0) {
          headers.put(
              lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
              lines[i].substring(colon + 1).trim());
        }
      }
      String[] first = lines[0].split(" ", 3);
      if (first.length < 2) {
        throw new IOException("malformed HTTP start line: " + lines[0]);
      }
      if (request) {
        String target = first[1];
        int q = target.indexOf('?');
        return new Head(
            bytes,
            first[0],
            q < 0 ? target : target.substring(0, q),
            q < 0 ? "" : target.substring(q + 1),
            0,
            headers);
      }
      return new Head(bytes, "", "", "", Integer.parseInt(first[1]), headers);
    }

    Optional<String> header(String name) {
      return Optional.ofNullable(headers.get(name));
    }

    boolean expectsContinue() {
      return header("expect").map(v -> v.equalsIgnoreCase("100-continue")).orElse(false);
    }

    boolean closes() {
      return header("connection").map(v -> v.equalsIgnoreCase("close")).orElse(false);
    }
  }

  /** How a message's body is framed, and copying it. */
  private record Body(long length, boolean chunked, boolean untilClose) {
    static Body of(Head head, boolean answersHead) {
      if (answersHead
          || head.status() >= 100 && head.status() < 200
          || head.status() == 204
          || head.status() == 304) {
        return new Body(0, false, false);
      }
      if (head.header("transfer-encoding")
          .map(v -> v.toLowerCase(Locale.ROOT).contains("chunked"))
          .orElse(false)) {
        return new Body(-1, true, false);
      }
      Optional<String> length = head.header("content-length");
      if (length.isPresent()) {
        return new Body(Long.parseLong(length.get()), false, false);
      }
      // a request without a length has no body; a response without one runs until close
      return head.status() == 0 ? new Body(0, false, false) : new Body(-1, false, true);
    }

    boolean hasBytes() {
      return length > 0 || chunked;
    }

    void copy(InputStream in, OutputStream out) throws IOException {
      if (chunked) {
        copyChunked(in, out);
      } else if (untilClose) {
        in.transferTo(out);
      } else {
        copyExactly(in, out, length);
      }
    }

    /** Copies about half the body (the first chunk of a chunked one). */
    void copyHalf(InputStream in, OutputStream out) throws IOException {
      if (chunked || untilClose) {
        byte[] some = new byte[1024];
        int n = in.read(some);
        if (n > 0) {
          out.write(some, 0, n);
        }
      } else {
        copyExactly(in, out, length / 2);
      }
    }

    private static void copyExactly(InputStream in, OutputStream out, long n) throws IOException {
      byte[] buffer = new byte[64 * 1024];
      long left = n;
      while (left > 0) {
        int r = in.read(buffer, 0, (int) Math.min(buffer.length, left));
        if (r < 0) {
          throw new EOFException(left + " bytes of a body missing");
        }
        out.write(buffer, 0, r);
        left -= r;
      }
    }

    private static void copyChunked(InputStream in, OutputStream out) throws IOException {
      while (true) {
        String sizeLine = copyLine(in, out);
        int semicolon = sizeLine.indexOf(';');
        long size =
            Long.parseLong(
                (semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).trim(), 16);
        if (size == 0) {
          while (!copyLine(in, out).isEmpty()) {
            // trailers
          }
          return;
        }
        copyExactly(in, out, size);
        copyLine(in, out);
      }
    }

    private static String copyLine(InputStream in, OutputStream out) throws IOException {
      List<Byte> line = new ArrayList<>();
      while (true) {
        int b = in.read();
        if (b < 0) {
          throw new EOFException("connection closed inside a chunked body");
        }
        out.write(b);
        if (b == '\n') {
          byte[] bytes = new byte[line.size()];
          for (int i = 0; i < bytes.length; i++) {
            bytes[i] = line.get(i);
          }
          String s = new String(bytes, StandardCharsets.US_ASCII);
          return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
        }
        line.add((byte) b);
      }
    }
  }
}
