package org.binlogrelay.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Test side: runs the relay's command line ({@link RelayMain#execute}) on top of the smallest valid
 * one (server id, flavour, data directory), with an environment the test fills, and keeps the
 * configuration it would have launched instead of launching it. For the option tests of one feature
 * each; not thread-safe.
 */
final class RelayCommandLine {
  private final Path dataDir;
  private final Map<String, String> environment = new HashMap<>();
  private final List<RelayConfig> launched = new ArrayList<>();
  private String err = "";

  RelayCommandLine(Path dataDir) {
    this.dataDir = dataDir;
  }

  /** The environment the next {@link #run} sees; tests put variables in it. */
  Map<String, String> environment() {
    return environment;
  }

  /** Runs the command line with {@code args} after the minimal ones; returns the exit status. */
  int run(String... args) {
    List<String> all =
        new ArrayList<>(
            List.of("--server-id", "9", "--flavor", "mysql", "--data-dir", dataDir.toString()));
    all.addAll(List.of(args));
    StringWriter out = new StringWriter();
    StringWriter errors = new StringWriter();
    int status =
        RelayMain.execute(
            all.toArray(String[]::new),
            environment,
            (config, describe) -> {},
            config -> {
              launched.add(config);
              return RelayMain.OK;
            },
            new PrintWriter(out),
            new PrintWriter(errors));
    err = errors.toString();
    return status;
  }

  /** What the last run wrote to standard error. */
  String err() {
    return err;
  }

  /** The configuration the last successful run launched (exactly one), taken out. */
  RelayConfig launched() {
    assertThat(launched).as(err).hasSize(1);
    return launched.remove(0);
  }

  /**
   * Asserts that the last run was a usage error: exit 2, one line naming {@code message}, no stack
   * trace, nothing launched.
   */
  void assertUsageError(int status, String message) {
    assertThat(status).as(err).isEqualTo(RelayMain.USAGE);
    assertThat(err).startsWith("binlog-relay: ").contains(message).doesNotContain("\tat ");
    assertThat(launched).isEmpty();
  }
}
