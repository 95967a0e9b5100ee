package org.binlogrelay.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code relayctl}: administers a running binlog-relay through its admin HTTP API. Subcommands arrive
 * with the admin API; this module never links against the server's code.
 */
@Command(
    name = "relayctl",
    mixinStandardHelpOptions = true,
    versionProvider = Relayctl.Version.class,
    description = "Administers a running binlog-relay through its admin HTTP API.",
    footer = {"", "Examples:", "  relayctl --version"})
public final class Relayctl implements Runnable {

  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new Relayctl()).execute(args));
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      Properties p = new Properties();
      try (InputStream in = Relayctl.class.getResourceAsStream("/relayctl-version.properties")) {
        if (in != null) {
          p.load(in);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return new String[] {"relayctl " + p.getProperty("version", "unknown")};
    }
  }
}
