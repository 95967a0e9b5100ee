package org.binlogrelay.e2e.servers;

import java.util.List;
import java.util.Map;

/**
 * What the harness does differently on MySQL and MariaDB: server options, users, GTID state and
 * replication statements. One implementation per flavour ({@link MysqlHarnessFlavor}, {@link
 * MariadbHarnessFlavor}), reached through {@link ServerFlavor#dialect()}; stateless and
 * thread-safe.
 */
public interface HarnessFlavor {

  /**
   * Options for GTIDs, replica binlogging and redo sizing, in addition to {@link ServerOptions}'
   * common ones.
   */
  List<String> serverOptions();

  /**
   * Statements that create the {@link Credentials#TEST} and {@link Credentials#REPLICATION} users.
   */
  List<String> createUserStatements();

  /**
   * The query, one row and one column, for the GTIDs this server has executed, in the flavour's own
   * notation.
   */
  String executedGtidSetQuery();

  /**
   * The GTID state in a canonical text form (no whitespace, elements sorted) so that two equal
   * states compare equal as strings.
   */
  String normalizeGtidSet(String gtidSet);

  /**
   * Whether {@code server} has executed every transaction of {@code gtidSet}, a value of {@link
   * #executedGtidSetQuery()}.
   */
  boolean hasExecuted(DatabaseServer server, String gtidSet);

  /**
   * Statements that make a server replicate from {@code source} by GTID auto-positioning, and start
   * it, with the replica's defaults for TLS (a MariaDB 11.8 replica insists on it, 10.11 does not
   * ask for it).
   */
  List<String> startReplicationStatements(HostAndPort source, Credentials credentials);

  /**
   * Like {@link #startReplicationStatements(HostAndPort, Credentials)}, for a source known to offer
   * no TLS: the replica is told to connect without it (MariaDB {@code MASTER_SSL=0}; MySQL replicas
   * need nothing, they fetch the source's RSA key instead).
   */
  List<String> startReplicationWithoutTlsStatements(HostAndPort source, Credentials credentials);

  /** Whether {@code server}, as a source, accepts TLS connections from replicas. */
  boolean offersTls(DatabaseServer server);

  List<String> stopReplicationStatements();

  /** {@code SHOW REPLICA STATUS} or {@code SHOW SLAVE STATUS}. */
  String replicaStatusStatement();

  /**
   * Deletes all binlogs and forgets all GTIDs, leaving a server as fresh as a local one made from a
   * template.
   */
  String resetBinlogsStatement();

  /**
   * Environment for the flavour's official Docker image: the root password, and no time zone tables
   * loaded at initialisation (that load would be binlogged with GTIDs of the server's own).
   */
  Map<String, String> dockerEnvironment(String rootPassword);

  /** A single-quoted SQL string literal. */
  static String quote(String value) {
    return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'";
  }
}
