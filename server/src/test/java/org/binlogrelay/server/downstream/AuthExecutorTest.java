package org.binlogrelay.server.downstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.protocol.auth.AuthExchange;
import org.binlogrelay.protocol.auth.AuthPlugin;
import org.binlogrelay.protocol.auth.AuthRequest;
import org.binlogrelay.protocol.auth.NativePasswordHash;
import org.binlogrelay.protocol.auth.Sha2FastAuthCache;
import org.binlogrelay.protocol.handshake.HandshakeResponse41;
import org.binlogrelay.protocol.handshake.HandshakeV10;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.query.QueryResponse;
import org.binlogrelay.protocol.testing.EmbeddedTransport;
import org.binlogrelay.protocol.testing.WireClient;
import org.binlogrelay.server.downstream.sql.BinlogListing;
import org.binlogrelay.server.downstream.sql.MysqlSqlFlavor;
import org.binlogrelay.storage.Time;
import org.junit.jupiter.api.Test;

/**
 * Password checks run on the server's auth executor, never on an event loop: a login whose check is
 * slow (here: held on a latch, standing in for caching_sha2_password's thousands of SHA-256 rounds)
 * does not hold up the other connections of the same event loop; a client that talks before its
 * check is answered is refused.
 */
class AuthExecutorTest {

  /**
   * A plugin whose caching_sha2_password exchange steps wait for {@code release}, recording their
   * threads.
   */
  private static final class HeldPlugin implements AuthPlugin {
    private final AuthPlugin real;
    private final CountDownLatch entered;
    private final CountDownLatch release;
    private final Set<String> threads;

    HeldPlugin(
        AuthPlugin real, CountDownLatch entered, CountDownLatch release, Set<String> threads) {
      this.real = real;
      this.entered = entered;
      this.release = release;
      this.threads = threads;
    }

    @Override
    public String name() {
      return real.name();
    }

    @Override
    public byte[] initialData(byte[] scramble) {
      return real.initialData(scramble);
    }

    @Override
    public AuthExchange begin(AuthRequest request) {
      AuthExchange exchange = real.begin(request);
      return packet -> {
        threads.add(Thread.currentThread().getName());
        entered.countDown();
        try {
          if (!release.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("not released");
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
        return exchange.next(packet);
      };
    }
  }

  @Test
  void aHeldPasswordCheckLeavesTheEventLoopToTheOtherConnections() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Set<String> checkThreads = ConcurrentHashMap.newKeySet();
    ExecutorService auth = Executors.newFixedThreadPool(2, r -> new Thread(r, "test-auth"));
    ExecutorService clients = Executors.newSingleThreadExecutor();
    ServerState state =
        TestServers.state(
            TestServers.config(MysqlSqlFlavor.INSTANCE).build(),
            new RefusingDumpHandler(),
            Time.SYSTEM,
            new Sha2FastAuthCache(100),
            BinlogListing.EMPTY,
            auth,
            p ->
                p.name().equals("caching_sha2_password")
                    ? new HeldPlugin(p, entered, release, checkThreads)
                    : p);
    EventLoopGroup oneLoop = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    try {
      Channel listener =
          new ServerBootstrap()
              .group(oneLoop)
              .channel(NioServerSocketChannel.class)
              .childHandler(new ServerPipeline(state))
              .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
              .sync()
              .channel();
      int port = ((InetSocketAddress) listener.localAddress()).getPort();
      Future<List<String>> held =
          clients.submit(
              () -> {
                try (WireClient c = WireClient.connect(port)) {
                  c.login("repl", "repl-pass", "caching_sha2_password", null);
                  return c.steps();
                }
              });
      assertThat(entered.await(20, TimeUnit.SECONDS)).as("the held check started").isTrue();

      // The check of the first login is still held; the one event loop serves another client
      // meanwhile.
      try (WireClient other = WireClient.connect(port)) {
        other.login("nat", "nat-pass", "mysql_native_password", null);
        assertThat(other.command(new byte[] {(byte) Command.COM_PING.code()}).payload()[0])
            .isZero();
        assertThat(((QueryResponse.Rows) other.query("SELECT @@server_id")).resultSet().rows())
            .containsExactly(List.of("77"));
      }
      assertThat(held.isDone()).as("the first login is still waiting for its check").isFalse();

      release.countDown();
      assertThat(held.get(30, TimeUnit.SECONDS)).containsExactly("full", "public key", "ok");
      assertThat(checkThreads).containsOnly("test-auth");
      listener.close().sync();
    } finally {
      release.countDown();
      clients.shutdownNow();
      auth.shutdownNow();
      oneLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
  }

  @Test
  void aPacketSentBeforeTheCheckIsAnsweredIsABadHandshake() {
    Deque<Runnable> queued = new ArrayDeque<>();
    ServerState state =
        TestServers.state(
            TestServers.config(MysqlSqlFlavor.INSTANCE).build(),
            new RefusingDumpHandler(),
            Time.SYSTEM,
            new Sha2FastAuthCache(100),
            BinlogListing.EMPTY,
            queued::add);
    EmbeddedChannel ch = TestServers.channel(state);
    EmbeddedTransport wire = new EmbeddedTransport(ch, false);
    HandshakeV10 greeting = HandshakeV10.decode(wire.receive().payload());
    wire.send(
        1,
        new HandshakeResponse41(
                WireClient.CAPABILITIES,
                1 << 24,
                255,
                "nat",
                NativePasswordHash.scramble("nat-pass", greeting.scramble()),
                null,
                NativePasswordHash.PLUGIN,
                Map.of())
            .encode());
    assertThat(wire.receive()).as("no answer while the check waits for the auth executor").isNull();
    assertThat(queued).hasSize(1);

    wire.send(2, new byte[] {(byte) Command.COM_PING.code()});
    ch.runPendingTasks();
    assertThat(ErrPacket.decode(wire.receive().payload()))
        .isEqualTo(new ErrPacket(1043, "08S01", "Bad handshake"));
    assertThat(ch.isActive()).isFalse();

    queued.poll().run();
    ch.runPendingTasks();
    assertThat(wire.receive()).as("the late answer of the check is dropped").isNull();
    assertFalse(ch.finish());
  }

  @Test
  void theLoginIsAnsweredOnlyOnceTheExecutorRanTheCheck() throws Exception {
    Deque<Runnable> queued = new ArrayDeque<>();
    ServerState state =
        TestServers.state(
            TestServers.config(MysqlSqlFlavor.INSTANCE).build(),
            new RefusingDumpHandler(),
            Time.SYSTEM,
            new Sha2FastAuthCache(100),
            BinlogListing.EMPTY,
            queued::add);
    EmbeddedChannel ch = TestServers.channel(state);
    EmbeddedTransport wire = new EmbeddedTransport(ch, false);
    HandshakeV10 greeting = HandshakeV10.decode(wire.receive().payload());
    wire.send(
        1,
        new HandshakeResponse41(
                WireClient.CAPABILITIES,
                1 << 24,
                255,
                "nat",
                NativePasswordHash.scramble("nat-pass", greeting.scramble()),
                null,
                NativePasswordHash.PLUGIN,
                Map.of())
            .encode());
    assertThat(wire.receive()).isNull();
    Thread other = new Thread(queued.poll(), "test-auth");
    other.start();
    other.join(30_000);
    WireClient.Packet ok = wire.receive();
    assertThat(ok.sequenceId()).isEqualTo(2);
    assertThat(ok.payload()[0]).as("OK").isZero();
    ch.close();
    assertFalse(ch.finish());
  }
}
