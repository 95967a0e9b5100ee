package org.binlogrelay.e2e.upstream;

import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.ServerFlavor;

/**
 * Test side: the semi-sync source side of a primary, in each flavour's names: MySQL 9.7's {@code
 * rpl_semi_sync_source} plugin ({@code semisync_source.so}), MariaDB's built-in {@code
 * rpl_semi_sync_master}.
 */
final class SemiSyncSource {
  private final DatabaseServer primary;
  private final String prefix;

  private SemiSyncSource(DatabaseServer primary, String prefix) {
    this.primary = primary;
    this.prefix = prefix;
  }

  /**
   * Loads the source side if needed (MySQL), disabled, waiting for one replica, falling back after
   * {@code timeoutMs}.
   */
  static SemiSyncSource install(DatabaseServer primary, long timeoutMs) {
    SemiSyncSource s;
    if (primary.flavor() == ServerFlavor.MYSQL) {
      primary.execute("INSTALL PLUGIN rpl_semi_sync_source SONAME 'semisync_source.so'");
      s = new SemiSyncSource(primary, "rpl_semi_sync_source");
      primary.execute("SET GLOBAL rpl_semi_sync_source_wait_for_replica_count = 1");
    } else {
      s = new SemiSyncSource(primary, "rpl_semi_sync_master");
    }
    primary.execute("SET GLOBAL " + s.prefix + "_timeout = " + timeoutMs);
    return s;
  }

  void enable(boolean on) {
    primary.execute("SET GLOBAL " + prefix + "_enabled = " + (on ? 1 : 0));
  }

  /** A status counter, e.g. {@code yes_tx}, {@code no_tx}, {@code clients}. */
  long status(String name) {
    return Long.parseLong(statusText(name));
  }

  /** {@code ON} while the primary waits for acknowledgements. */
  boolean on() {
    return "ON".equalsIgnoreCase(statusText("status"));
  }

  private String statusText(String name) {
    String variable = "R" + prefix.substring(1) + "_" + name;
    return primary.queryRows("SHOW GLOBAL STATUS LIKE '" + variable + "'").get(0).get("Value");
  }

  String describe() {
    return prefix
        + ": status "
        + statusText("status")
        + ", clients "
        + statusText("clients")
        + ", yes_tx "
        + statusText("yes_tx")
        + ", no_tx "
        + statusText("no_tx");
  }
}
