package org.binlogrelay.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.binlogrelay.bench.client.SourceConnection;
import org.binlogrelay.bench.client.SourceException;
import org.binlogrelay.bench.flavor.SourceFlavor;
import org.binlogrelay.bench.report.Report;
import org.binlogrelay.bench.report.Series;
import org.binlogrelay.bench.stream.BinlogPosition;
import org.binlogrelay.bench.stream.DumpProgress;
import org.binlogrelay.bench.stream.DumpStreamReader;
import org.binlogrelay.bench.stream.FileRebuilder;
import org.binlogrelay.bench.stream.SourceFileComparison;

/**
 * {@code catchup}: one client streams a stored backlog as fast as it can until it is caught up, and
 * the run reports MB/s, events/s, transactions/s and the time to caught-up. "Caught up" is, first
 * that applies:
 *
 * <ol>
 *   <li>{@code --until FILE:POS}: the first event ending at or past it;
 *   <li>{@code --non-blocking}: the source's EOF packet after its last event;
 *   <li>otherwise the source's head when the run started ({@code SHOW BINARY LOG STATUS} / {@code
 *       SHOW MASTER STATUS}): the first event ending at or past it;
 *   <li>always, as a fallback: an idle heartbeat (its log_pos is where the stream stands, so the
 *       source has nothing more); the time is then that of the last event, not of the heartbeat.
 * </ol>
 *
 * The clock starts when the dump command is sent (login and setup are not counted). With {@code
 * --verify-dir} every event is compared with the source's files as it arrives ({@link
 * SourceFileComparison}); that reads the files too, so verified runs are slower and their figures
 * are marked as such.
 *
 * <p>CPU: the client's own CPU seconds over the timed run are reported, and with {@code
 * --source-pid} the source's (from /proc): a client near one core is the bottleneck, not the
 * source.
 *
 * <p>{@link #run()} is one run with threads of its own (the reader on the caller's thread, a
 * sampler); the settings are immutable. Not meant for concurrent runs (their figures would disturb
 * each other).
 */
final class CatchupRun {
  /** What to run. Immutable. */
  record Settings(
      ClientSettings client,
      StartPoint start,
      BinlogPosition until,
      boolean nonBlocking,
      Path verifyDir,
      Duration timeout,
      Duration sampleEvery,
      Long sourcePid) {

    /** The same run without {@code --verify-dir} (a warm-up). */
    Settings withoutVerification() {
      return new Settings(client, start, until, nonBlocking, null, timeout, sampleEvery, sourcePid);
    }
  }

  private final Settings settings;

  CatchupRun(Settings settings) {
    this.settings = settings;
  }

  /**
   * Where the run starts and what ends it, as asked of the source before the timed run.
   *
   * @param serverVersion the source's version string
   * @param start the first file (and GTIDs) to stream from
   * @param until the first event ending at or past it ends the run; {@code null} for EOF or an idle
   *     heartbeat
   * @param endRule the caught-up rule, as the report names it
   */
  private record Plan(
      String serverVersion, StartPoint start, BinlogPosition until, String endRule) {}

  /**
   * How the stream ended.
   *
   * @param ended what ended it, as the report names it
   * @param endNanos when ({@link System#nanoTime()})
   */
  private record Ending(String ended, long endNanos) {}

  Report run() throws IOException, InterruptedException {
    ClientSettings client = settings.client();
    Plan plan = plan();
    SourceFileComparison comparison =
        settings.verifyDir() == null ? null : new SourceFileComparison(settings.verifyDir());
    FileRebuilder rebuilder = comparison == null ? null : new FileRebuilder(comparison);
    Series throughput = new Series("MB/s");
    ScheduledExecutorService timers =
        Executors.newScheduledThreadPool(
            1,
            r -> {
              Thread t = new Thread(r, "catchup-sampler");
              t.setDaemon(true);
              return t;
            });
    AtomicBoolean timedOut = new AtomicBoolean();
    ProcessSampler source =
        settings.sourcePid() == null ? null : ProcessSampler.of(settings.sourcePid());
    ProcessSampler self = ProcessSampler.of(ProcessHandle.current().pid());
    try (ReplicaClient replica =
        ReplicaClient.start(client, plan.start(), settings.nonBlocking(), 0, rebuilder)) {
      DumpStreamReader stream = replica.stream();
      double sourceCpu0 = source == null ? 0 : source.cpuSeconds();
      double selfCpu0 = self.cpuSeconds();
      long t0 = System.nanoTime();
      sampleThroughput(timers, stream.progress(), t0, throughput);
      giveUpAfterTimeout(timers, replica, timedOut);
      Ending ending = streamUntilCaughtUp(stream, plan.until(), timedOut);
      double seconds = Math.max(1e-9, (ending.endNanos() - t0) / 1e9);
      double selfCpu = self.cpuSeconds() - selfCpu0;
      double sourceCpu = source == null ? 0 : source.cpuSeconds() - sourceCpu0;
      Report report = figures(plan, replica, ending, seconds, selfCpu);
      if (source != null) {
        report.figure(
            "source_cpu_seconds", "the source's CPU during the run (10 ms ticks)", sourceCpu, "s");
      }
      if (comparison != null) {
        comparison.close();
        addVerification(report, comparison);
      }
      if (!client.verifyChecksums()) {
        report.note("CRC32 not checked (--no-crc)");
      }
      report.plot("throughput", "MB/s", List.of(throughput));
      return report;
    } finally {
      timers.shutdownNow();
      if (comparison != null) {
        comparison.close();
      }
    }
  }

  /**
   * Asks the source (on a connection of its own) for its version and, unless given, the start and
   * the end.
   */
  private Plan plan() throws IOException {
    ClientSettings client = settings.client();
    BinlogPosition until = settings.until();
    StartPoint start = settings.start();
    String endRule;
    try (SourceConnection control =
        SourceConnection.open(
            client.source(), client.connectTimeout(), 1 << 16, client.maxPacket())) {
      String serverVersion = control.serverVersion();
      SourceFlavor flavor = SourceFlavor.of(serverVersion);
      if (start == null) {
        List<List<String>> logs = control.query("SHOW BINARY LOGS");
        if (logs.isEmpty()) {
          throw new IOException(client.source() + " lists no binary logs (SHOW BINARY LOGS)");
        }
        start = new StartPoint(new BinlogPosition(logs.get(0).get(0), 4), null);
      }
      if (until != null) {
        endRule = "--until " + until;
      } else if (settings.nonBlocking()) {
        endRule = "the source's EOF (non-blocking dump)";
      } else {
        try {
          until = flavor.head(control);
          endRule = "the source's head at the start, " + until;
        } catch (SourceException e) {
          endRule =
              "an idle heartbeat ("
                  + flavor.binlogStatusStatement()
                  + " failed: "
                  + e.getMessage()
                  + ")";
        }
      }
      return new Plan(serverVersion, start, until, endRule);
    }
  }

  /**
   * Adds the MB/s since the last sample to {@code throughput} every {@code --sample-every}, from
   * {@code t0}.
   */
  private void sampleThroughput(
      ScheduledExecutorService timers, DumpProgress progress, long t0, Series throughput) {
    long[] last = {0, t0};
    timers.scheduleAtFixedRate(
        () -> {
          long now = System.nanoTime();
          long bytes = progress.eventBytes();
          throughput.add((now - t0) / 1e9, (bytes - last[0]) / 1e6 / ((now - last[1]) / 1e9));
          last[0] = bytes;
          last[1] = now;
        },
        settings.sampleEvery().toNanos(),
        settings.sampleEvery().toNanos(),
        TimeUnit.NANOSECONDS);
  }

  /**
   * After {@code --give-up-after}: sets {@code timedOut} and closes the replica's connection to
   * wake its reader.
   */
  private void giveUpAfterTimeout(
      ScheduledExecutorService timers, ReplicaClient replica, AtomicBoolean timedOut) {
    timers.schedule(
        () -> {
          timedOut.set(true);
          try {
            replica.close();
          } catch (IOException e) {
            // closing only to wake the reader
          }
        },
        settings.timeout().toNanos(),
        TimeUnit.NANOSECONDS);
  }

  /** Reads the stream until the first caught-up rule (class comment) applies. */
  private Ending streamUntilCaughtUp(
      DumpStreamReader stream, BinlogPosition until, AtomicBoolean timedOut) throws IOException {
    DumpProgress progress = stream.progress();
    long untilPacked = until == null ? Long.MAX_VALUE : until.packed();
    try {
      while (true) {
        DumpStreamReader.Kind kind = stream.next();
        if (kind == DumpStreamReader.Kind.EOF) {
          return new Ending("EOF", System.nanoTime());
        }
        if (kind == DumpStreamReader.Kind.EVENT && progress.position() >= untilPacked) {
          // not the read's arrival time: the events read with it are parsed by now
          return new Ending("reached " + until, System.nanoTime());
        }
        if (kind == DumpStreamReader.Kind.HEARTBEAT
            && stream.events() > 0
            && stream.file() != null
            && stream.lastLogPos() == (stream.offset() & 0xFFFFFFFFL)) {
          return new Ending("idle heartbeat at " + stream.position(), progress.lastEventNanos());
        }
      }
    } catch (IOException e) {
      if (timedOut.get()) {
        throw new IOException(
            "catchup did not finish within "
                + settings.timeout()
                + " (at "
                + stream.position()
                + " after "
                + stream.events()
                + " events); raise --give-up-after",
            e);
      }
      throw e;
    }
  }

  /** The run's figures, up to the client's own CPU. */
  private Report figures(
      Plan plan, ReplicaClient replica, Ending ending, double seconds, double selfCpu) {
    DumpStreamReader stream = replica.stream();
    Report report =
        new Report(
            "catchup",
            "catchup from "
                + plan.start()
                + " ("
                + settings.client().source()
                + ", "
                + plan.serverVersion()
                + ")");
    report
        .figure("seconds", "time to caught-up", seconds, "s")
        .figure("event_bytes", "binlog bytes received", stream.eventBytes(), "B")
        .figure("wire_bytes", "bytes on the socket", replica.wireBytes(), "B")
        .figure("mb_per_s", "throughput", stream.eventBytes() / 1e6 / seconds, "MB/s")
        .figure("events", "events", stream.events(), "")
        .figure("events_per_s", "events/s", stream.events() / seconds, "")
        .figure("transactions", "transactions (GTID events)", stream.transactions(), "")
        .figure("transactions_per_s", "transactions/s", stream.transactions() / seconds, "")
        .figure("heartbeats", "heartbeats", stream.heartbeats(), "")
        .figure("crc_checked", "events whose CRC32 was checked", stream.checksumsVerified(), "")
        .figure("end", "ended by", ending.ended(), "")
        .figure("end_rule", "caught-up rule", plan.endRule(), "")
        .figure("position", "last position", String.valueOf(stream.position()), "")
        .figure(
            "bench_cpu_seconds",
            "relay-bench CPU during the run (all its threads; 10 ms ticks)",
            selfCpu,
            "s");
    return report;
  }

  /** The {@code --verify-dir} figures and per-file table, from the closed comparison. */
  private void addVerification(Report report, SourceFileComparison comparison) {
    List<List<Object>> rows = new ArrayList<>();
    long whole = 0;
    for (SourceFileComparison.FileResult f : comparison.results()) {
      rows.add(List.of(f.file(), f.size(), f.compared(), f.skipped(), f.whole()));
      whole += f.whole() ? 1 : 0;
    }
    report
        .figure(
            "verified_bytes", "bytes identical to the source's files", comparison.compared(), "B")
        .figure("verified_whole_files", "files identical from offset 4 to their end", whole, "")
        .table(
            "verified_files",
            "files compared with " + settings.verifyDir(),
            List.of("file", "size", "compared", "not_sent", "whole"),
            rows)
        .note(
            "--verify-dir reads the source's files while streaming: the throughput of a verified run is not"
                + " the client's best");
  }
}
