package org.binlogrelay.e2e.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.binlogrelay.e2e.process.ChildProcesses;
import org.binlogrelay.e2e.process.Tails;
import org.binlogrelay.server.RelayMain;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code scripts/demo-topology.sh}, the default run of {@code scripts/run}, as a user runs it: it
 * brings up a MySQL 9.7 primary with a write load, the relay and a replica of the relay, prints
 * what to run next, and on Ctrl-C (SIGINT to the script) stops everything it started and deletes
 * its directory. The replica must have received the primary's rows through the relay before the
 * banner appears (the script checks it), and a second count taken here must have grown.
 */
class DemoTopologyIT {
  private static final Logger LOG = LoggerFactory.getLogger(DemoTopologyIT.class);
  private static final Duration BOUND = Duration.ofMinutes(4);
  private static final Pattern DEMO_DIR = Pattern.compile("Ctrl-C stops it and deletes (\\S+)\\)");
  private static final Pattern REPLICA_ROWS =
      Pattern.compile("replicating from the relay by GTID \\((\\d+) rows");

  @TempDir Path dir;

  @Test
  void theDemoRunsAPrimaryTheRelayAndAReplicaAndCtrlCCleansUp() throws Exception {
    requireSigintNotIgnored();
    Path repository = repository();
    Path output = dir.resolve("demo.log");
    List<String> command =
        new ArrayList<>(
            List.of(
                "env",
                "BINLOG_RELAY_JAR=" + jar(),
                "DEMO_WRITE_SECONDS=120",
                repository.resolve("scripts/demo-topology.sh").toString(),
                "--port",
                Integer.toString(freePort())));
    Process demo = ChildProcesses.start(command, repository, output, null);
    try {
      runAndInterrupt(demo, output);
    } finally {
      if (demo.isAlive()) { // a failed check: let the script clean up before anything is killed
        interrupt(demo);
        if (!demo.waitFor(120, TimeUnit.SECONDS)) {
          ChildProcesses.kill(demo);
        }
      }
    }
  }

  private void runAndInterrupt(Process demo, Path output) throws Exception {
    String text;
    try {
      text =
          eventually(
              BOUND,
              "the demo's 'What to run next:'",
              () -> {
                String now = read(output);
                if (!now.contains("What to run next:") && !demo.isAlive()) {
                  throw new AssertionError("the demo exited");
                }
                return now;
              },
              now -> now.contains("What to run next:"));
    } catch (AssertionError e) {
      throw new AssertionError(
          "the demo did not come up: " + e.getMessage() + "\n" + Tails.of(output, 40), e);
    }
    Matcher d = DEMO_DIR.matcher(text);
    Matcher rows = REPLICA_ROWS.matcher(text);
    assertThat(d.find()).as(text).isTrue();
    assertThat(rows.find()).as(text).isTrue();
    Path demoDir = Path.of(d.group(1));
    assertThat(Long.parseLong(rows.group(1)))
        .as("rows the replica had received through the relay")
        .isPositive();
    assertThat(text)
        .contains("mysql 9.7")
        .contains("relay running: MySQL relay")
        .containsPattern("scripts/relayctl|relayctl and http://127.0.0.1:9307/metrics");
    assertThat(processesMentioning(demoDir))
        .as("primary, relay and replica run")
        .hasSizeGreaterThanOrEqualTo(3);

    interrupt(demo);
    if (!demo.waitFor(120, TimeUnit.SECONDS)) {
      ChildProcesses.kill(demo);
      throw new AssertionError(
          "the demo did not stop within 120 s of SIGINT:\n" + Tails.of(output, 40));
    }
    String end = read(output);
    LOG.info("demo output after SIGINT:\n{}", Tails.of(output, 12));
    assertThat(demo.exitValue()).as(end).isEqualTo(130);
    assertThat(end)
        .contains("relay closed: stopped")
        .contains("deleted " + demoDir)
        .doesNotContain("killing it");
    assertThat(demoDir).doesNotExist();
    assertThat(processesMentioning(demoDir)).as("nothing of the demo still runs").isEmpty();
    assertThat(end).doesNotContain("ERROR").doesNotContain("Exception");
  }

  /**
   * The script's Ctrl-C trap needs SIGINT to reach it, but a process started with SIGINT ignored
   * passes that on to its children, and a shell cannot trap a signal ignored when it started. That
   * happens when the build runs as a background job of a shell without job control ({@code (mvn ...
   * &)} in a script): say so instead of failing on a demo that never stops.
   */
  private static void requireSigintNotIgnored() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.UTF_8)) {
      if (line.startsWith("SigIgn:")) {
        long ignored = Long.parseUnsignedLong(line.substring("SigIgn:".length()).strip(), 16);
        if ((ignored & (1L << (2 - 1))) != 0) {
          throw new AssertionError(
              "SIGINT is ignored in this test JVM (SigIgn "
                  + line.substring(7).strip()
                  + "), so the demo script cannot trap Ctrl-C: the build was started as a background job"
                  + " of a shell without job control. Run it in the foreground, or with `set -m`.");
        }
      }
    }
  }

  /** Ctrl-C: SIGINT to the script. */
  private static void interrupt(Process demo) throws IOException, InterruptedException {
    new ProcessBuilder("kill", "-INT", Long.toString(demo.pid()))
        .start()
        .waitFor(10, TimeUnit.SECONDS);
  }

  private static String read(Path file) throws IOException {
    return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
  }

  /**
   * Pids of the processes whose command line mentions the directory's name (MySQL, in its root,
   * sees the directory under another path).
   */
  private static List<Long> processesMentioning(Path path) throws IOException {
    String mark = path.getFileName().toString();
    List<Long> pids = new ArrayList<>();
    try (Stream<Path> entries = Files.list(Path.of("/proc"))) {
      for (Path entry : entries.toList()) {
        String name = entry.getFileName().toString();
        if (!name.chars().allMatch(Character::isDigit)) {
          continue;
        }
        try {
          String cmdline =
              new String(Files.readAllBytes(entry.resolve("cmdline")), StandardCharsets.UTF_8);
          if (cmdline.contains(mark)) {
            pids.add(Long.parseLong(name));
          }
        } catch (IOException e) {
          // the process ended meanwhile
        }
      }
    }
    return pids;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** The checkout: the first directory up from here with scripts/demo-topology.sh. */
  private static Path repository() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isExecutable(p.resolve("scripts/demo-topology.sh"))) {
        return p;
      }
    }
    throw new IllegalStateException(
        "no scripts/demo-topology.sh above " + Path.of("").toAbsolutePath());
  }

  /** The relay's jar as the reactor built it. */
  private static Path jar() throws URISyntaxException {
    Path location =
        Path.of(RelayMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    Path jar =
        location.toString().endsWith(".jar")
            ? location
            : location.getParent().resolve("binlog-relay.jar");
    assertThat(jar).as("the relay's jar (mvn package of server/)").isRegularFile();
    return jar;
  }
}
