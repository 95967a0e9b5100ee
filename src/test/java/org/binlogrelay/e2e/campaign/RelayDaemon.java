package org.binlogrelay.e2e.campaign;

import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.e2e.process.ChildProcesses;
import org.binlogrelay.e2e.process.Tails;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Test side: the relay as an operator runs it, {@code java -Xmx256m ...
 * org.binlogrelay.server.RelayMain OPTIONS}, in a child process that the campaign SIGKILLs,
 * SIGSTOPs and starts again with the same options (same data directory, port, accounts). Each start
 * is an {@link Incarnation} with a log file of its own ({@code relay-N.log}: the relay's stdout and
 * stderr). Every end is recorded; an end the campaign did not cause (the relay died on its own) is
 * kept in {@link #unexpectedEnds()}. A sampler reads {@code VmRSS} and {@code VmHWM} (peak RSS) of
 * the running JVM from {@code /proc/PID/status} every 500 ms, and once more just before each kill
 * or stop.
 *
 * <p>Thread-safe: the campaign thread drives it, the sampler and the process-exit callbacks run on
 * their own.
 */
final class RelayDaemon implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RelayDaemon.class);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);

  /**
   * One run of the relay process: its number (from 1), pid, log file, and how it ended (null while
   * running).
   */
  record Incarnation(int number, long pid, Path log, String end) {}

  private final List<String> command;
  private final Path directory;
  private final List<Incarnation> incarnations = new ArrayList<>();
  private final List<String> unexpectedEnds = new ArrayList<>();
  private final ScheduledExecutorService sampler =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "relay-rss-sampler");
            t.setDaemon(true);
            return t;
          });
  private Process process;
  private boolean endExpected;
  private long maxRssKb;
  private long maxHwmKb;
  private long samples;

  /**
   * @param command the whole command line ({@code java ... RelayMain --primary ...})
   * @param directory where the log files go (not the relay's data directory)
   */
  RelayDaemon(List<String> command, Path directory) {
    this.command = List.copyOf(command);
    this.directory = directory;
    sampler.scheduleWithFixedDelay(this::sample, 500, 500, TimeUnit.MILLISECONDS);
  }

  /** Starts a new incarnation; the previous one must have ended. */
  synchronized Incarnation start() {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException("the relay is still running as pid " + process.pid());
    }
    int number = incarnations.size() + 1;
    Path logFile = directory.resolve("relay-" + number + ".log");
    Process started = ChildProcesses.start(command, directory, logFile, null);
    process = started;
    endExpected = false;
    Incarnation incarnation = new Incarnation(number, started.pid(), logFile, null);
    incarnations.add(incarnation);
    started.onExit().thenAccept(p -> ended(number, p));
    return incarnation;
  }

  private synchronized void ended(int number, Process p) {
    Incarnation i = incarnations.get(number - 1);
    if (i.end() != null) {
      return; // kill() or stop() recorded it
    }
    String end = "exited with " + p.exitValue() + " on its own";
    incarnations.set(number - 1, new Incarnation(number, i.pid(), i.log(), end));
    if (!(endExpected && process == p)) {
      unexpectedEnds.add(
          "relay incarnation "
              + number
              + " (pid "
              + i.pid()
              + ") "
              + end
              + ":\n"
              + Tails.of(i.log(), 40));
      LOG.error("relay incarnation {} (pid {}) {}", number, i.pid(), end);
    }
  }

  /** SIGKILL (and wait until it is gone); returns the exit status (137). */
  int kill() {
    Process p;
    synchronized (this) {
      p = requireRunning();
      sample();
      endExpected = true;
    }
    ChildProcesses.kill(p);
    return recordEnd(p, "SIGKILL by the campaign");
  }

  /** SIGTERM, as an operator stops the relay; returns the exit status (0 after a clean stop). */
  int stop() throws InterruptedException {
    Process p;
    synchronized (this) {
      p = requireRunning();
      sample();
      endExpected = true;
    }
    p.destroy();
    if (!p.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
      ChildProcesses.kill(p);
      throw new AssertionError(
          "the relay did not stop within "
              + STOP_TIMEOUT
              + " of SIGTERM:\n"
              + Tails.of(current().log(), 40));
    }
    return recordEnd(p, "SIGTERM by the campaign");
  }

  private synchronized int recordEnd(Process p, String how) {
    Incarnation i = incarnations.get(incarnations.size() - 1);
    String end = how + ", exit status " + p.exitValue();
    incarnations.set(i.number() - 1, new Incarnation(i.number(), i.pid(), i.log(), end));
    return p.exitValue();
  }

  /** SIGSTOP: the relay freezes with its sockets open. */
  synchronized void pause() {
    Signal.STOP.send(requireRunning().pid());
  }

  /** SIGCONT. */
  synchronized void resume() {
    Signal.CONT.send(requireRunning().pid());
  }

  private Process requireRunning() {
    requireNoUnexpectedEnd();
    if (process == null || !process.isAlive()) {
      throw new IllegalStateException("the relay is not running");
    }
    return process;
  }

  /** Fails if the relay ended without the campaign ending it. */
  synchronized void requireNoUnexpectedEnd() {
    if (!unexpectedEnds.isEmpty()) {
      throw new AssertionError("the relay died on its own: " + String.join("\n", unexpectedEnds));
    }
  }

  synchronized boolean running() {
    return process != null && process.isAlive();
  }

  synchronized Incarnation current() {
    return incarnations.get(incarnations.size() - 1);
  }

  synchronized List<Incarnation> incarnations() {
    return List.copyOf(incarnations);
  }

  synchronized List<String> unexpectedEnds() {
    return List.copyOf(unexpectedEnds);
  }

  /** How many lines of the current incarnation's log contain {@code fragment}. */
  long countInLog(String fragment) {
    Path file = current().log();
    try {
      if (!Files.exists(file)) {
        return 0;
      }
      try (var lines = Files.lines(file, StandardCharsets.UTF_8)) {
        return lines.filter(l -> l.contains(fragment)).count();
      }
    } catch (IOException | UncheckedIOException e) {
      throw new AssertionError("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Waits until the current incarnation's log has at least {@code count} lines containing {@code
   * fragment}; fails after {@code timeout}, or at once if the relay died on its own.
   */
  void awaitInLog(String fragment, long count, Duration timeout) throws InterruptedException {
    try {
      eventually(
          timeout,
          "'" + fragment + "' " + count + " times in the relay's log",
          () -> {
            requireNoUnexpectedEnd();
            return countInLog(fragment);
          },
          n -> n >= count);
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + ":\n" + Tails.of(current().log(), 40), e);
    }
  }

  synchronized long maxRssKb() {
    return maxRssKb;
  }

  /** The largest VmHWM (the kernel's own peak RSS of a process) over all incarnations. */
  synchronized long maxHwmKb() {
    return maxHwmKb;
  }

  synchronized long samples() {
    return samples;
  }

  private synchronized void sample() {
    if (process == null || !process.isAlive()) {
      return;
    }
    Path status = Path.of("/proc", Long.toString(process.pid()), "status");
    try {
      for (String line : Files.readAllLines(status, StandardCharsets.UTF_8)) {
        if (line.startsWith("VmRSS:")) {
          maxRssKb = Math.max(maxRssKb, kilobytes(line));
          samples++;
        } else if (line.startsWith("VmHWM:")) {
          maxHwmKb = Math.max(maxHwmKb, kilobytes(line));
        }
      }
    } catch (IOException e) {
      // the process ended between the check and the read: nothing to sample
    }
  }

  private static long kilobytes(String statusLine) {
    return Long.parseLong(statusLine.replaceAll("[^0-9]", ""));
  }

  /** Kills a relay still running (a failed test) and stops the sampler. */
  @Override
  public void close() {
    Process p;
    synchronized (this) {
      p = process;
      endExpected = true;
    }
    if (p != null && p.isAlive()) {
      try {
        Signal.CONT.send(
            p.pid()); // a paused JVM dies of SIGKILL too, but leave nothing frozen behind
      } catch (AssertionError e) {
        // already gone
      }
      ChildProcesses.kill(p);
    }
    sampler.shutdownNow();
  }
}
