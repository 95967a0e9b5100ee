package org.binlogrelay.bench;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.binlogrelay.bench.client.SourceConnection;
import org.binlogrelay.bench.flavor.SourceFlavor;
import org.binlogrelay.bench.report.Distribution;
import org.binlogrelay.bench.report.LagTimeline;
import org.binlogrelay.bench.report.Report;
import org.binlogrelay.bench.report.Series;
import org.binlogrelay.bench.stream.BinlogPosition;
import org.binlogrelay.bench.stream.DumpProgress;
import org.binlogrelay.bench.stream.DumpStreamReader;

/**
 * {@code fanout}: N replica clients tail the source at once for a while (load comes from elsewhere,
 * e.g. sysbench on the primary). Reported: per client and in aggregate the bytes, events and
 * transactions received and their rates, and each client's lag.
 *
 * <p>The clients are read by {@code --reader-threads} threads with a selector each ({@link
 * StreamReaders}), logged in {@value #LOGIN_THREADS} at a time; with 0, each client logs in and
 * reads on a thread of its own, blocking (as before 2026-11-29: with hundreds of clients the
 * wake-ups of their threads cost this machine more CPU than the reads).
 *
 * <p>Lag: a poller asks the source for its head ({@code SHOW BINARY LOG STATUS}) every {@code
 * --poll} over a separate SQL connection and gives each client the head with the time the question
 * was sent. The client's reading thread, after each event, takes every head its position has
 * reached and records the time since the question as one lag sample; a head the client had already
 * reached when the answer came counts as 0. Lag is thus "how long after the source reported a
 * position the client had received it", with the poll's round trip as error.
 *
 * <p>The measurement starts once every client is connected and has reached the head the source
 * reported after the last connection (bounded by {@link #SETTLE_LIMIT}), and after {@code --warmup}
 * more (the clients read on; a JVM source compiles its serving path meanwhile): what the clients
 * received while others were still logging in is not counted, so that per-client rates compare with
 * what the source wrote during the measurement. The time this took is reported ({@code
 * settle_seconds}), and so is the number of clients still behind when it ended. It ends at the last
 * poll; the clients then read until they have reached every head asked for (bounded by {@link
 * #DRAIN_LIMIT}) before any connection is closed, so that the source's handling of the other
 * clients' disconnections never counts as lag.
 *
 * <p>With {@code --source-pid} the source's CPU (percent of one core) and RSS are sampled from
 * /proc at each poll, and so are this process's own, to show whether the clients were the
 * bottleneck.
 */
final class FanoutRun {
  /** What to run. Immutable. */
  record Settings(
      ClientSettings client,
      int replicas,
      StartPoint start,
      Duration duration,
      Duration poll,
      Duration warmup,
      Long sourcePid,
      int readerThreads) {}

  /**
   * Logins at once when the clients are read by {@link StreamReaders} (a thread per client logs in
   * on its own thread).
   */
  static final int LOGIN_THREADS = 64;

  /** Longest wait for every client to connect and reach the head before the measurement starts. */
  static final Duration SETTLE_LIMIT = Duration.ofSeconds(30);

  /**
   * Longest wait, after the last poll, for every client to reach the heads asked for (before any
   * connection is closed).
   */
  static final Duration DRAIN_LIMIT = Duration.ofSeconds(10);

  /** A head the source reported and when it was asked. */
  private record Target(long packed, long askedNanos) {}

  /** One client's thread state; the distribution is the client thread's until it stopped. */
  private static final class Tail {
    final int index;
    final ConcurrentLinkedQueue<Target> targets = new ConcurrentLinkedQueue<>();
    final Distribution lagMicros = new Distribution();
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    volatile ReplicaClient client;
    volatile boolean stopping;

    /**
     * Where the samples of the measurement also go, by second (set before the measurement's first
     * target).
     */
    volatile LagTimeline timeline;

    long startNanos;
    long endNanos;

    /**
     * The stream's counters when the measurement started (set by the run's thread before the clock
     * starts).
     */
    long baseBytes;

    long baseEvents;
    long baseTransactions;

    Tail(int index) {
      this.index = index;
    }

    /** Client thread: records the heads the position has reached. */
    void reached(long position, long now) {
      Target t;
      while ((t = targets.peek()) != null && position >= t.packed()) {
        targets.poll();
        long lag = Math.max(0, (now - t.askedNanos()) / 1000);
        synchronized (lagMicros) {
          lagMicros.add(lag);
        }
        LagTimeline line = timeline;
        if (line != null) {
          line.add(now, lag);
        }
      }
    }
  }

  private final Settings settings;

  /** The clients' threads, one each; empty when {@link #readers} read them. */
  private final List<Thread> threads = new ArrayList<>();

  /** The reading threads ({@link Settings#readerThreads()} above 0), or {@code null}. */
  private StreamReaders readers;

  /** The threads that log the clients in when {@link #readers} read them, or {@code null}. */
  private ExecutorService logins;

  FanoutRun(Settings settings) {
    this.settings = settings;
  }

  Report run() throws IOException, InterruptedException {
    ClientSettings client = settings.client();
    try (SourceConnection control =
        SourceConnection.open(
            client.source(), client.connectTimeout(), 1 << 16, client.maxPacket())) {
      SourceFlavor flavor = SourceFlavor.of(control.serverVersion());
      StartPoint start =
          settings.start() != null ? settings.start() : new StartPoint(flavor.head(control), null);
      ProcessSampler source =
          settings.sourcePid() == null ? null : ProcessSampler.of(settings.sourcePid());
      ProcessSampler self = ProcessSampler.of(ProcessHandle.current().pid());
      List<Tail> tails = new ArrayList<>();
      CountDownLatch started = new CountDownLatch(settings.replicas());
      if (settings.readerThreads() > 0) {
        readers =
            new StreamReaders(
                settings.readerThreads(), ReplicaClient.readTimeout(settings.client()));
        logins =
            Executors.newFixedThreadPool(
                Math.min(settings.replicas(), LOGIN_THREADS),
                r -> {
                  Thread t = new Thread(r, "fanout-login");
                  t.setDaemon(true);
                  return t;
                });
      }
      for (int i = 0; i < settings.replicas(); i++) {
        Tail tail = new Tail(i);
        tails.add(tail);
        if (readers != null) {
          logins.execute(() -> login(tail, start, started));
        } else {
          Thread thread = new Thread(() -> tail(tail, start, started), "fanout-client-" + i);
          thread.setDaemon(true);
          threads.add(thread);
          thread.start();
        }
      }
      if (!started.await(
          client.connectTimeout().toMillis() * Math.max(1, settings.replicas() / 10 + 1),
          TimeUnit.MILLISECONDS)) {
        stopAll(tails);
        throw new IOException("not every client connected within the connect timeout");
      }
      failIfAny(tails);
      long settleStart = System.nanoTime();
      int behind = settle(control, flavor, tails);
      double settleSeconds = (System.nanoTime() - settleStart) / 1e9;
      if (!settings.warmup().isZero()) {
        Thread.sleep(settings.warmup().toMillis()); // the clients read on; nothing is counted
        failIfAny(tails);
      }
      for (Tail tail : tails) {
        DumpProgress p = tail.client.stream().progress();
        tail.baseBytes = p.eventBytes();
        tail.baseEvents = p.events();
        tail.baseTransactions = p.transactions();
      }
      Series aggregate = new Series("aggregate MB/s");
      Series sourceCpu = new Series("source CPU %");
      Series selfCpu = new Series("relay-bench CPU %");
      Distribution sourceCpuSamples = new Distribution();
      long sourceRssMax = 0;
      long selfRssMax = 0;
      long t0 = System.nanoTime();
      long deadline = t0 + settings.duration().toNanos();
      LagTimeline timeline =
          new LagTimeline(
              t0, (int) Math.max(1, Math.ceil(settings.duration().toMillis() / 1000.0)));
      for (Tail tail : tails) {
        tail.timeline = timeline;
      }
      long lastBytes = totalBytes(tails);
      long lastNanos = t0;
      if (source != null) {
        source.cpuPercent(t0);
      }
      self.cpuPercent(t0);
      while (System.nanoTime() < deadline) {
        Thread.sleep(settings.poll().toMillis());
        failIfAny(tails);
        long asked = System.nanoTime();
        BinlogPosition head = flavor.head(control);
        long headPacked = head.packed();
        for (Tail tail : tails) {
          DumpStreamReader stream = tail.client.stream();
          if (stream.progress().position() >= headPacked) {
            synchronized (tail.lagMicros) {
              tail.lagMicros.add(0);
            }
            timeline.add(asked, 0);
          } else {
            tail.targets.add(new Target(headPacked, asked));
          }
        }
        long now = System.nanoTime();
        double t = (now - t0) / 1e9;
        long bytes = totalBytes(tails);
        aggregate.add(t, (bytes - lastBytes) / 1e6 / ((now - lastNanos) / 1e9));
        lastBytes = bytes;
        lastNanos = now;
        if (source != null) {
          double cpu = source.cpuPercent(now);
          sourceCpu.add(t, cpu);
          sourceCpuSamples.add(Math.round(cpu));
          sourceRssMax = Math.max(sourceRssMax, source.rssBytes());
        }
        selfCpu.add(t, self.cpuPercent(now));
        selfRssMax = Math.max(selfRssMax, self.rssBytes());
      }
      long end = System.nanoTime();
      int undrained = drain(tails);
      stopAll(tails);
      return report(
          control,
          start,
          tails,
          t0,
          (end - t0) / 1e9,
          settleSeconds,
          behind,
          undrained,
          aggregate,
          sourceCpu,
          selfCpu,
          sourceCpuSamples,
          sourceRssMax,
          selfRssMax,
          source,
          timeline);
    }
  }

  /**
   * Waits until every client has reached the source's head as of now, or {@link #SETTLE_LIMIT};
   * returns how many clients were still behind.
   */
  private int settle(SourceConnection control, SourceFlavor flavor, List<Tail> tails)
      throws IOException, InterruptedException {
    long head = flavor.head(control).packed();
    long deadline = System.nanoTime() + SETTLE_LIMIT.toNanos();
    while (true) {
      failIfAny(tails);
      int behind = 0;
      for (Tail t : tails) {
        if (t.client.stream().progress().position() < head) {
          behind++;
        }
      }
      if (behind == 0 || System.nanoTime() >= deadline) {
        return behind;
      }
      Thread.sleep(Math.min(50, settings.poll().toMillis()));
    }
  }

  /**
   * After the last poll: waits until every client has reached every head asked for (bounded by
   * {@link #DRAIN_LIMIT}), so that their last samples are taken before any connection closes (a
   * source handling the other clients' disconnections must not show as their lag); returns the
   * heads not reached by then, whose samples are lost.
   */
  private int drain(List<Tail> tails) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + DRAIN_LIMIT.toNanos();
    while (true) {
      failIfAny(tails);
      int pending = 0;
      for (Tail t : tails) {
        pending += t.targets.size();
      }
      if (pending == 0 || System.nanoTime() >= deadline) {
        return pending;
      }
      Thread.sleep(10);
    }
  }

  private void tail(Tail tail, StartPoint start, CountDownLatch started) {
    try {
      tail.client = ReplicaClient.start(settings.client(), start, false, tail.index, null);
      tail.startNanos = System.nanoTime();
      started.countDown();
      DumpStreamReader stream = tail.client.stream();
      while (!tail.stopping) {
        if (stream.next() == DumpStreamReader.Kind.EVENT) {
          tail.reached(stream.progress().position(), stream.arrivalNanos());
        }
      }
    } catch (IOException | RuntimeException e) {
      if (!tail.stopping) {
        tail.failure.set(e);
      }
      started.countDown();
    } finally {
      tail.endNanos = System.nanoTime();
    }
  }

  /** A login thread: logs {@code tail}'s client in and hands its stream to the readers. */
  private void login(Tail tail, StartPoint start, CountDownLatch started) {
    try {
      tail.client = ReplicaClient.startSelectable(settings.client(), start, tail.index);
      tail.startNanos = System.nanoTime();
      readers.add(
          tail.client,
          new StreamReaders.Listener() {
            @Override
            public void event(DumpStreamReader stream, long arrivalNanos) {
              tail.reached(stream.progress().position(), arrivalNanos);
            }

            @Override
            public void ended(Throwable cause) {
              tail.endNanos = System.nanoTime();
              if (!tail.stopping) {
                tail.failure.set(cause);
              }
            }
          });
    } catch (IOException | RuntimeException e) {
      if (!tail.stopping) {
        tail.failure.set(e);
      }
      tail.endNanos = System.nanoTime();
    } finally {
      started.countDown();
    }
  }

  private static long totalBytes(List<Tail> tails) {
    long sum = 0;
    for (Tail t : tails) {
      sum += t.client.stream().progress().eventBytes() - t.baseBytes;
    }
    return sum;
  }

  private void failIfAny(List<Tail> tails) throws IOException, InterruptedException {
    for (Tail t : tails) {
      Throwable e = t.failure.get();
      if (e != null) {
        stopAll(tails);
        throw new IOException("client " + t.index + " failed: " + e.getMessage(), e);
      }
    }
  }

  /** Closes every client and stops the threads that read them. Idempotent. */
  private void stopAll(List<Tail> tails) throws InterruptedException {
    if (logins != null) {
      logins.shutdownNow();
      logins.awaitTermination(10, TimeUnit.SECONDS);
    }
    long now = System.nanoTime();
    for (Tail t : tails) {
      t.stopping = true;
      if (readers != null && t.endNanos == 0) {
        t.endNanos = now;
      }
      ReplicaClient c = t.client;
      if (c != null) {
        try {
          c.close();
        } catch (IOException e) {
          // closing to stop the reader
        }
      }
    }
    for (Thread thread : threads) {
      thread.join(10_000);
    }
    if (readers != null) {
      readers.close();
    }
  }

  private Report report(
      SourceConnection control,
      StartPoint start,
      List<Tail> tails,
      long t0,
      double seconds,
      double settleSeconds,
      int behind,
      int undrained,
      Series aggregate,
      Series sourceCpu,
      Series selfCpu,
      Distribution sourceCpuSamples,
      long sourceRssMax,
      long selfRssMax,
      ProcessSampler source,
      LagTimeline timeline) {
    Report report =
        new Report(
            "fanout",
            settings.replicas()
                + " tailing clients from "
                + start
                + " ("
                + control.address()
                + ", "
                + control.serverVersion()
                + ")");
    Distribution allLag = new Distribution();
    List<List<Object>> rows = new ArrayList<>();
    long bytes = 0;
    long events = 0;
    long transactions = 0;
    for (Tail t : tails) {
      DumpStreamReader s = t.client.stream();
      double own = Math.max(1e-9, (t.endNanos - Math.max(t0, t.startNanos)) / 1e9);
      long clientBytes = s.eventBytes() - t.baseBytes;
      long clientEvents = s.events() - t.baseEvents;
      long clientTransactions = s.transactions() - t.baseTransactions;
      Distribution lag;
      synchronized (t.lagMicros) {
        lag = t.lagMicros;
        allLag.addAll(lag);
      }
      rows.add(
          List.of(
              t.index,
              clientBytes,
              clientBytes / 1e6 / own,
              clientEvents,
              clientTransactions,
              lag.count(),
              lag.percentile(50) / 1000.0,
              lag.percentile(99) / 1000.0,
              lag.max() / 1000.0));
      bytes += clientBytes;
      events += clientEvents;
      transactions += clientTransactions;
    }
    report
        .figure("replicas", "clients", settings.replicas(), "")
        .figure("seconds", "duration", seconds, "s")
        .figure(
            "settle_seconds",
            "clients connecting and reaching the head, before the measurement",
            settleSeconds,
            "s")
        .figure(
            "clients_behind_at_start",
            "clients still behind the head when the measurement started",
            behind,
            "")
        .figure(
            "warmup_seconds",
            "clients tailing after settling, before the measurement (not counted)",
            settings.warmup().toMillis() / 1000.0,
            "s")
        .figure(
            "heads_not_reached",
            "heads asked for that a client had not reached "
                + DRAIN_LIMIT.toSeconds()
                + " s after the last poll (their lag samples are lost)",
            undrained,
            "")
        .figure("event_bytes", "binlog bytes received, all clients", bytes, "B")
        .figure("mb_per_s", "aggregate throughput", bytes / 1e6 / seconds, "MB/s")
        .figure("events_per_s", "aggregate events/s", events / seconds, "")
        .figure("transactions_per_s", "aggregate transactions/s", transactions / seconds, "")
        .figure(
            "per_client_mb_per_s",
            "mean throughput per client",
            bytes / 1e6 / seconds / settings.replicas(),
            "MB/s")
        .figure("lag_samples", "lag samples (all clients)", allLag.count(), "")
        .figure("lag_p50_ms", "lag p50", allLag.percentile(50) / 1000.0, "ms")
        .figure("lag_p95_ms", "lag p95", allLag.percentile(95) / 1000.0, "ms")
        .figure("lag_p99_ms", "lag p99", allLag.percentile(99) / 1000.0, "ms")
        .figure("lag_max_ms", "lag max", allLag.max() / 1000.0, "ms")
        .figure(
            "lag_p50_first_quarter_ms",
            "lag p50 in the first quarter of the measurement",
            timeline.medianMillis(0, quarter(timeline, 1)),
            "ms")
        .figure(
            "lag_p50_last_quarter_ms",
            "lag p50 in the last quarter of the measurement",
            timeline.medianMillis(quarter(timeline, 3), timeline.length()),
            "ms")
        .figure(
            "lag_growth_ms_per_s",
            "growth of the lag: least-squares slope of the per-second p50",
            timeline.growthMillisPerSecond(),
            "ms/s")
        .figure(
            "bench_cpu_mean_percent",
            "relay-bench CPU mean (the clients)",
            mean(selfCpu),
            "% of a core")
        .figure("bench_rss_max_bytes", "relay-bench RSS max", selfRssMax, "B");
    if (source != null) {
      report
          .figure("source_pid", "source pid", source.pid(), "")
          .figure(
              "source_cpu_mean_percent", "source CPU mean", sourceCpuSamples.mean(), "% of a core")
          .figure("source_cpu_max_percent", "source CPU max", sourceCpuSamples.max(), "% of a core")
          .figure("source_rss_max_bytes", "source RSS max", sourceRssMax, "B");
    }
    report.table(
        "clients",
        "per client",
        List.of(
            "client",
            "event_bytes",
            "mb_per_s",
            "events",
            "transactions",
            "lag_samples",
            "lag_p50_ms",
            "lag_p99_ms",
            "lag_max_ms"),
        rows);
    report.note(
        "lag = time from asking the source for its head ("
            + settings.poll().toMillis()
            + " ms polls) to the"
            + " client having received up to it; 0 if it already had; error up to one poll round trip");
    List<Series> lines = new ArrayList<>(List.of(aggregate));
    if (source != null) {
      lines.add(sourceCpu);
    }
    lines.add(selfCpu);
    report.plot("aggregate throughput and CPU", "MB/s, % of a core", lines);
    List<List<Object>> perSecond = new ArrayList<>();
    List<double[]> p50 = timeline.percentiles("p50", 50).points();
    List<double[]> p99 = timeline.percentiles("p99", 99).points();
    for (int i = 0; i < p50.size(); i++) {
      perSecond.add(List.of((int) p50.get(i)[0], p50.get(i)[1], p99.get(i)[1]));
    }
    report.table(
        "lag_by_second",
        "lag of all clients, second by second of the measurement",
        List.of("second", "lag_p50_ms", "lag_p99_ms"),
        perSecond);
    return report;
  }

  /** The first second of quarter {@code q} (0..4) of the timeline. */
  private static int quarter(LagTimeline timeline, int q) {
    return (int) Math.round(timeline.length() * q / 4.0);
  }

  private static double mean(Series series) {
    List<double[]> points = series.points();
    return points.stream().mapToDouble(p -> p[1]).average().orElse(0);
  }
}
