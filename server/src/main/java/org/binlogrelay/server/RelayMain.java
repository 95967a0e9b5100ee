package org.binlogrelay.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Entry point of the relay process: {@code binlog-relay [OPTIONS]}.
 *
 * <p>The upstream connection, storage and downstream server are wired in by later work; for now the
 * command parses its options, prints its version and explains what it will do.
 */
@Command(
    name = "binlog-relay",
    mixinStandardHelpOptions = true,
    versionProvider = RelayMain.Version.class,
    description = {
      "An intermediate master for MySQL and MariaDB: replicates the primary's binlogs, stores them",
      "byte-identical and durable, and serves them to many downstream replicas."
    },
    footer = {"", "Examples:", "  binlog-relay --version", "  binlog-relay --help"})
public final class RelayMain implements Callable<Integer> {

  @Option(
      names = "--data-dir",
      paramLabel = "DIR",
      description = "Directory for the stored binlogs (default: ${DEFAULT-VALUE}).",
      defaultValue = "./relay-data")
  String dataDir;

  @Override
  public Integer call() {
    CommandLine cmd = new CommandLine(this);
    cmd.getOut().println("binlog-relay " + Version.projectVersion());
    cmd.getOut().println("The replication service is not wired in yet; see --help for the options.");
    cmd.usage(cmd.getOut());
    return 0;
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new RelayMain()).execute(args));
  }

  /** Reads the version Maven wrote into the jar. */
  static final class Version implements CommandLine.IVersionProvider {
    static String projectVersion() {
      Properties p = new Properties();
      try (InputStream in = RelayMain.class.getResourceAsStream("/binlog-relay-version.properties")) {
        if (in != null) {
          p.load(in);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return p.getProperty("version", "unknown");
    }

    @Override
    public String[] getVersion() {
      return new String[] {"binlog-relay " + projectVersion(), "Java " + Runtime.version()};
    }
  }
}
