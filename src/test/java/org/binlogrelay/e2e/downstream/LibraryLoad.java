package org.binlogrelay.e2e.downstream;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.Random;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.ServerException;

/**
 * A write load of varied column types for {@link BinlogLibrariesIT}, in schema {@code bl}: table
 * {@code types} (integers of every width and sign, DECIMAL, FLOAT, DOUBLE, utf8mb4 text, VARBINARY
 * holding {@code x'00ff10'}, BLOB, JSON, DATETIME(6), TIMESTAMP(3), DATE, TIME(2), YEAR, ENUM, SET,
 * BIT and NULLs) with inserts, multi-row inserts, updates and deletes; table {@code other} written
 * in the same transactions; table {@code marker}, whose rows end the clients' streams.
 * Deterministic for a seed. Not thread-safe.
 */
final class LibraryLoad {
  /**
   * The VARBINARY value python-mysql-replication failed on when it decoded binary columns as text.
   */
  static final String BINARY_HEX = "00ff10";

  private final DatabaseServer primary;
  private final Random random;
  private int nextOther;

  LibraryLoad(DatabaseServer primary, long seed) {
    this.primary = primary;
    this.random = new Random(seed);
  }

  void createSchema() {
    primary.execute(
        "CREATE DATABASE bl",
        "CREATE TABLE bl.types (id INT AUTO_INCREMENT PRIMARY KEY, ti TINYINT, si SMALLINT UNSIGNED, mi MEDIUMINT,"
            + " bi BIGINT, bu BIGINT UNSIGNED, dc DECIMAL(20,6), fl FLOAT, db DOUBLE,"
            + " vc VARCHAR(64) CHARACTER SET utf8mb4, tx TEXT CHARACTER SET utf8mb4, vb VARBINARY(16), bl BLOB,"
            + " js JSON, dt DATETIME(6), ts TIMESTAMP(3) NULL, d DATE, t TIME(2), y YEAR,"
            + " en ENUM('alpha','beta','gamma'), st SET('x','y','z'), bt BIT(8))",
        "CREATE TABLE bl.other (k INT PRIMARY KEY, v VARCHAR(20) NOT NULL)",
        "CREATE TABLE bl.marker (token VARCHAR(64) PRIMARY KEY)");
  }

  /**
   * {@code transactions} transactions of inserts, updates and deletes; a binlog rotation halfway
   * when asked.
   */
  void run(int transactions, boolean rotateHalfway) {
    try (Connection c = primary.connect()) {
      c.setAutoCommit(false);
      for (int i = 0; i < transactions; i++) {
        if (rotateHalfway && i == transactions / 2) {
          try (Statement s = c.createStatement()) {
            s.execute("FLUSH BINARY LOGS");
          }
        }
        switch (i % 5) {
          case 0, 1 -> insert(c, 1 + random.nextInt(3), i % 3 == 0);
          case 2 -> update(c);
          case 3 -> {
            insert(c, 1, false);
            delete(c);
          }
          default -> insert(c, 2, true);
        }
        try (PreparedStatement p = c.prepareStatement("INSERT INTO bl.other VALUES (?, ?)")) {
          p.setInt(1, nextOther++);
          p.setString(2, "tx-" + i);
          p.executeUpdate();
        }
        c.commit();
      }
    } catch (SQLException e) {
      throw new ServerException("Load failed on " + primary + ": " + e.getMessage(), e);
    }
  }

  /** The row that ends the clients' streams. */
  void marker(String token) {
    primary.execute("INSERT INTO bl.marker VALUES ('" + token + "')");
  }

  private void insert(Connection c, int rows, boolean withNulls) throws SQLException {
    StringBuilder sql =
        new StringBuilder(
            "INSERT INTO bl.types (ti, si, mi, bi, bu, dc, fl, db, vc, tx, vb, bl, js,"
                + " dt, ts, d, t, y, en, st, bt) VALUES ");
    for (int r = 0; r < rows; r++) {
      sql.append(r == 0 ? "" : ", ")
          .append("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, b'")
          .append(Integer.toBinaryString(random.nextInt(256)))
          .append("')");
    }
    try (PreparedStatement p = c.prepareStatement(sql.toString())) {
      int at = 1;
      for (int r = 0; r < rows; r++) {
        boolean nulls = withNulls && r == rows - 1;
        int n = random.nextInt(1_000_000);
        Object[] values = {
          (byte) (n % 256 - 128),
          n % 65536,
          n % 8_000_000 - 4_000_000,
          (long) n * -1_000_003L,
          new BigInteger("18446744073709551615").subtract(BigInteger.valueOf(n)),
          new BigDecimal(n).movePointLeft(4).negate(),
          n / 7.0f,
          n / 13.0,
          "värde ✓ " + n,
          "text " + "é".repeat(n % 40),
          r % 2 == 0 ? HexFormat.of().parseHex(BINARY_HEX) : bytes(1 + n % 16),
          bytes(n % 3000),
          "{\"n\": " + n + ", \"s\": \"ü\", \"a\": [1, 2.5, null]}",
          "2026-11-27 12:34:56." + String.format("%06d", n % 1_000_000),
          "2026-11-27 01:02:03.456",
          "1999-12-31",
          "-12:34:56.78",
          1901 + n % 254,
          new String[] {"alpha", "beta", "gamma"}[n % 3],
          new String[] {"", "x", "x,z", "x,y,z"}[n % 4]
        };
        for (Object v : values) {
          if (nulls) {
            p.setObject(at++, null);
          } else {
            p.setObject(at++, v);
          }
        }
      }
      p.executeUpdate();
    }
  }

  private void update(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.executeUpdate(
          "UPDATE bl.types SET vc = CONCAT(vc, '+'), dc = dc + 1.5, js = JSON_ARRAY(id, 'u'),"
              + " vb = x'"
              + BINARY_HEX
              + "' WHERE id % 4 = "
              + random.nextInt(4)
              + " ORDER BY id LIMIT 3");
    }
  }

  private void delete(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.executeUpdate(
          "DELETE FROM bl.types WHERE id % 7 = " + random.nextInt(7) + " ORDER BY id LIMIT 2");
    }
  }

  private byte[] bytes(int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }
}
