package org.binlogrelay.archive.testing;

import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Test side: a real S3-compatible server, s3proxy 2.6.0 with jclouds' filesystem backend, run as a
 * child JVM from its self-contained jar ({@code java -jar s3proxy-2.6.0-jar-with-dependencies.jar
 * --properties P}). It is never loaded into the test JVM: its bundled Jetty, Guava, Jackson and
 * logback would clash with the project's class path.
 *
 * <p>The jar is found from the {@code s3proxy.jar} system property (set by archive/pom.xml's
 * Surefire configuration, which also copies the jar into {@code target/s3proxy/}), else in {@code
 * target/s3proxy/} of the working directory. The server listens on a free loopback port, keeps its
 * objects under a data directory (one subdirectory per bucket; {@link #BUCKET} is created before
 * the start) and logs to {@code target/s3proxy-logs/}. Clients sign with {@link #IDENTITY} and
 * {@link #CREDENTIAL} (AWS signature v2 or v4, any region).
 *
 * <p>Faults: {@link #stop()} (SIGTERM), {@link #kill()} (SIGKILL), {@link #pause()} and {@link
 * #resume()} (SIGSTOP/SIGCONT: a hung server whose port still accepts connections), {@link
 * #restart()} (same port, same data). {@link #close()} always kills the child and deletes a data
 * directory it created.
 *
 * <p>Thread-safe (methods are synchronized); one instance per test class is the intended use (about
 * 3 s to start).
 */
public final class S3ProxyProcess implements AutoCloseable {
  /** The access key id clients use. */
  public static final String IDENTITY = "binlog-relay-test";

  /** The secret clients use. */
  public static final String CREDENTIAL = "binlog-relay-test-secret";

  /** The bucket that exists from the start. */
  public static final String BUCKET = "binlog-relay-test";

  private static final Duration START_LIMIT = Duration.ofSeconds(60);
  private static final Duration STOP_LIMIT = Duration.ofSeconds(20);

  private final Path jar;
  private final Path dataDir;
  private final boolean ownsDataDir;
  private final Path logDir;
  private final int port;
  private Process process;
  private int starts;
  private Path currentLog;

  private S3ProxyProcess(Path jar, Path dataDir, boolean ownsDataDir, Path logDir, int port) {
    this.jar = jar;
    this.dataDir = dataDir;
    this.ownsDataDir = ownsDataDir;
    this.logDir = logDir;
    this.port = port;
  }

  /** Starts a server on a new temporary data directory, deleted by {@link #close()}. */
  public static S3ProxyProcess start() throws IOException {
    Path data = Files.createTempDirectory("s3proxy-data-");
    return start(data, true);
  }

  /** Starts a server on {@code dataDir} (kept by {@link #close()}). */
  public static S3ProxyProcess start(Path dataDir) throws IOException {
    return start(dataDir, false);
  }

  private static S3ProxyProcess start(Path dataDir, boolean owned) throws IOException {
    Files.createDirectories(dataDir.resolve(BUCKET));
    Path logDir = Path.of(System.getProperty("s3proxy.logs", "target/s3proxy-logs"));
    Files.createDirectories(logDir);
    S3ProxyProcess s3 = new S3ProxyProcess(findJar(), dataDir, owned, logDir, freePort());
    try {
      s3.launch();
    } catch (IOException | RuntimeException e) {
      s3.close();
      throw e;
    }
    return s3;
  }

  /** The s3proxy jar: the {@code s3proxy.jar} property, else {@code target/s3proxy/}. */
  public static Path findJar() {
    String property = System.getProperty("s3proxy.jar");
    if (property != null && Files.isRegularFile(Path.of(property))) {
      return Path.of(property);
    }
    Path dir = Path.of("target", "s3proxy");
    if (Files.isDirectory(dir)) {
      try (Stream<Path> files = Files.list(dir)) {
        var found =
            files
                .filter(
                    p -> p.getFileName().toString().matches("s3proxy-.*-jar-with-dependencies.jar"))
                .findFirst();
        if (found.isPresent()) {
          return found.get();
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    throw new IllegalStateException(
        "s3proxy's jar not found (system property s3proxy.jar="
            + property
            + ", directory "
            + dir.toAbsolutePath()
            + "): the archive module's build copies it there at process-test-resources"
            + " (mvn -pl archive -am test-compile)");
  }

  /** {@code http://127.0.0.1:port}, the endpoint for clients. */
  public synchronized URI endpoint() {
    return URI.create("http://127.0.0.1:" + port);
  }

  public int port() {
    return port;
  }

  /** Where the objects live: {@code <dataDir>/<bucket>/<key>}. */
  public Path dataDir() {
    return dataDir;
  }

  /** The current (or last) child's log file. */
  public synchronized Path log() {
    return currentLog;
  }

  /** The child's process id (for signals). */
  public synchronized long pid() {
    return process.pid();
  }

  public synchronized boolean isAlive() {
    return process != null && process.isAlive();
  }

  /** Asks the server to stop (SIGTERM) and waits for it to exit. */
  public synchronized void stop() throws InterruptedException {
    if (process != null && process.isAlive()) {
      try {
        resume(); // a stopped process would not act on SIGTERM
      } catch (IOException e) {
        // it is killed below if SIGTERM is not enough
      }
      process.destroy();
      if (!process.waitFor(STOP_LIMIT.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly().waitFor();
      }
    }
  }

  /** Kills the server (SIGKILL) and waits for it to exit. */
  public synchronized void kill() throws InterruptedException {
    if (process != null && process.isAlive()) {
      process.destroyForcibly();
      process.waitFor();
    }
  }

  /**
   * Freezes the server (SIGSTOP): its port still accepts connections (the kernel does) but nothing
   * answers, like a hung server.
   */
  public synchronized void pause() throws IOException, InterruptedException {
    signal("STOP");
  }

  /** Lets a paused server go on (SIGCONT). */
  public synchronized void resume() throws IOException, InterruptedException {
    signal("CONT");
  }

  /** Stops the server if it runs, then starts it again on the same port and data. */
  public synchronized void restart() throws IOException, InterruptedException {
    stop();
    launch();
  }

  /** Kills the server; deletes the data directory if {@link #start()} created it. */
  @Override
  public synchronized void close() {
    if (process != null) {
      process.destroyForcibly();
      try {
        process.waitFor(STOP_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (ownsDataDir) {
      deleteTree(dataDir);
    }
  }

  @Override
  public String toString() {
    return "s3proxy at " + endpoint() + " on " + dataDir;
  }

  private void launch() throws IOException {
    starts++;
    Path properties = logDir.resolve("s3proxy-" + port + ".properties");
    Files.writeString(
        properties,
        String.join(
            "\n",
            "s3proxy.endpoint=http://127.0.0.1:" + port,
            "s3proxy.authorization=aws-v2-or-v4",
            "s3proxy.identity=" + IDENTITY,
            "s3proxy.credential=" + CREDENTIAL,
            "jclouds.provider=filesystem",
            "jclouds.filesystem.basedir=" + dataDir.toAbsolutePath(),
            ""),
        StandardCharsets.UTF_8);
    currentLog = logDir.resolve("s3proxy-" + port + "-" + starts + ".log");
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> command = new ArrayList<>();
    command.add(java.toString());
    command.add("-Xmx256m");
    command.add("-XX:+UseSerialGC");
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-jar");
    command.add(jar.toAbsolutePath().toString());
    command.add("--properties");
    command.add(properties.toAbsolutePath().toString());
    process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(currentLog.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(nullDevice()))
            .start();
    awaitAnswer();
  }

  /** Bounded poll: an HTTP answer (any status) on the port means the server is up. */
  private void awaitAnswer() throws IOException {
    try {
      eventually(
          START_LIMIT,
          "s3proxy answering",
          () -> {
            if (!process.isAlive()) {
              throw new IOException(
                  "s3proxy exited with status "
                      + process.exitValue()
                      + " while starting: "
                      + tail());
            }
            return answers();
          },
          answered -> answered);
    } catch (AssertionError e) {
      process.destroyForcibly();
      throw new IOException("s3proxy did not answer within " + START_LIMIT + ": " + tail(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting for s3proxy", e);
    }
  }

  private boolean answers() {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
      s.setSoTimeout(2000);
      OutputStream out = s.getOutputStream();
      out.write(
          ("GET / HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      byte[] head = new byte[8];
      int n = in.readNBytes(head, 0, head.length);
      return n == head.length && new String(head, StandardCharsets.US_ASCII).startsWith("HTTP/1.");
    } catch (IOException e) {
      return false;
    }
  }

  private String tail() {
    try {
      List<String> lines = Files.readAllLines(currentLog, StandardCharsets.UTF_8);
      return currentLog
          + ":\n"
          + String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(log " + currentLog + " unreadable: " + e + ")";
    }
  }

  private void signal(String name) throws IOException, InterruptedException {
    if (process == null || !process.isAlive()) {
      return;
    }
    Process kill =
        new ProcessBuilder("kill", "-" + name, Long.toString(process.pid()))
            .redirectErrorStream(true)
            .start();
    String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (kill.waitFor() != 0) {
      throw new IOException("kill -" + name + " " + process.pid() + " failed: " + output);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static java.io.File nullDevice() {
    return new java.io.File("/dev/null");
  }

  private static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // best effort: a temp directory
    }
  }
}
