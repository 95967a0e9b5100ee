package org.binlogrelay.e2e.servers;

import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A replica replicating by GTID auto-positioning from a source: another server, or anything else
 * speaking the replication protocol at an address (such as the relay under test).
 */
public final class ReplicationLink {

  private static final Logger LOG = LoggerFactory.getLogger(ReplicationLink.class);

  /**
   * MySQL's ER_SOURCE_FATAL_ERROR_READING_BINLOG: the source cannot serve what the replica asks
   * for; no retry.
   */
  private static final int FATAL_READING_BINLOG = 1236;

  private final DatabaseServer replica;
  private final HostAndPort source;
  private final String sourceDescription;

  private ReplicationLink(DatabaseServer replica, HostAndPort source, String sourceDescription) {
    this.replica = replica;
    this.source = source;
    this.sourceDescription = sourceDescription;
  }

  /**
   * Makes {@code replica} replicate from {@code source} directly; over TLS if the source offers it
   * (the replica's default), else with TLS turned off on the replica, as a DBA does for a source
   * without certificates.
   */
  public static ReplicationLink establish(DatabaseServer replica, DatabaseServer source) {
    HarnessFlavor dialect = replica.flavor().dialect();
    List<String> statements =
        source.flavor().dialect().offersTls(source)
            ? dialect.startReplicationStatements(
                source.peerAddress(), source.replicationCredentials())
            : dialect.startReplicationWithoutTlsStatements(
                source.peerAddress(), source.replicationCredentials());
    replica.execute(statements.toArray(String[]::new));
    return new ReplicationLink(replica, source.peerAddress(), source.toString());
  }

  /**
   * Makes {@code replica} replicate from whatever listens at {@code source}, as seen from the
   * replica (see {@link ServerBackend#hostPortForServers}).
   */
  public static ReplicationLink establish(
      DatabaseServer replica,
      HostAndPort source,
      Credentials credentials,
      String sourceDescription) {
    List<String> statements =
        replica.flavor().dialect().startReplicationStatements(source, credentials);
    replica.execute(statements.toArray(String[]::new));
    return new ReplicationLink(replica, source, sourceDescription);
  }

  public DatabaseServer replica() {
    return replica;
  }

  public HostAndPort source() {
    return source;
  }

  public ReplicaStatus status() {
    return ReplicaStatus.of(replica);
  }

  public void stop() {
    replica.execute(replica.flavor().dialect().stopReplicationStatements().toArray(String[]::new));
  }

  /**
   * Waits until the replica has executed every GTID that {@code origin} (the primary whose writes
   * flow through this link) has executed at the time of the call. Fails at once on an applier error
   * or a fatal error reading the source's binlog, and after {@code timeout} otherwise, with the
   * replica's status and error log.
   */
  public void awaitCaughtUp(DatabaseServer origin, Duration timeout) {
    HarnessFlavor dialect = replica.flavor().dialect();
    String target = origin.executedGtidSet();
    long started = System.nanoTime();
    try {
      eventually(
          timeout,
          replica + " executing " + target,
          () -> {
            if (dialect.hasExecuted(replica, target)) {
              return true;
            }
            ReplicaStatus status = status();
            if (status.lastSqlErrno() != 0) {
              throw notCaughtUp(
                  origin,
                  target,
                  status,
                  "its applier stopped with error " + status.lastSqlErrno());
            }
            if (status.lastIoErrno() == FATAL_READING_BINLOG) {
              throw notCaughtUp(
                  origin, target, status, "the source refused its request with error 1236");
            }
            return false;
          });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ServerException("Interrupted while waiting for " + replica + " to catch up", e);
    } catch (AssertionError e) {
      if (e.getMessage().startsWith("waited ")) {
        throw notCaughtUp(
            origin, target, status(), "it did not within " + timeout.toSeconds() + " s");
      }
      throw e;
    }
    LOG.info(
        "{} caught up with {} in {} ms",
        replica,
        origin,
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
  }

  private AssertionError notCaughtUp(
      DatabaseServer origin, String target, ReplicaStatus status, String why) {
    return new AssertionError(
        replica
            + " did not catch up with "
            + origin
            + " (replicating from "
            + sourceDescription
            + " at "
            + source
            + "): "
            + why
            + ".\n"
            + "  wanted GTIDs:   "
            + target
            + "\n"
            + "  replica has:    "
            + replica.executedGtidSet()
            + "\n"
            + replica.flavor().dialect().replicaStatusStatement()
            + ":\n"
            + status.summary()
            + replica.errorLogTail(30));
  }

  @Override
  public String toString() {
    return replica.name() + " <- " + sourceDescription;
  }
}
