package org.binlogrelay.e2e.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The external processes (servers, sysbench, installers) this JVM starts, made to die with it.
 *
 * <p>Three layers, so that no server outlives a test run however the JVM ends:
 *
 * <ol>
 *   <li>callers stop or kill what they started (servers in {@code close()});
 *   <li>a shutdown hook SIGKILLs every process still alive when the JVM exits normally or on
 *       SIGTERM/SIGINT;
 *   <li>every command runs under {@code setpriv --pdeathsig KILL} (util-linux), so the kernel
 *       SIGKILLs it when the JVM dies without running hooks, e.g. on SIGKILL after a Failsafe
 *       timeout. The parent-death signal fires when the <em>thread</em> that forked exits, so all
 *       processes are forked from one daemon thread that lives as long as the JVM.
 * </ol>
 *
 * Thread-safe.
 */
public final class ChildProcesses {

  private static final Path SETPRIV = Path.of("/usr/bin/setpriv");
  private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();
  private static final ExecutorService LAUNCHER =
      Executors.newSingleThreadExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "child-process-launcher");
            thread.setDaemon(true);
            return thread;
          });

  static {
    Runtime.getRuntime()
        .addShutdownHook(new Thread(ChildProcesses::killAll, "child-process-reaper"));
  }

  private ChildProcesses() {}

  /**
   * Starts a command with stdout and stderr appended to {@code outputFile} and stdin from {@code
   * stdinFile} (or nothing, if null).
   */
  public static Process start(List<String> command, Path workDir, Path outputFile, Path stdinFile) {
    List<String> full = new ArrayList<>();
    if (Files.isExecutable(SETPRIV)) {
      full.addAll(List.of(SETPRIV.toString(), "--pdeathsig", "KILL"));
    }
    full.addAll(command);
    ProcessBuilder builder =
        new ProcessBuilder(full)
            .directory(workDir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(outputFile.toFile()))
            .redirectInput(
                stdinFile == null
                    ? ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile())
                    : ProcessBuilder.Redirect.from(stdinFile.toFile()));
    try {
      Process process = LAUNCHER.submit(builder::start).get();
      LIVE.add(process);
      process.onExit().thenAccept(LIVE::remove);
      return process;
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw new UncheckedIOException(
          "Cannot start "
              + String.join(" ", command)
              + " in "
              + workDir
              + ": "
              + cause.getMessage(),
          cause instanceof IOException io ? io : new IOException(cause));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while starting " + String.join(" ", command), e);
    }
  }

  /**
   * Runs a command to completion, killing it if it takes longer than {@code timeout}; its output is
   * kept in {@code outputFile}. Does not check the exit code: see {@link
   * CommandResult#requireSuccess}.
   */
  public static CommandResult run(
      List<String> command, Path workDir, Path outputFile, Path stdinFile, Duration timeout) {
    long started = System.nanoTime();
    Process process = start(command, workDir, outputFile, stdinFile);
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        kill(process);
        throw new IllegalStateException(
            "Command did not finish within "
                + timeout.toSeconds()
                + " s and was killed: "
                + String.join(" ", command)
                + "\n"
                + Tails.of(outputFile, 30));
      }
    } catch (InterruptedException e) {
      kill(process);
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while running " + String.join(" ", command), e);
    }
    return new CommandResult(
        command, process.exitValue(), outputFile, Duration.ofNanos(System.nanoTime() - started));
  }

  /** SIGKILL and wait (bounded) until the process is gone. */
  public static void kill(Process process) {
    // its children too (a script's servers and relay): orphans would hold ports and data for the
    // next tests
    List<ProcessHandle> descendants = process.descendants().toList();
    process.destroyForcibly();
    descendants.forEach(ProcessHandle::destroyForcibly);
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("Process " + process.pid() + " survived SIGKILL for 30 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** SIGKILLs every process started here that is still alive. */
  public static void killAll() {
    for (Process process : List.copyOf(LIVE)) {
      process.destroyForcibly();
    }
    for (Process process : List.copyOf(LIVE)) {
      try {
        process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** The processes started here that are still alive, for tests of the cleanup itself. */
  public static List<ProcessHandle> alive() {
    return LIVE.stream().filter(Process::isAlive).map(Process::toHandle).toList();
  }
}
