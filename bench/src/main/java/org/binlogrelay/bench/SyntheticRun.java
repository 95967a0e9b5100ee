package org.binlogrelay.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.binlogrelay.bench.client.SourceAddress;
import org.binlogrelay.bench.client.SourceConnection;
import org.binlogrelay.bench.flavor.SourceFlavor;
import org.binlogrelay.bench.report.Distribution;
import org.binlogrelay.bench.report.Report;
import org.binlogrelay.bench.report.Series;
import org.binlogrelay.bench.synthetic.RecordedTransactions;
import org.binlogrelay.bench.synthetic.SyntheticPrimary;
import org.binlogrelay.protocol.bytes.LittleEndian;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.packet.BlockingPacketReader;
import org.binlogrelay.protocol.packet.ErrPacket;

/**
 * {@code synthetic}: the relay-added latency at a controlled transaction rate, without a mysqld.
 * relay-bench runs a {@link SyntheticPrimary} (a MySQL 9.7 primary that replays recorded
 * transactions) that the relay follows, and one replica client of the relay, in one process:
 *
 * <ol>
 *   <li>the primary listens and waits (up to {@code --setup-timeout}) for the relay's dump;
 *   <li>the client connects to the relay and dumps after the empty GTID set (everything);
 *   <li>the primary sends {@code --rate} transactions a second for {@code --warmup} plus {@code
 *       --duration} seconds, paced on a {@code System.nanoTime} schedule: before each write it
 *       sends every transaction due by then (one write; a late pacer catches up with a larger
 *       write), and notes the time the write returned for each of them;
 *   <li>the client notes the time it read each transaction's XID (its last event), by GNO.
 * </ol>
 *
 * A transaction's relay-added latency is the client's read time minus the time the primary's write
 * of it returned: the relay's read, checks, store append (and fsync, per its {@code
 * --sync-binlog}), hand-over and the write to the client's socket, plus two loopback hops and the
 * client's wake-up. Both times come from the same monotonic clock of the same process. A write
 * covering many transactions returns after its last byte is in the kernel; the relay may already
 * have read (and even forwarded) the first ones, so a latency can be negative: those count as 0 and
 * are reported ({@code handed_over_before_write_returned}). Only the transactions sent after the
 * warm-up count. The client checks that it received every GNO exactly once and in order.
 *
 * <p>With {@code --relay-pid} the relay's CPU over the measured seconds is reported; with {@code
 * --relay-metrics} its own latency histogram over the same seconds ({@link RelayMetricsSampler}).
 */
final class SyntheticRun {
  /** What to run. Immutable. */
  record Settings(
      SyntheticPrimary.Settings primary,
      RecordedTransactions recording,
      SourceAddress relay,
      int rate,
      Duration warmup,
      Duration duration,
      Duration setupTimeout,
      long relayPid,
      Path relayPidFile,
      URI relayMetrics,
      String label) {}

  private final Settings settings;
  private final PrintStream log;

  SyntheticRun(Settings settings, PrintStream log) {
    this.settings = settings;
    this.log = log;
  }

  Report run() throws IOException, InterruptedException {
    long warmupTrx = (long) settings.rate() * settings.warmup().toSeconds();
    long measuredTrx = Math.max(1, (long) settings.rate() * settings.duration().toMillis() / 1000);
    int total = Math.toIntExact(warmupTrx + measuredTrx);
    long[] sent = new long[total];
    long[] received = new long[total];
    try (SyntheticPrimary primary =
        SyntheticPrimary.start(settings.primary(), settings.recording(), log)) {
      log.println(
          "relay-bench synthetic: primary (MySQL "
              + settings.recording().serverVersion()
              + ", "
              + settings.primary().serverUuid()
              + ") listening on 127.0.0.1:"
              + primary.port());
      long setupDeadline = System.nanoTime() + settings.setupTimeout().toNanos();
      while (!primary.dumping()) {
        if (System.nanoTime() > setupDeadline) {
          throw new IOException(
              "no replica dumped from the synthetic primary on 127.0.0.1:"
                  + primary.port()
                  + " within "
                  + settings.setupTimeout().toSeconds()
                  + " s: start the relay with --source mysql://USER@127.0.0.1:"
                  + primary.port());
        }
        Thread.sleep(20);
      }
      ProcessSampler relayCpu = relaySampler(setupDeadline);
      Client client = Client.connect(settings.relay(), received, setupDeadline);
      Thread reader = new Thread(client, "synthetic-client");
      reader.setDaemon(true);
      reader.start();
      // One scrape before pacing: the HTTP client's first request (class loading, connection) costs
      // hundreds of milliseconds in a fresh JVM; paid here, not in the measured window.
      RelayMetricsScraper scraper =
          settings.relayMetrics() == null ? null : new RelayMetricsScraper(settings.relayMetrics());
      if (scraper != null) {
        try {
          scraper.scrape();
        } catch (IOException e) {
          // not fatal here: the sampler's scrapes in the measured window report a failure
        }
      }
      // pacing
      long periodNanos = 1_000_000_000L / settings.rate();
      long t0 = System.nanoTime();
      long sentCount = 0;
      long writes = 0;
      long maxLateNanos = 0;
      long measureStart = 0;
      double cpuStart = 0;
      RelayMetricsSampler metrics = null;
      Series lateSeries = new Series("pacer behind schedule ms");
      while (sentCount < total) {
        if (client.failure.get() != null) {
          throw new IOException("the replica client of the relay failed", client.failure.get());
        }
        long now = System.nanoTime();
        long due = Math.min(total, (now - t0) / periodNanos + 1);
        if (due <= sentCount) {
          LockSupport.parkNanos(t0 + sentCount * periodNanos - now);
          continue;
        }
        if (sentCount >= warmupTrx && measureStart == 0) {
          measureStart = now;
          cpuStart = relayCpu == null ? 0 : relayCpu.cpuSeconds();
          if (scraper != null) {
            // returns at once: the sampler scrapes on its own thread, never on the pacer's
            metrics = new RelayMetricsSampler(scraper, now);
          }
        }
        long late = now - (t0 + sentCount * periodNanos);
        maxLateNanos = sentCount >= warmupTrx ? Math.max(maxLateNanos, late) : maxLateNanos;
        int n = (int) Math.min(due - sentCount, 10_000);
        long first = primary.send(n, System.currentTimeMillis() * 1000);
        long written = System.nanoTime();
        for (int i = 0; i < n; i++) {
          sent[(int) (first - 1) + i] = written;
        }
        sentCount += n;
        writes++;
        if (writes % 64 == 0) {
          lateSeries.add((now - t0) / 1e9, late / 1e6);
        }
      }
      long measureEnd = System.nanoTime();
      double cpuEnd = relayCpu == null ? 0 : relayCpu.cpuSeconds();
      // wait for the client to have everything
      long drainDeadline = measureEnd + settings.setupTimeout().toNanos();
      while (client.transactions.get() < total
          && client.failure.get() == null
          && System.nanoTime() < drainDeadline) {
        Thread.sleep(10);
      }
      if (metrics != null) {
        metrics.stop();
      }
      client.close();
      reader.join(5_000);
      Distribution latency = new Distribution();
      long early = 0;
      long missing = 0;
      Series latencySeries = new Series("relay-added latency p-max per 0.1 s ms");
      long bucketStart = -1;
      long bucketMax = 0;
      for (int i = (int) warmupTrx; i < total; i++) {
        if (received[i] == 0) {
          missing++;
          continue;
        }
        long d = received[i] - sent[i];
        if (d < 0) {
          early++;
          d = 0;
        }
        latency.add(d);
        long bucket = (sent[i] - t0) / 100_000_000L;
        if (bucket != bucketStart) {
          if (bucketStart >= 0) {
            latencySeries.add(bucketStart / 10.0, bucketMax / 1e6);
          }
          bucketStart = bucket;
          bucketMax = 0;
        }
        bucketMax = Math.max(bucketMax, d);
      }
      double seconds = (measureEnd - measureStart) / 1e9;
      Report report =
          new Report(
              "synthetic",
              "relay-added latency at "
                  + settings.rate()
                  + " trx/s: synthetic primary -> relay "
                  + settings.relay().host()
                  + ":"
                  + settings.relay().port()
                  + " -> client"
                  + (settings.label() == null ? "" : " (" + settings.label() + ")"));
      report
          .figure("rate_target", "target rate", settings.rate(), "trx/s")
          .figure("seconds", "measured", round(seconds, 3), "s")
          .figure("warmup_transactions", "warm-up transactions (not counted)", warmupTrx, "")
          .figure("transactions_sent", "transactions sent (measured)", total - warmupTrx, "")
          .figure(
              "achieved_trx_per_s",
              "achieved rate (sent)",
              round((total - warmupTrx) / seconds, 1),
              "trx/s")
          .figure("writes", "primary writes (all)", writes, "")
          .figure(
              "pacer_late_max_ms",
              "pacer behind its schedule, max",
              round(maxLateNanos / 1e6, 3),
              "ms")
          .figure(
              "transaction_bytes_mean",
              "recorded transaction size, mean",
              round(settings.recording().meanTransactionBytes(), 1),
              "B")
          .figure(
              "transactions_received",
              "transactions received by the client (all)",
              client.transactions.get(),
              "")
          .figure("missing", "measured transactions never received", missing, "")
          .figure("duplicates", "transactions received twice", client.duplicates.get(), "")
          .figure("out_of_order", "GNOs out of order", client.outOfOrder.get(), "")
          .figure(
              "every_transaction_once",
              "client got every transaction once, in order",
              client.transactions.get() == total
                  && client.duplicates.get() == 0
                  && client.outOfOrder.get() == 0,
              "")
          .figure("latency_p50_ms", "relay-added latency p50", ms(latency.percentile(50)), "ms")
          .figure("latency_p99_ms", "relay-added latency p99", ms(latency.percentile(99)), "ms")
          .figure(
              "latency_p999_ms", "relay-added latency p99.9", ms(latency.percentile(99.9)), "ms")
          .figure("latency_max_ms", "relay-added latency max", ms(latency.max()), "ms")
          .figure(
              "latency_mean_ms", "relay-added latency mean", round(latency.mean() / 1e6, 4), "ms")
          .figure(
              "handed_over_before_write_returned",
              "received before the primary's write returned (counted as 0)",
              early,
              "");
      if (relayCpu != null) {
        report.figure(
            "relay_cpu_percent",
            "relay CPU over the measured seconds (% of one core)",
            round((cpuEnd - cpuStart) / seconds * 100, 1),
            "%");
        report.figure(
            "relay_cpu_us_per_trx",
            "relay CPU per transaction",
            round((cpuEnd - cpuStart) * 1e6 / (total - warmupTrx), 2),
            "µs");
      }
      report.note(
          "latency: from the return of the synthetic primary's socket write that carried the transaction to the"
              + " client's read of its XID, one monotonic clock; the primary and the client are threads of this"
              + " process, the relay another process; recording: "
              + settings.recording().transactions().size()
              + " row transactions of MySQL "
              + settings.recording().serverVersion()
              + " replayed in turn");
      report.plot("relay-added latency", "ms", List.of(latencySeries, lateSeries));
      if (metrics != null) {
        metrics.report(report);
      }
      return report;
    }
  }

  private ProcessSampler relaySampler(long deadline) throws IOException, InterruptedException {
    if (settings.relayPid() > 0) {
      return ProcessSampler.of(settings.relayPid());
    }
    if (settings.relayPidFile() == null) {
      return null;
    }
    while (true) {
      String text =
          Files.exists(settings.relayPidFile())
              ? Files.readString(settings.relayPidFile()).strip()
              : "";
      if (!text.isEmpty()) {
        try {
          return ProcessSampler.of(Long.parseLong(text));
        } catch (NumberFormatException e) {
          throw new IOException(settings.relayPidFile() + " holds '" + text + "', not a pid");
        }
      }
      if (System.nanoTime() > deadline) {
        throw new IOException(
            "no relay pid in " + settings.relayPidFile() + " within the setup timeout");
      }
      Thread.sleep(20);
    }
  }

  private static Object ms(long nanos) {
    return round(nanos / 1e6, 4);
  }

  private static double round(double v, int digits) {
    double f = Math.pow(10, digits);
    return Math.round(v * f) / f;
  }

  /**
   * The relay's replica: reads the dump and notes, per GNO, when its XID arrived. Thread-safe
   * counters; one reading thread.
   */
  private static final class Client implements Runnable {
    private static final int GNO_OFFSET = 1 + EventHeader.SIZE + 1 + 16;

    final SourceConnection connection;
    final long[] received;
    final java.util.concurrent.atomic.AtomicLong transactions =
        new java.util.concurrent.atomic.AtomicLong();
    final java.util.concurrent.atomic.AtomicLong duplicates =
        new java.util.concurrent.atomic.AtomicLong();
    final java.util.concurrent.atomic.AtomicLong outOfOrder =
        new java.util.concurrent.atomic.AtomicLong();
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean closing;

    private Client(SourceConnection connection, long[] received) {
      this.connection = connection;
      this.received = received;
    }

    static Client connect(SourceAddress relay, long[] received, long deadline)
        throws IOException, InterruptedException {
      while (true) {
        try {
          SourceConnection c =
              SourceConnection.open(relay, Duration.ofSeconds(10), 1 << 16, 1 << 24);
          try {
            SourceFlavor flavor = SourceFlavor.of(c.serverVersion());
            String checksum = c.queryValue("SELECT @@GLOBAL.binlog_checksum");
            if (checksum == null || !checksum.toUpperCase(Locale.ROOT).equals("CRC32")) {
              throw new IOException(
                  "the relay reports binlog_checksum " + checksum + ", expected CRC32");
            }
            flavor.prepareDump(c, "CRC32", 1000, 1_000_000);
            flavor.dumpAfterGtids(c, "", 1_000_000, false);
            c.readTimeout(Duration.ofSeconds(30));
            return new Client(c, received);
          } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
          }
        } catch (IOException e) {
          if (System.nanoTime() > deadline) {
            throw new IOException(
                "cannot dump from the relay at " + relay + ": " + e.getMessage(), e);
          }
          Thread.sleep(100);
        }
      }
    }

    @Override
    public void run() {
      BlockingPacketReader packets = connection.packets();
      long gno = 0;
      long lastGno = 0;
      try {
        while (!closing) {
          packets.next();
          byte[] b = packets.array();
          int off = packets.offset();
          int len = packets.length();
          int first = b[off] & 0xff;
          if (first == ErrPacket.HEADER) {
            throw new IOException(
                "the relay ended the dump: " + ErrPacket.decode(packets.copy()).message());
          }
          if (first == 0xfe && len < 9) {
            throw new IOException("the relay ended the dump (EOF)");
          }
          int type = b[off + 1 + EventHeader.TYPE_OFFSET] & 0xff;
          if (type == EventType.GTID.code()) {
            gno = LittleEndian.u64(b, off + GNO_OFFSET);
            if (gno != lastGno + 1) {
              outOfOrder.incrementAndGet();
            }
            lastGno = gno;
          } else if (type == EventType.XID.code() && gno > 0) {
            long now = System.nanoTime();
            int i = (int) (gno - 1);
            if (i < received.length) {
              if (received[i] != 0) {
                duplicates.incrementAndGet();
              } else {
                received[i] = now;
              }
            }
            transactions.incrementAndGet();
            gno = 0;
          }
        }
      } catch (IOException | RuntimeException e) {
        if (!closing) {
          failure.set(e);
        }
      }
    }

    void close() throws IOException {
      closing = true;
      connection.close();
    }
  }
}
