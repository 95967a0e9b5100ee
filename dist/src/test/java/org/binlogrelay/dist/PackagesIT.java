package org.binlogrelay.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release packages as a user gets them, built by this module's {@code package} phase: the
 * tarball's launchers run from an unpacked tarball (also through a symlink from elsewhere), the
 * Debian package installs into a fresh Debian root (a container of {@code binlog-relay-ci/jre:17},
 * a bookworm root with a Java 17 runtime and nothing of the relay) where {@code binlog-relay
 * --version} and {@code relayctl --help} run, and its systemd unit passes {@code systemd-analyze
 * verify} and a security review.
 *
 * <p>Needs {@code dpkg-deb} and {@code systemd-analyze} ({@code
 * scripts/provision-packaging-test.sh}), and for the method tagged {@code docker} (which {@code
 * scripts/test-all} runs in its docker stage, once the images are built) {@code docker} with the
 * image ({@code scripts/docker/build-images}); a missing tool or image fails the test, it never
 * skips. Not thread-safe: JUnit runs its methods one at a time.
 */
class PackagesIT {
  private static final Duration JVM_BOUND = Duration.ofMinutes(2);
  private static final Duration CONTAINER_BOUND = Duration.ofMinutes(5);
  private static final String UNIT = "binlog-relay.service";

  private static Path targetDir;
  private static String version;
  private static Path tarball;
  private static Path deb;

  @BeforeAll
  static void findPackages() throws IOException {
    targetDir = Paths.get(System.getProperty("packages.dir", "target")).toAbsolutePath();
    version = System.getProperty("packages.version");
    assertThat(version).as("system property packages.version (set by dist/pom.xml)").isNotBlank();
    tarball = targetDir.resolve("binlog-relay-" + version + ".tar.gz");
    assertThat(tarball).as("the tarball mvn package writes").isRegularFile();
    try (Stream<Path> files = Files.list(targetDir)) {
      List<Path> debs =
          files
              .filter(p -> p.getFileName().toString().matches("binlog-relay_.*_all\\.deb"))
              .toList();
      assertThat(debs).as("the Debian package mvn package writes in %s", targetDir).hasSize(1);
      deb = debs.get(0);
    }
  }

  @Test
  void launchersRunFromAnUnpackedTarball(@TempDir Path dir) throws Exception {
    Result untar = run(List.of("tar", "-xzf", tarball.toString(), "-C", dir.toString()), Map.of());
    assertThat(untar.exit()).as(untar.output()).isZero();
    Path home = dir.resolve("binlog-relay-" + version);
    assertThat(home.resolve("bin/binlog-relay")).isExecutable();
    assertThat(home.resolve("bin/relayctl")).isExecutable();
    assertThat(home.resolve("etc/relay.yaml")).isRegularFile();
    assertThat(home.resolve("etc/environment")).isRegularFile();
    assertThat(home.resolve("systemd/" + UNIT)).isRegularFile();
    assertThat(home.resolve("README.md")).isRegularFile();
    assertThat(home.resolve("lib/binlog-relay-server-" + version + ".jar")).isRegularFile();
    assertThat(home.resolve("lib/binlog-relay-cli-" + version + ".jar")).isRegularFile();

    // As installed by hand: a symlink in another directory (the launcher must find lib/ through its
    // resolved path), Java from JAVA_HOME.
    Path links = Files.createDirectories(dir.resolve("elsewhere/bin"));
    Path link =
        Files.createSymbolicLink(links.resolve("binlog-relay"), home.resolve("bin/binlog-relay"));
    Result relayVersion =
        run(
            List.of(link.toString(), "--version"),
            Map.of("JAVA_HOME", System.getProperty("java.home")));
    assertThat(relayVersion.exit()).as(relayVersion.output()).isZero();
    assertThat(relayVersion.output()).startsWith("binlog-relay " + version + "\n");

    // From the unpacked directory, Java from PATH.
    Result relayctlHelp = run(List.of(home.resolve("bin/relayctl").toString(), "--help"), Map.of());
    assertThat(relayctlHelp.exit()).as(relayctlHelp.output()).isZero();
    assertThat(relayctlHelp.output()).startsWith("Usage: relayctl").contains("Commands:");

    // The example configuration is one the relay reads: with it and no source, it stops before
    // anything starts with its own complaint about the missing primary, not a configuration error.
    Result withConfig =
        run(
            List.of(
                home.resolve("bin/binlog-relay").toString(),
                "--config",
                home.resolve("etc/relay.yaml").toString(),
                "--data-dir",
                dir.resolve("data").toString()),
            Map.of());
    assertThat(withConfig.exit()).as(withConfig.output()).isEqualTo(1);
    assertThat(withConfig.output()).contains("no primary is configured");
  }

  @Test
  void relayStopsCleanlyOnSigtermToItsLauncher(@TempDir Path dir) throws Exception {
    Result untar = run(List.of("tar", "-xzf", tarball.toString(), "-C", dir.toString()), Map.of());
    assertThat(untar.exit()).as(untar.output()).isZero();
    Path launcher = dir.resolve("binlog-relay-" + version + "/bin/binlog-relay");
    Path log = dir.resolve("relay.log");
    // No primary: with --flavor the relay runs and serves its (empty) store, which is all this
    // needs.
    ProcessBuilder builder =
        new ProcessBuilder(
                launcher.toString(),
                "--flavor=mysql",
                "--server-id=9001",
                "--data-dir=" + dir.resolve("data"),
                "--port=0",
                "--admin-port=0")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().remove("JAVA_OPTS");
    Process relay = builder.start();
    try {
      eventually(
          JVM_BOUND,
          "the relay running",
          () -> {
            String text = Files.readString(log);
            assertThat(relay.isAlive()).as(text).isTrue();
            return text;
          },
          text -> text.contains("Relay: relay running:"));
      // The launcher exec'ed the JVM: the process systemd (or a shell) signals is the relay itself.
      assertThat(relay.info().command()).hasValueSatisfying(c -> assertThat(c).endsWith("/java"));

      relay.destroy(); // SIGTERM
      assertThat(relay.waitFor(JVM_BOUND.toMillis(), TimeUnit.MILLISECONDS))
          .as("stopped within " + JVM_BOUND)
          .isTrue();
      String out = Files.readString(log);
      assertThat(relay.exitValue()).as(out).isZero();
      assertThat(out)
          .contains("shutdown requested (SIGTERM or SIGINT)")
          .contains("relay closed: stopped");
    } finally {
      relay.destroyForcibly().waitFor();
    }
  }

  @Test
  @Tag("docker") // needs the engine and the image: scripts/test-all's docker stage runs it
  void debInstallsIntoAFreshDebianRoot() throws Exception {
    String image = System.getProperty("packages.testImage", "binlog-relay-ci/jre:17");
    String name = "binlog-relay-pkg-it-" + UUID.randomUUID().toString().substring(0, 8);
    String script =
        String.join(
            "\n",
            "set -e",
            "dpkg -i /pkg/" + deb.getFileName(),
            "echo '--- status'; dpkg-query -W -f='${Status}\\n' binlog-relay",
            "echo '--- conffiles'; dpkg-query -W -f='${Conffiles}\\n' binlog-relay",
            "echo '--- version'; binlog-relay --version",
            "echo '--- help'; relayctl --help",
            "echo '--- user'; id binlog-relay; getent passwd binlog-relay",
            "echo '--- modes'; stat -c '%U:%G %a %n' /var/lib/binlog-relay /etc/binlog-relay"
                + " /etc/binlog-relay/relay.yaml /etc/binlog-relay/environment",
            "echo '--- unit'; test -f /lib/systemd/system/" + UNIT + " && echo present",
            "echo '--- as the service runs it'; cd /var/lib/binlog-relay",
            "set +e; runuser -u binlog-relay -- binlog-relay --config /etc/binlog-relay/relay.yaml;"
                + " echo \"exit $?\"");
    Result installed;
    try {
      installed =
          run(
              List.of(
                  "docker",
                  "run",
                  "--rm",
                  "--name",
                  name,
                  "--network",
                  "none",
                  "-v",
                  targetDir + ":/pkg:ro",
                  image,
                  "sh",
                  "-c",
                  script),
              Map.of(),
              CONTAINER_BOUND);
    } finally {
      // normally gone already (--rm); after a timeout the container may outlive its client
      run(List.of("docker", "rm", "-f", name), Map.of());
    }
    String out = installed.output();
    assertThat(installed.exit()).as(out).isZero();
    assertThat(out)
        .as("the package without a source does not start the service and says what to do")
        .contains("binlog-relay: not started: set 'source' in /etc/binlog-relay/relay.yaml")
        .contains("--- status\ninstall ok installed\n")
        .contains(" /etc/binlog-relay/relay.yaml ")
        .contains(" /etc/binlog-relay/environment ")
        .contains("--- version\nbinlog-relay " + version + "\n")
        .contains("--- help\nUsage: relayctl")
        .containsPattern("binlog-relay:x:\\d+:\\d+:[^:]*:/var/lib/binlog-relay:/usr/sbin/nologin")
        .contains("binlog-relay:binlog-relay 700 /var/lib/binlog-relay\n")
        .contains("root:binlog-relay 750 /etc/binlog-relay\n")
        .contains("root:binlog-relay 640 /etc/binlog-relay/relay.yaml\n")
        .contains("root:binlog-relay 640 /etc/binlog-relay/environment\n")
        .contains("--- unit\npresent\n")
        // the system user reads the packaged configuration and may write its data directory; it
        // stops for the missing source only
        .contains("Relay: relay starting: data directory /var/lib/binlog-relay")
        .contains("no primary is configured")
        .endsWith("exit 1\n");
  }

  @Test
  void unitPassesSystemdAnalyzeVerify(@TempDir Path root) throws Exception {
    // The .deb's files, plus the units systemd itself ships (the targets the unit names), as the
    // root systemd-analyze checks the unit in: ExecStart's /usr/bin/binlog-relay must be there.
    Result extract = run(List.of("dpkg-deb", "-x", deb.toString(), root.toString()), Map.of());
    assertThat(extract.exit()).as(extract.output()).isZero();
    Path unitDir = root.resolve("lib/systemd/system");
    Path systemUnits = Paths.get("/lib/systemd/system");
    assertThat(systemUnits.resolve("multi-user.target"))
        .as("systemd's own units (Debian package systemd, scripts/provision-packaging-test.sh)")
        .isRegularFile();
    try (Stream<Path> units = Files.list(systemUnits)) {
      for (Path unit : units.filter(Files::isRegularFile).toList()) {
        Path copy = unitDir.resolve(unit.getFileName().toString());
        if (!Files.exists(copy)) {
          Files.copy(unit, copy);
        }
      }
    }

    Result verify = run(List.of("systemd-analyze", "verify", "--root=" + root, UNIT), Map.of());
    assertThat(verify.exit()).as(verify.output()).isZero();
    // verify only warns (exit 0) about unknown keys and values it cannot parse: no output at all
    assertThat(verify.output()).as("systemd-analyze verify's warnings").isEmpty();

    // The sandbox in numbers: systemd's exposure score, 3.1 when written ("OK"; 10 is no sandbox).
    Result security =
        run(
            List.of(
                "systemd-analyze",
                "security",
                "--offline=true",
                "--threshold=40",
                "--no-pager",
                "--root=" + root,
                UNIT),
            Map.of());
    assertThat(security.exit()).as(security.output()).isZero();

    String unit = Files.readString(unitDir.resolve(UNIT), StandardCharsets.UTF_8);
    assertThat(unit.lines())
        .contains(
            "User=binlog-relay",
            "ExecStart=/usr/bin/binlog-relay --config /etc/binlog-relay/relay.yaml",
            "Restart=on-failure",
            "LimitNOFILE=65536",
            "ProtectSystem=strict",
            "ReadWritePaths=/var/lib/binlog-relay",
            "ProtectHome=yes",
            "PrivateTmp=yes",
            "NoNewPrivileges=yes");
  }

  private record Result(int exit, String output) {}

  private static Result run(List<String> command, Map<String, String> env) throws Exception {
    return run(command, env, JVM_BOUND);
  }

  /** Runs a command to its end (bounded), standard output and error together in one string. */
  private static Result run(List<String> command, Map<String, String> env, Duration bound)
      throws IOException, InterruptedException {
    Path log = Files.createTempFile("packages-it", ".log");
    try {
      ProcessBuilder builder =
          new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
      builder.environment().remove("JAVA_HOME");
      builder.environment().remove("JAVA_OPTS");
      builder.environment().putAll(env);
      Process process = builder.start();
      if (!process.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly().waitFor();
        throw new AssertionError(
            command + " did not end within " + bound + ":\n" + Files.readString(log));
      }
      return new Result(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    } finally {
      Files.delete(log);
    }
  }
}
