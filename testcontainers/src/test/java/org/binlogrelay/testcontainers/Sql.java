package org.binlogrelay.testcontainers;

import static org.binlogrelay.protocol.testing.Eventually.eventually;

import com.github.dockerjava.api.exception.NotFoundException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.utility.DockerImageName;

/**
 * What the ITs do to their MySQL and MariaDB servers over JDBC: run statements, checksum a table,
 * wait for a replica by GTID; and the local images they need. Stateless; each call uses the
 * connection it is given.
 */
final class Sql {
  private Sql() {}

  /**
   * The image named by system property {@code property} (set by the module's pom), which must be
   * present locally: no registry is reachable in CI, and a missing image fails the test with what
   * to run, never skips it.
   */
  static DockerImageName localImage(String property, String fallback) {
    String name = System.getProperty(property, fallback);
    try {
      DockerClientFactory.instance().client().inspectImageCmd(name).exec();
    } catch (NotFoundException e) {
      throw new IllegalStateException(
          "image "
              + name
              + " is not in the local Docker engine; build the CI images with"
              + " scripts/docker/build-images (or pass -D"
              + property
              + "=IMAGE)",
          e);
    }
    return DockerImageName.parse(name);
  }

  static void run(Connection connection, String... statements) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      for (String sql : statements) {
        statement.execute(sql);
      }
    }
  }

  static String string(Connection connection, String query) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(query)) {
      return rs.next() ? rs.getString(1) : null;
    }
  }

  /** {@code CHECKSUM TABLE table}'s checksum. */
  static long checksum(Connection connection, String table) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("CHECKSUM TABLE " + table)) {
      rs.next();
      return rs.getLong(2);
    }
  }

  /**
   * Waits until {@code replica} has executed {@code gtidSet} (MySQL {@code @@gtid_executed},
   * MariaDB {@code @@gtid_slave_pos}), failing at once with the replica's error when its
   * replication threads stopped on one.
   */
  static void awaitReplica(Connection replica, String gtidSet, Duration timeout)
      throws SQLException, InterruptedException {
    boolean mariaDb = string(replica, "SELECT @@version").contains("MariaDB");
    String executedQuery =
        mariaDb ? "SELECT @@GLOBAL.gtid_slave_pos" : "SELECT @@GLOBAL.gtid_executed";
    eventually(
        timeout,
        "the replica executing " + gtidSet,
        () -> {
          String executed = string(replica, executedQuery).replace("\n", "");
          if (GtidSetText.contains(executed, gtidSet)) {
            return true;
          }
          Map<String, String> status = replicaStatus(replica, mariaDb);
          String error =
              status.getOrDefault("Last_IO_Error", "") + status.getOrDefault("Last_SQL_Error", "");
          boolean stopped =
              "No".equals(status.get("Replica_IO_Running"))
                  || "No".equals(status.get("Slave_IO_Running"))
                  || "No".equals(status.get("Replica_SQL_Running"))
                  || "No".equals(status.get("Slave_SQL_Running"));
          if (stopped && !error.isEmpty()) {
            throw new AssertionError(
                "replica did not reach "
                    + gtidSet
                    + " (it executed "
                    + executed
                    + "); replica status: "
                    + status);
          }
          return false;
        },
        reached -> reached);
  }

  /** One column of {@code SHOW SLAVE STATUS} (MariaDB) or {@code SHOW REPLICA STATUS} (MySQL). */
  static String replicaStatus(Connection replica, String column) throws SQLException {
    boolean mariaDb = string(replica, "SELECT @@version").contains("MariaDB");
    try (Statement statement = replica.createStatement();
        ResultSet rs =
            statement.executeQuery(mariaDb ? "SHOW SLAVE STATUS" : "SHOW REPLICA STATUS")) {
      return rs.next() ? rs.getString(column) : null;
    }
  }

  private static Map<String, String> replicaStatus(Connection replica, boolean mariaDb)
      throws SQLException {
    Map<String, String> out = new LinkedHashMap<>();
    try (Statement statement = replica.createStatement();
        ResultSet rs =
            statement.executeQuery(mariaDb ? "SHOW SLAVE STATUS" : "SHOW REPLICA STATUS")) {
      if (rs.next()) {
        for (String column :
            new String[] {
              "Replica_IO_Running",
              "Replica_SQL_Running",
              "Slave_IO_Running",
              "Slave_SQL_Running",
              "Last_IO_Error",
              "Last_SQL_Error"
            }) {
          try {
            out.put(column, rs.getString(column));
          } catch (SQLException noSuchColumn) {
            // the other flavour's column names
          }
        }
      }
    }
    return out;
  }
}
