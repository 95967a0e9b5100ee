package org.binlogrelay.server.downstream.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.packet.OkPacket;
import org.binlogrelay.protocol.query.MetadataStatement;
import org.binlogrelay.protocol.query.QueryResponse;
import org.binlogrelay.server.upstream.QueryConnection;
import org.binlogrelay.server.upstream.ServerEndpoint;
import org.binlogrelay.server.upstream.TlsConfig;
import org.binlogrelay.storage.Time;
import org.binlogrelay.storage.testing.ManualTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The schema source's pool with connections that fail on purpose (the real server's behaviour is
 * SchemaSourceIT's): statements are written for the connection, connections are used again,
 * replaced when stale or idle too long, closed when an answer is too large or too late; every
 * failure is an answer (1429, 1430), never a hang.
 */
class SchemaSourceTest {
  private static final MetadataStatement SHOW_CREATE =
      new MetadataStatement.ShowCreateTable(new MetadataStatement.TableName(null, "it's"));
  private static final QueryResponse OK = new QueryResponse.Ok(OkPacket.ok());

  /** Waits on answers are bounded; a hang fails the test instead of blocking the build. */
  private static final long BOUND_SECONDS = 30;

  private final List<FakeConnection> opened = new CopyOnWriteArrayList<>();
  private final ManualTime time = new ManualTime(0);
  private final List<SchemaSource> sources = new ArrayList<>();

  @AfterEach
  void close() {
    sources.forEach(SchemaSource::close);
  }

  /** A connection whose answers the test scripts. */
  private static final class FakeConnection implements SchemaConnection {
    final boolean escapes;
    final List<String> statements = new CopyOnWriteArrayList<>();
    final List<String> charsets = new CopyOnWriteArrayList<>();
    final List<Answer> script;
    volatile boolean closed;

    FakeConnection(boolean escapes, List<Answer> script) {
      this.escapes = escapes;
      this.script = new ArrayList<>(script);
    }

    @Override
    public boolean backslashEscapes() {
      return escapes;
    }

    @Override
    public void resultsCharset(String charset) {
      charsets.add(charset);
    }

    @Override
    public QueryResponse forward(String sql, long maxBytes) throws IOException {
      if (closed) {
        throw new SocketException("Socket closed");
      }
      statements.add(sql);
      Answer next = script.isEmpty() ? () -> OK : script.remove(0);
      return next.answer();
    }

    @Override
    public String describe() {
      return "fake";
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  @FunctionalInterface
  private interface Answer {
    QueryResponse answer() throws IOException;
  }

  private SchemaSource source(Duration timeout, int connections, SchemaConnection.Opener opener) {
    ServerEndpoint endpoint =
        new ServerEndpoint(
            "schema source", "127.0.0.1", 3306, "schema", "pw", timeout, TlsConfig.DISABLED);
    SchemaSource source =
        new SchemaSource(
            new SchemaSourceConfig(endpoint, connections, 1 << 20, Duration.ofSeconds(60)),
            opener,
            time);
    sources.add(source);
    return source;
  }

  /** The first connection answers as {@code script} says, then OK; later connections answer OK. */
  private SchemaConnection.Opener scripted(boolean escapes, List<Answer> script) {
    return socket -> {
      FakeConnection c = new FakeConnection(escapes, opened.isEmpty() ? script : List.of());
      opened.add(c);
      return c;
    };
  }

  private static QueryResponse get(CompletableFuture<QueryResponse> answer) throws Exception {
    return answer.get(BOUND_SECONDS, TimeUnit.SECONDS);
  }

  private static ErrPacket err(QueryResponse response) {
    assertThat(response).isInstanceOf(QueryResponse.Err.class);
    return ((QueryResponse.Err) response).err();
  }

  @Test
  void writesTheStatementForTheConnectionAndItsClientAndUsesItAgain() throws Exception {
    SchemaSource source = source(Duration.ofSeconds(10), 2, scripted(false, List.of()));
    assertThat(get(source.forward(SHOW_CREATE, "shop", "utf8mb4"))).isEqualTo(OK);
    assertThat(get(source.forward(SHOW_CREATE, "sh\\op", null))).isEqualTo(OK);
    assertThat(opened).hasSize(1);
    assertThat(opened.get(0).statements)
        .containsExactly("SHOW CREATE TABLE `shop`.`it's`", "SHOW CREATE TABLE `sh\\op`.`it's`");
    assertThat(opened.get(0).charsets)
        .as("each in its client's character_set_results")
        .containsExactly("utf8mb4", null);
    assertThat(source.openConnections()).isEqualTo(1);
  }

  @Test
  void theServersOwnErrorsReachTheClientUnchanged() throws Exception {
    ErrPacket noSuchTable = new ErrPacket(1146, "42S02", "Table 'shop.it's' doesn't exist");
    SchemaSource source =
        source(
            Duration.ofSeconds(10),
            1,
            scripted(true, List.of(() -> new QueryResponse.Err(noSuchTable))));
    assertThat(err(get(source.forward(SHOW_CREATE, "shop", "utf8mb4")))).isEqualTo(noSuchTable);
    assertThat(get(source.forward(SHOW_CREATE, "shop", "utf8mb4"))).isEqualTo(OK);
    assertThat(opened).hasSize(1);
  }

  @Test
  void anUnreachableServerIs1429NamingIt() throws Exception {
    SchemaSource source =
        source(
            Duration.ofSeconds(10),
            1,
            socket -> {
              throw new ConnectException("Connection refused");
            });
    ErrPacket e = err(get(source.forward(SHOW_CREATE, "shop", "utf8mb4")));
    assertThat(e.code()).isEqualTo(1429);
    assertThat(e.sqlState()).isEqualTo("HY000");
    assertThat(e.message())
        .isEqualTo(
            "Unable to connect to foreign data source: schema source 127.0.0.1:3306:"
                + " Connection refused");
  }

  @Test
  void aServerThatNeverGreetsIsAnErrorWithinTheTimeout() throws Exception {
    try (ServerSocket blackHole = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
      ServerEndpoint endpoint =
          new ServerEndpoint(
              "schema source",
              "127.0.0.1",
              blackHole.getLocalPort(),
              "schema",
              "pw",
              Duration.ofMillis(300),
              TlsConfig.DISABLED);
      SchemaSource source = new SchemaSource(SchemaSourceConfig.of(endpoint), Time.SYSTEM);
      sources.add(source);
      ErrPacket e = err(get(source.forward(SHOW_CREATE, "shop", "utf8mb4")));
      assertThat(e.code()).as("the deadline, not the socket's backstop timeout").isEqualTo(1430);
      assertThat(e.message())
          .endsWith(
              "schema source 127.0.0.1:"
                  + blackHole.getLocalPort()
                  + " did not answer"
                  + " within 300 ms (--schema-source-timeout)");
    }
  }

  @Test
  void anAnswerThatTakesTooLongIs1430AndItsConnectionIsClosed() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    SchemaSource source =
        source(
            Duration.ofMillis(200),
            1,
            scripted(
                true,
                List.of(
                    () -> {
                      try {
                        release.await(BOUND_SECONDS, TimeUnit.SECONDS);
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                      throw new SocketException("Socket closed");
                    })));
    ErrPacket e = err(get(source.forward(SHOW_CREATE, "shop", "utf8mb4")));
    assertThat(e.code()).isEqualTo(1430);
    assertThat(e.message())
        .isEqualTo(
            "There was a problem processing the query on the foreign data source. Data"
                + " source error: schema source 127.0.0.1:3306 did not answer within 200 ms (--schema-source-timeout)");
    assertThat(opened.get(0).closed).isTrue();
    release.countDown();
    assertThat(get(source.forward(SHOW_CREATE, "shop", "utf8mb4"))).isEqualTo(OK);
    assertThat(opened).hasSize(2);
  }

  @Test
  void aTooLargeAnswerIsRefusedAndItsConnectionReplaced() throws Exception {
    SchemaSource source =
        source(
            Duration.ofSeconds(10),
            1,
            scripted(
                true,
                List.of(
                    () -> {
                      throw new QueryConnection.AnswerTooLargeException("too much", 1 << 20);
                    })));
    ErrPacket e = err(get(source.forward(SHOW_CREATE, "shop", "utf8mb4")));
    assertThat(e.code()).isEqualTo(1430);
    assertThat(e.message()).contains("more than 1048576 bytes").contains("narrow the statement");
    assertThat(opened.get(0).closed).isTrue();
    assertThat(get(source.forward(SHOW_CREATE, "shop", "utf8mb4"))).isEqualTo(OK);
    assertThat(opened).hasSize(2);
  }

  @Test
  void aPooledConnectionTheServerClosedIsReplacedOnce() throws Exception {
    AtomicInteger opens = new AtomicInteger();
    SchemaSource source =
        source(
            Duration.ofSeconds(10),
            1,
            socket -> {
              FakeConnection c =
                  new FakeConnection(
                      true,
                      opens.incrementAndGet() == 1
                          ? List.of(
                              () -> OK,
                              () -> {
                                throw new EOFException("the primary closed the connection");
                              })
                          : List.of());
              opened.add(c);
              return c;
            });
    assertThat(get(source.forward(SHOW_CREATE, "shop", "utf8mb4"))).isEqualTo(OK);
    assertThat(get(source.forward(SHOW_CREATE, "shop", "utf8mb4")))
        .as("answered on a new connection")
        .isEqualTo(OK);
    assertThat(opened).hasSize(2);
    assertThat(opened.get(0).closed).isTrue();
  }

  @Test
  void aConnectionIdleTooLongIsClosedNotUsed() throws Exception {
    SchemaSource source = source(Duration.ofSeconds(10), 1, scripted(true, List.of()));
    get(source.forward(SHOW_CREATE, "shop", "utf8mb4"));
    time.advance(Duration.ofSeconds(61));
    get(source.forward(SHOW_CREATE, "shop", "utf8mb4"));
    assertThat(opened).hasSize(2);
    assertThat(opened.get(0).closed).isTrue();
    assertThat(opened.get(0).statements).hasSize(1);
  }

  @Test
  void statementsBeyondTheWaitingLimitAreRefusedAtOnce() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(1);
    SchemaSource source =
        source(
            Duration.ofSeconds(BOUND_SECONDS),
            1,
            scripted(
                true,
                List.of(
                    () -> {
                      started.countDown();
                      try {
                        release.await(BOUND_SECONDS, TimeUnit.SECONDS);
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                      return OK;
                    })));
    List<CompletableFuture<QueryResponse>> answers = new ArrayList<>();
    answers.add(source.forward(SHOW_CREATE, "shop", "utf8mb4"));
    assertThat(started.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
    int waiting = source.config().maxWaiting();
    for (int i = 0; i < waiting; i++) {
      answers.add(source.forward(SHOW_CREATE, "shop", "utf8mb4"));
    }
    ErrPacket refused = err(get(source.forward(SHOW_CREATE, "shop", "utf8mb4")));
    assertThat(refused.code()).isEqualTo(1430);
    assertThat(refused.message()).contains(waiting + " statements are already waiting");
    release.countDown();
    for (CompletableFuture<QueryResponse> answer : answers) {
      assertThat(get(answer)).isEqualTo(OK);
    }
    assertThat(opened).hasSize(1);
  }

  @Test
  void closingAnswersWhatWaitsAndClosesTheConnections() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    SchemaSource source =
        source(
            Duration.ofSeconds(BOUND_SECONDS),
            1,
            scripted(
                true,
                List.of(
                    () -> {
                      started.countDown();
                      try {
                        // A server that never answers (the fault under test): the statement ends
                        // when close interrupts it.
                        Thread.sleep(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                      throw new SocketException("Socket closed");
                    })));
    CompletableFuture<QueryResponse> running = source.forward(SHOW_CREATE, "shop", "utf8mb4");
    assertThat(started.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<QueryResponse> waiting = source.forward(SHOW_CREATE, "shop", "utf8mb4");
    source.close();
    assertThat(err(get(waiting)).message()).contains("the relay is stopping");
    assertThat(err(get(running)).code()).isEqualTo(1430);
    assertThat(opened.get(0).closed).isTrue();
    assertThat(err(get(source.forward(SHOW_CREATE, "shop", "utf8mb4"))).message())
        .contains("the relay is stopping");
  }

  @Test
  void withoutACurrentDatabaseAnUnqualifiedNameIs1046() throws Exception {
    SchemaSource source = source(Duration.ofSeconds(10), 1, scripted(true, List.of()));
    assertThat(err(get(source.forward(SHOW_CREATE, null, "utf8mb4"))).code()).isEqualTo(1046);
  }

  @Test
  void theSocketOfAnAttemptIsClosedWhenTheTimeoutPasses() throws Exception {
    CompletableFuture<Socket> given = new CompletableFuture<>();
    SchemaSource source =
        source(
            Duration.ofMillis(200),
            1,
            socket -> {
              given.complete(socket);
              try {
                eventually(
                    Duration.ofSeconds(BOUND_SECONDS),
                    "the attempt's socket closed",
                    socket::isClosed);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } catch (AssertionError stillOpen) {
                // reported by the assertion on the socket below
              }
              throw new SocketException("Socket closed");
            });
    assertThat(err(get(source.forward(SHOW_CREATE, "shop", "utf8mb4"))).code()).isEqualTo(1430);
    assertThat(given.get(BOUND_SECONDS, TimeUnit.SECONDS).isClosed()).isTrue();
  }
}
