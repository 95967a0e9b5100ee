package org.binlogrelay.e2e.serving;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.binlogrelay.e2e.checks.TableChecksums;
import org.binlogrelay.e2e.load.Sysbench;
import org.binlogrelay.e2e.load.SysbenchResult;
import org.binlogrelay.e2e.servers.Credentials;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.ReplicaStatus;
import org.binlogrelay.e2e.servers.ReplicationLink;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * 10,000 connection attempts in a burst against the relay's replica port while it serves a real
 * MySQL 9.7 replica under write load: connections that read the greeting and hang up, that hang up
 * at once, that send a packet header announcing 16 MiB and then nothing, and 300 that stay open
 * (more than the relay's 256-connection limit, so the rest of the burst meets ER_CON_COUNT_ERROR
 * 1040). Every attempt ends (bounded socket timeouts); the replica keeps its connection and keeps
 * applying transactions during the burst; afterwards it has the primary's GTIDs and CHECKSUM TABLE
 * values, and a new client still logs in.
 *
 * <p>The burst comes in two halves from other loopback addresses: from 127.0.0.3 with the 300
 * connections held (max connections refuses), then, once they are closed, from 127.0.0.2, which the
 * relay holds to {@value #RATE_PER_HOST} new connections a second ({@code
 * --max-connect-rate-per-host}, bursts of ten seconds' worth): 1040 beyond that, while the replica
 * on 127.0.0.1 is not affected.
 */
@ExtendWith(ServerFarmExtension.class)
class ConnectionBurstIT {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionBurstIT.class);
  private static final int ATTEMPTS = 10_000;
  private static final int CONCURRENCY = 32;
  private static final int HELD = 300;
  private static final int RATE_PER_HOST = 200;
  private static final Duration CATCH_UP = Duration.ofMinutes(3);

  @TempDir Path dir;

  @Test
  void aBurstOfConnectionsLeavesTheReplicaStreaming(ServerFarm farm) throws Exception {
    DatabaseServer primary =
        farm.start(
            ServerSpec.of(ServerVersion.MYSQL_9_7).named("primary").withMaxBinlogSize(1 << 20));
    DatabaseServer replica = farm.start(ServerVersion.MYSQL_9_7, "replica");
    Sysbench load = Sysbench.against(primary).withTables(2).withTableSize(2_000).withRate(100);
    load.prepare();
    ExecutorService background = Executors.newSingleThreadExecutor();
    ExecutorService clients = Executors.newFixedThreadPool(CONCURRENCY);
    List<Socket> held = new ArrayList<>();
    try (ServingRelay relay =
        ServingRelay.follow(primary, dir, b -> {}, b -> b.maxConnectRatePerHost(RATE_PER_HOST))) {
      InetSocketAddress port = new InetSocketAddress("127.0.0.1", relay.port());
      ReplicationLink.establish(
          replica,
          farm.backend().hostPortForServers(relay.port()),
          Credentials.REPLICATION,
          "relay");
      Replicas.awaitExecuted(replica, primary.executedGtidSet(), CATCH_UP);
      Future<SysbenchResult> running = background.submit(() -> load.run(Duration.ofSeconds(40)));
      List<Long> before = lagSamples(primary, replica, 5);

      // Phase A, from 127.0.0.3: 300 connections held open (over the 256 limit), then half the
      // burst, which
      // meets ER_CON_COUNT_ERROR (max connections). Phase B, from 127.0.0.2, after the held ones
      // close: the
      // other half, which the per-host rate limit holds to RATE_PER_HOST a second.
      Tally limit = new Tally(InetAddress.getByName("127.0.0.3"));
      Tally rate = new Tally(InetAddress.getByName("127.0.0.2"));
      for (int i = 0; i < HELD; i++) {
        held.add(limit.hold(port));
      }
      List<Long> during = new ArrayList<>();
      int[] advances = {0};
      String[] last = {replica.executedGtidSet()};
      Runnable watch =
          () -> {
            during.add(Replicas.lag(primary, replica, CATCH_UP));
            String now = replica.executedGtidSet();
            if (!now.equals(last[0])) {
              advances[0]++;
              last[0] = now;
            }
          };
      long started = System.nanoTime();
      double secondsA = burst(clients, limit, port, ATTEMPTS / 2 - HELD, watch);
      for (Socket s : held) {
        s.close();
      }
      double secondsB = burst(clients, rate, port, ATTEMPTS / 2, watch);
      double seconds = (System.nanoTime() - started) / 1e9;
      List<Long> after = lagSamples(primary, replica, 5);
      long allowance = RATE_PER_HOST * 10L + (long) Math.ceil(RATE_PER_HOST * secondsB);
      LOG.info(
          "FIGURE {} connection attempts in {} s ({} concurrent): from 127.0.0.3 with {} held open, {} s:"
              + " {}; then from 127.0.0.2 at most {} a second (allowance {} over {} s): {}",
          ATTEMPTS,
          String.format("%.1f", seconds),
          CONCURRENCY,
          HELD,
          String.format("%.1f", secondsA),
          limit,
          RATE_PER_HOST,
          allowance,
          String.format("%.1f", secondsB),
          rate);
      LOG.info(
          "FIGURE replica lag behind the primary (ms) before the burst {}, during {}, after {}",
          Replicas.summary(before),
          Replicas.summary(during),
          Replicas.summary(after));

      assertThat(limit.ended.get() + rate.ended.get())
          .as("every attempt ended")
          .isEqualTo(ATTEMPTS);
      assertThat(limit.hung.get() + rate.hung.get())
          .as("attempts that got no answer within 10 s")
          .isZero();
      assertThat(limit.tooMany.get())
          .as("refused with 1040 while 300 connections are held")
          .isPositive();
      assertThat(limit.greetings.get()).as("greeted while below the limit").isPositive();
      assertThat(rate.tooMany.get()).as("127.0.0.2 refused with 1040 over its rate").isPositive();
      assertThat(rate.greetings.get())
          .as("127.0.0.2 greeted within its rate")
          .isPositive()
          .isLessThanOrEqualTo((int) allowance);
      if (!during.isEmpty()) {
        assertThat(advances[0])
            .as("the replica applied transactions during the burst")
            .isPositive();
      }
      ReplicaStatus status = ReplicaStatus.of(replica);
      assertThat(status.lastIoErrno()).as(status.summary()).isZero();

      assertThat(running.get(3, TimeUnit.MINUTES).transactions()).isPositive();
      String end = primary.executedGtidSet();
      Replicas.awaitExecuted(replica, end, CATCH_UP);
      assertThat(replica.executedGtidSet()).isEqualTo(end);
      assertThat(TableChecksums.of(replica, "sbtest"))
          .isEqualTo(TableChecksums.of(primary, "sbtest"));
      // and the relay still takes a new client
      try (DumpClient client =
          DumpClient.connect(relay.address(), Credentials.REPLICATION, false)) {
        client.execute("SET @master_heartbeat_period = 1000000000");
      }
    } finally {
      for (Socket s : held) {
        s.close();
      }
      clients.shutdownNow();
      background.shutdownNow();
    }
  }

  /**
   * {@code count} attempts through {@code clients}, running {@code watch} every 200 ms meanwhile;
   * seconds taken.
   */
  private static double burst(
      ExecutorService clients, Tally tally, InetSocketAddress port, int count, Runnable watch)
      throws Exception {
    long started = System.nanoTime();
    List<Future<?>> attempts = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int kind = i % 3;
      attempts.add(clients.submit(() -> tally.attempt(port, kind)));
    }
    while (attempts.stream().anyMatch(f -> !f.isDone())) {
      watch.run();
      Replicas.sleep(200);
    }
    for (Future<?> f : attempts) {
      f.get(1, TimeUnit.MINUTES);
    }
    return (System.nanoTime() - started) / 1e9;
  }

  private static List<Long> lagSamples(DatabaseServer primary, DatabaseServer replica, int n) {
    List<Long> samples = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      samples.add(Replicas.lag(primary, replica, CATCH_UP));
      Replicas.sleep(200);
    }
    return samples;
  }

  /** What the attempts met. */
  private static final class Tally {
    final AtomicInteger ended = new AtomicInteger();
    final AtomicInteger greetings = new AtomicInteger();
    final AtomicInteger tooMany = new AtomicInteger();
    final AtomicInteger otherErrors = new AtomicInteger();
    final AtomicInteger closedByRelay = new AtomicInteger();
    final AtomicInteger refused = new AtomicInteger();
    final AtomicInteger hung = new AtomicInteger();

    /** The local address the attempts come from. */
    final InetAddress from;

    Tally(InetAddress from) {
      this.from = from;
    }

    /** Opens a connection, reads the greeting, and keeps the socket open. */
    Socket hold(InetSocketAddress port) throws IOException {
      Socket s = new Socket();
      s.bind(new InetSocketAddress(from, 0));
      s.connect(port, 5_000);
      s.setSoTimeout(10_000);
      record(readFirstPacket(s.getInputStream()));
      return s;
    }

    /**
     * kind 0: read the greeting and hang up; 1: hang up at once; 2: announce a 16 MiB packet, send
     * nothing.
     */
    void attempt(InetSocketAddress port, int kind) {
      try (Socket s = new Socket()) {
        s.bind(new InetSocketAddress(from, 0));
        s.connect(port, 5_000);
        s.setSoTimeout(10_000);
        s.setSoLinger(true, 0);
        if (kind == 1) {
          ended.incrementAndGet();
          return;
        }
        int first = readFirstPacket(s.getInputStream());
        record(first);
        if (kind == 2 && first == 0x0a) {
          OutputStream out = s.getOutputStream();
          out.write(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, 1});
          out.flush();
        }
      } catch (SocketTimeoutException e) {
        hung.incrementAndGet();
        ended.incrementAndGet();
      } catch (IOException e) {
        refused.incrementAndGet();
        ended.incrementAndGet();
      }
    }

    /** Counts what the first packet was and that the attempt ended. */
    private void record(int first) {
      if (first == 0x0a) {
        greetings.incrementAndGet();
      } else if (first == 1040) {
        tooMany.incrementAndGet();
      } else if (first == -1) {
        closedByRelay.incrementAndGet();
      } else {
        otherErrors.incrementAndGet();
      }
      ended.incrementAndGet();
    }

    /**
     * Reads one packet: returns 0x0a for a v10 greeting, the error code of an ERR packet, -1 if the
     * relay closed the connection first.
     */
    private static int readFirstPacket(InputStream in) throws IOException {
      byte[] header = in.readNBytes(4);
      if (header.length < 4) {
        return -1;
      }
      int length = (header[0] & 0xff) | (header[1] & 0xff) << 8 | (header[2] & 0xff) << 16;
      byte[] payload = in.readNBytes(Math.min(length, 1 << 16));
      if (payload.length == 0) {
        return -1;
      }
      if ((payload[0] & 0xff) == 0xff && payload.length >= 3) {
        return (payload[1] & 0xff) | (payload[2] & 0xff) << 8;
      }
      return payload[0] & 0xff;
    }

    @Override
    public String toString() {
      return greetings
          + " greetings, "
          + tooMany
          + " x ERR 1040, "
          + otherErrors
          + " other answers, "
          + closedByRelay
          + " closed by the relay before a packet, "
          + refused
          + " connect errors, "
          + hung
          + " hung";
    }
  }
}
