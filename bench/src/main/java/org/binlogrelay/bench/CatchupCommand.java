package org.binlogrelay.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.binlogrelay.bench.report.Report;
import org.binlogrelay.bench.stream.BinlogPosition;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code catchup}: see {@link CatchupRun}. */
@Command(
    name = "catchup",
    mixinStandardHelpOptions = true,
    description =
        "Stream a stored backlog as fast as possible until caught up; report MB/s, events/s, "
            + "transactions/s and the time to caught-up.")
final class CatchupCommand implements Callable<Integer> {
  @ParentCommand BenchCommand parent;

  @Mixin SourceOptions source;

  @Mixin ClientOptions client;

  @Mixin OutputOptions output;

  @ArgGroup(exclusive = true)
  From from;

  static final class From {
    @Option(
        names = "--from",
        paramLabel = "FILE:POS",
        description = "Start here (default: the first binary log, 4).")
    String position;

    @Option(
        names = "--from-gtid",
        paramLabel = "GTIDS",
        description = "Start after these GTIDs (MySQL GTID set, MariaDB GTID position).")
    String gtids;
  }

  @Option(
      names = "--until",
      paramLabel = "FILE:POS",
      description =
          "Caught up at the first event ending at or past this (default: the source's head at the start).")
  String until;

  @Option(
      names = "--non-blocking",
      description = "Ask for a non-blocking dump; caught up at the source's EOF.")
  boolean nonBlocking;

  @Option(
      names = "--verify-dir",
      paramLabel = "DIR",
      description = "Compare every byte received with the source's binlog files in DIR.")
  Path verifyDir;

  @Option(
      names = "--give-up-after",
      paramLabel = "SECONDS",
      defaultValue = "3600",
      description = "Give up after this many seconds (default: " + "${DEFAULT-VALUE}).")
  long timeoutSeconds;

  @Option(
      names = "--source-pid",
      paramLabel = "PID",
      description =
          "The source's pid on this machine: its CPU seconds during the timed run are reported.")
  Long sourcePid;

  @Option(
      names = "--warmup",
      paramLabel = "N",
      defaultValue = "0",
      description =
          "Run the same catch-up N times"
              + " first, untimed and unreported, so that this JVM's compiler has warmed the client up (a source that runs"
              + " long, as a server does, is warm; a client started for one short run is not, and can become the"
              + " bottleneck). Default: ${DEFAULT-VALUE}.")
  int warmups;

  @Option(
      names = "--sample",
      defaultValue = "100",
      description = "Throughput sample period in ms (default: " + "${DEFAULT-VALUE}).")
  long sampleMillis;

  @Override
  public Integer call() throws Exception {
    StartPoint start = null;
    if (from != null) {
      start =
          from.position != null
              ? new StartPoint(BinlogPosition.parse(from.position), null)
              : new StartPoint(null, from.gtids);
    }
    if (warmups < 0 || warmups > 100) {
      throw new CommandLine.ParameterException(
          new CommandLine(this), "--warmup must be 0..100, got " + warmups);
    }
    CatchupRun.Settings settings =
        new CatchupRun.Settings(
            client.settings(source, 1 << 20),
            start,
            until == null ? null : BinlogPosition.parse(until),
            nonBlocking,
            verifyDir,
            Duration.ofSeconds(timeoutSeconds),
            Duration.ofMillis(sampleMillis),
            sourcePid);
    for (int i = 0; i < warmups; i++) {
      new CatchupRun(settings.withoutVerification()).run();
    }
    Report report = new CatchupRun(settings).run();
    if (warmups > 0) {
      report.note(
          "after "
              + warmups
              + " untimed warm-up run(s) of the same catch-up in this JVM (--warmup)");
    }
    parent.publish(report, output);
    return 0;
  }
}
