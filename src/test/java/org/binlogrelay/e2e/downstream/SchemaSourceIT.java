package org.binlogrelay.e2e.downstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import com.github.shyiko.mysql.binlog.BinaryLogClient;
import com.github.shyiko.mysql.binlog.event.EventData;
import com.github.shyiko.mysql.binlog.event.TableMapEventData;
import com.github.shyiko.mysql.binlog.event.WriteRowsEventData;
import java.io.Serializable;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.e2e.servers.Credentials;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.HostAndPort;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerFlavor;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.binlogrelay.e2e.upstream.FaultyProxy;
import org.binlogrelay.protocol.auth.CachingSha2Hash;
import org.binlogrelay.protocol.auth.NativePasswordHash;
import org.binlogrelay.server.DownstreamSettings;
import org.binlogrelay.server.Relay;
import org.binlogrelay.server.RelayConfig;
import org.binlogrelay.server.downstream.account.UserAccounts;
import org.binlogrelay.server.downstream.schema.SchemaSourceConfig;
import org.binlogrelay.server.upstream.ServerEndpoint;
import org.binlogrelay.server.upstream.TlsConfig;
import org.binlogrelay.server.upstream.TlsMode;
import org.binlogrelay.server.upstream.UpstreamConfig;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.SyncPolicy;
import org.binlogrelay.storage.Time;
import org.binlogrelay.storage.retention.RetentionPolicy;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's schema source ({@code --schema-source}) against real MySQL 9.7 and MariaDB 10.11
 * primaries: a {@link Relay} follows the primary and forwards statements that read table schemas to
 * it, logged in as a dedicated account with nothing but {@code REFERENCES}.
 *
 * <ul>
 *   <li>every metadata statement CDC readers send (python-mysql-replication's column query,
 *       Debezium's SHOW DATABASES / SHOW FULL TABLES / SHOW CREATE TABLE / schemata query, SHOW
 *       COLUMNS, SHOW INDEX, SHOW TABLE STATUS, information_schema TABLES / COLUMNS / STATISTICS /
 *       KEY_COLUMN_USAGE), sent with Connector/J to the relay, answers with the same columns and
 *       rows as the primary does to the same account, and the same error where the primary has one;
 *       (both servers refuse SHOW COLUMNS and SHOW INDEX to an account without SELECT on the table:
 *       that error passes through as it is, and once SELECT is granted the rows do);
 *   <li>an account without SCHEMA_READ gets 1227, a data read is refused (1235) and never
 *       forwarded, a relay without a schema source 1235;
 *   <li>a CDC flow: Connector/J reads the schema through the relay, then
 *       mysql-binlog-connector-java streams the binlog through the same relay and its rows are read
 *       with the column names the relay gave;
 *   <li>a schema source that stops answering (its connections frozen, then refused, then the
 *       primary stopped): a clear error within the timeout, while the binlog keeps streaming
 *       through the relay.
 * </ul>
 */
@ExtendWith(ServerFarmExtension.class)
class SchemaSourceIT {
  private static final Logger LOG = LoggerFactory.getLogger(SchemaSourceIT.class);
  private static final long RELAY_SERVER_ID = 9001;
  private static final Credentials SCHEMA = new Credentials("relay_schema", "schema-pass");
  private static final Credentials CDC = new Credentials("cdc", "cdc-pass");
  private static final Credentials NO_GRANT = new Credentials("replonly", "replonly-pass");
  private static final Duration TIMEOUT = Duration.ofSeconds(2);
  private static final Duration BOUND = Duration.ofSeconds(60);
  private static final String ODD_TABLE = "odd `name` t";

  /** What CDC readers send, as they send it; answered against the current database {@code shop}. */
  private static final List<String> STATEMENTS =
      List.of(
          "SHOW DATABASES",
          "show schemas like 'sh%'",
          "SHOW FULL TABLES IN `shop` where Table_Type = 'BASE TABLE'",
          "SHOW TABLES",
          "SHOW FULL TABLES FROM shop LIKE 'o%'",
          "SHOW CREATE TABLE `shop`.`orders`",
          "SHOW CREATE TABLE `shop`.`odd ``name`` t`",
          "SHOW CREATE TABLE customers",
          "SHOW CREATE DATABASE shop",
          "SHOW COLUMNS FROM orders",
          "SHOW FULL COLUMNS FROM orders FROM shop",
          "SHOW FIELDS IN shop.orders WHERE `Key` <> '' OR `Null` = 'NO'",
          "SHOW INDEX FROM shop.orders",
          "SHOW KEYS FROM orders WHERE Non_unique = 0",
          "SHOW TABLE STATUS FROM shop WHERE Name = 'customers'",
          "SELECT schema_name FROM information_schema.schemata",
          "SELECT schema_name, default_character_set_name, default_collation_name FROM information_schema.schemata",
          "\n            SELECT\n                COLUMN_NAME, COLLATION_NAME, CHARACTER_SET_NAME,\n"
              + "                COLUMN_COMMENT, COLUMN_TYPE, COLUMN_KEY, ORDINAL_POSITION,\n"
              + "                DATA_TYPE, CHARACTER_OCTET_LENGTH\n            FROM\n"
              + "                information_schema.columns\n            WHERE\n"
              + "                table_schema = 'shop' AND table_name = 'orders'\n"
              + "            ORDER BY ORDINAL_POSITION\n",
          "SELECT COLUMN_NAME FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = 'shop' AND TABLE_NAME = 'orders'"
              + " ORDER BY ORDINAL_POSITION",
          "SELECT COLUMN_NAME, ORDINAL_POSITION, COLUMN_KEY, DATA_TYPE, CHARACTER_SET_NAME, COLUMN_DEFAULT, IS_NULLABLE"
              + " FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN ('customers',"
              + " 'odd `name` t') ORDER BY TABLE_NAME, ORDINAL_POSITION",
          "SELECT t.TABLE_NAME, TABLE_TYPE, ENGINE FROM information_schema.TABLES t WHERE t.TABLE_SCHEMA = 'shop'"
              + " ORDER BY 1",
          "SELECT TABLE_NAME, INDEX_NAME, COLUMN_NAME, SEQ_IN_INDEX, NON_UNIQUE FROM information_schema.STATISTICS"
              + " WHERE TABLE_SCHEMA = 'shop' ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX",
          "SELECT CONSTRAINT_NAME, TABLE_NAME, COLUMN_NAME, REFERENCED_TABLE_NAME, REFERENCED_COLUMN_NAME FROM"
              + " information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = 'shop' ORDER BY TABLE_NAME,"
              + " CONSTRAINT_NAME, ORDINAL_POSITION",
          "SELECT COUNT(*), count(DISTINCT TABLE_NAME) AS tables FROM information_schema.COLUMNS WHERE TABLE_SCHEMA ="
              + " 'shop'",
          "SELECT CONSTRAINT_NAME, CONSTRAINT_TYPE FROM information_schema.TABLE_CONSTRAINTS WHERE TABLE_SCHEMA ="
              + " 'shop' ORDER BY TABLE_NAME, CONSTRAINT_NAME",
          "SHOW CREATE TABLE shop.nosuch",
          "SHOW COLUMNS FROM nosuch.orders",
          "SELECT nosuch FROM information_schema.TABLES");

  /**
   * Statements whose answer is the server's error, as it is for the schema account on the server
   * itself.
   */
  private static final Set<String> FAILING =
      Set.of(
          "SHOW CREATE TABLE shop.nosuch",
          "SHOW COLUMNS FROM nosuch.orders",
          "SELECT nosuch FROM information_schema.TABLES");

  /**
   * Both servers want SELECT on a table for SHOW COLUMNS and SHOW INDEX, which REFERENCES does not
   * give.
   */
  private static final Set<String> NEED_SELECT =
      Set.of(
          "SHOW COLUMNS FROM orders",
          "SHOW FULL COLUMNS FROM orders FROM shop",
          "SHOW FIELDS IN shop.orders WHERE `Key` <> '' OR `Null` = 'NO'",
          "SHOW INDEX FROM shop.orders",
          "SHOW KEYS FROM orders WHERE Non_unique = 0");

  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(ServerFlavor.class)
  void metadataThroughTheRelayIsThePrimarysAndACdcReaderStreamsWithIt(
      ServerFlavor flavor, ServerFarm farm) throws Exception {
    DatabaseServer primary =
        farm.start(ServerSpec.of(ServerVersion.defaultFor(flavor)).named("primary"));
    prepare(primary);
    Relay relay = relay(primary, primary.address(), dir.resolve("relay"));
    try {
      // 1. Each statement through the relay answers as the primary answers the schema account: with
      // REFERENCES only, then (for SHOW COLUMNS and SHOW INDEX) with SELECT on the table as well.
      try (Connection viaRelay = relayConnection(relay, CDC, flavor);
          Connection direct = primaryConnection(primary)) {
        for (String sql : STATEMENTS) {
          boolean fails = FAILING.contains(sql) || NEED_SELECT.contains(sql);
          compare(viaRelay, direct, sql, fails, flavor);
        }
        primary.execute("GRANT SELECT ON shop.orders TO '" + SCHEMA.user() + "'@'%'");
        for (String sql : NEED_SELECT) {
          compare(viaRelay, direct, sql, false, flavor);
        }
        assertThat(Answer.of(viaRelay, "SELECT * FROM shop.orders").error())
            .as("a data read stays refused though the schema account could run it")
            .isEqualTo(1235);
        LOG.info(
            "FIGURE {}: {} metadata statements answered through the relay as by the primary",
            flavor,
            STATEMENTS.size() + NEED_SELECT.size());
      }

      // 2. Grants and what stays refused.
      try (Connection replicaAccount = relayConnection(relay, NO_GRANT, flavor);
          Connection cdc = relayConnection(relay, CDC, flavor)) {
        assertError(
            replicaAccount,
            "SHOW CREATE TABLE shop.orders",
            1227,
            "42000",
            "Access denied; you need (at least one of) the SCHEMA_READ privilege(s) for this operation");
        assertError(replicaAccount, "SHOW DATABASES", 1227, "42000", null);
        // refused, never forwarded: a data read is valid SQL the relay does not run (1235); the
        // others
        // are not one statement of the schema grammar (1064 or 1235)
        assertThat(Answer.of(cdc, "SELECT * FROM shop.orders").error()).isEqualTo(1235);
        assertThat(Answer.of(cdc, "SHOW CREATE TABLE shop.orders; DROP TABLE shop.orders").error())
            .isIn(1064, 1235);
        assertThat(
                Answer.of(
                        cdc,
                        "SELECT * FROM information_schema.TABLES UNION SELECT * FROM"
                            + " information_schema.TABLES")
                    .error())
            .isIn(1064, 1235);
      }
      assertThat(primary.queryValue("SELECT COUNT(*) FROM shop.orders")).isEqualTo("0");
      try (ReplicaServerUnderTest without = ReplicaServerUnderTest.start(flavor);
          Connection c =
              DriverManager.getConnection(
                  url(flavor, "127.0.0.1:" + without.port()).replace("/shop?", "/?"),
                  "repl",
                  "repl-pass")) {
        assertError(
            c,
            "SHOW FULL TABLES IN shop WHERE Table_Type = 'BASE TABLE'",
            1235,
            "42000",
            "This version of "
                + (flavor == ServerFlavor.MYSQL ? "MySQL" : "MariaDB")
                + " doesn't yet"
                + " support 'reading table schemas through binlog-relay without a schema source"
                + " (start the relay with --schema-source)'");
      }

      // 3. A CDC reader: the schema through the relay, then the binlog through the relay.
      List<String> columns = new ArrayList<>();
      Position start;
      try (Connection c = relayConnection(relay, CDC, flavor);
          Statement s = c.createStatement()) {
        List<String> databases = column(s, "SHOW DATABASES", 1);
        assertThat(databases).contains("shop");
        List<String> tables =
            column(s, "SHOW FULL TABLES IN `shop` where Table_Type = 'BASE TABLE'", 1);
        assertThat(tables).containsExactlyInAnyOrder("customers", "orders", ODD_TABLE);
        for (String table : tables) {
          String ddl =
              column(s, "SHOW CREATE TABLE `shop`.`" + table.replace("`", "``") + "`", 2).get(0);
          assertThat(ddl)
              .isEqualTo(
                  primary
                      .queryRows("SHOW CREATE TABLE `shop`.`" + table.replace("`", "``") + "`")
                      .get(0)
                      .get("Create Table"));
        }
        columns.addAll(
            column(
                s,
                "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA ="
                    + " 'shop' AND TABLE_NAME = 'orders' ORDER BY ORDINAL_POSITION",
                1));
        assertThat(columns).startsWith("id", "customer_id", "sku");
        start = awaitCaughtUp(relay, primary);
        Map<String, String> status =
            firstRow(
                s, flavor == ServerFlavor.MYSQL ? "SHOW BINARY LOG STATUS" : "SHOW MASTER STATUS");
        assertThat(new Position(status.get("File"), Long.parseLong(status.get("Position"))))
            .isEqualTo(start);
      }
      try (RowStream stream = RowStream.open(relay, start, "orders")) {
        primary.execute(
            "INSERT INTO shop.orders (id, customer_id, sku, qty, price) VALUES"
                + " (1, 1, 'sku-1', 3, 9.50), (2, 2, 'sku-2', 12, 1.25)",
            "INSERT INTO shop.orders (id, customer_id, sku, qty) VALUES (3, 1, 'sku-3', 1)");
        List<Serializable[]> rows = stream.await(3);
        assertThat(stream.columnCount())
            .as("the table map has the columns information_schema gave")
            .isEqualTo(columns.size());
        List<String> skus = new ArrayList<>();
        for (Serializable[] row : rows) {
          skus.add(text(row[columns.indexOf("sku")]));
        }
        assertThat(skus).containsExactly("sku-1", "sku-2", "sku-3");
        assertThat(rows.get(1)[columns.indexOf("qty")]).isEqualTo(12);
      }

      // 4. The primary (the schema source here) stops: a clear error, and the stored binlog is
      // still served.
      awaitCaughtUp(relay, primary);
      primary.stop();
      try (Connection c = relayConnection(relay, CDC, flavor)) {
        long began = System.nanoTime();
        Answer down = Answer.of(c, "SHOW CREATE TABLE shop.orders");
        LOG.info(
            "FIGURE {}: schema source stopped: error {} after {} ms: {}",
            flavor,
            down.error(),
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began),
            down.message());
        assertThat(down.error()).isEqualTo(1429);
        assertThat(down.state()).isEqualTo("HY000");
        assertThat(down.message())
            .startsWith(
                "Unable to connect to foreign data source: schema source "
                    + primary.address().host()
                    + ":"
                    + primary.address().port());
      }
      try (RowStream stored = RowStream.open(relay, start, "orders")) {
        assertThat(stored.await(3)).hasSize(3);
      }
    } finally {
      relay.close();
    }
  }

  @ParameterizedTest
  @EnumSource(ServerFlavor.class)
  void aSchemaSourceThatStopsAnsweringIsAnErrorWithinTheTimeoutAndTheBinlogFlowsOn(
      ServerFlavor flavor, ServerFarm farm) throws Exception {
    DatabaseServer primary =
        farm.start(ServerSpec.of(ServerVersion.defaultFor(flavor)).named("primary"));
    prepare(primary);
    FaultyProxy link = new FaultyProxy(primary.address());
    Relay relay = relay(primary, link.address(), dir.resolve("relay"));
    try (Connection c = relayConnection(relay, CDC, flavor)) {
      assertThat(Answer.of(c, "SHOW DATABASES").rows()).contains(List.of("shop"));
      Position start = awaitCaughtUp(relay, primary);
      try (RowStream stream = RowStream.open(relay, start, "orders")) {
        // Frozen: the pooled connection to the schema source goes silent.
        link.freezeOpenConnections();
        CompletableFuture<Answer> frozen =
            CompletableFuture.supplyAsync(
                () -> Answer.unchecked(c, "SHOW CREATE TABLE shop.orders"));
        primary.execute(
            "INSERT INTO shop.orders (id, customer_id, sku) VALUES (10, 1, 'while-frozen')");
        assertThat(stream.await(1)).hasSize(1);
        long began = System.nanoTime();
        Answer late = frozen.get(BOUND.toSeconds(), TimeUnit.SECONDS);
        LOG.info(
            "FIGURE {}: frozen schema source: error {} {} ms after the row streamed: {}",
            flavor,
            late.error(),
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began),
            late.message());
        assertThat(late.error()).isEqualTo(1430);
        assertThat(late.message())
            .isEqualTo(
                "There was a problem processing the query on the foreign data"
                    + " source. Data source error: schema source "
                    + link.address()
                    + " did not answer within "
                    + TIMEOUT.toMillis()
                    + " ms (--schema-source-timeout)");

        // Recovered: a new connection is opened for the next statement.
        assertThat(Answer.of(c, "SHOW CREATE TABLE shop.orders").error()).isNull();

        // Gone: connections are refused.
        link.close();
        Answer refused = Answer.of(c, "SHOW FULL TABLES IN shop");
        assertThat(refused.error()).isEqualTo(1429);
        assertThat(refused.message())
            .startsWith(
                "Unable to connect to foreign data source: schema source " + link.address());
        primary.execute(
            "INSERT INTO shop.orders (id, customer_id, sku) VALUES (11, 1, 'while-gone')");
        assertThat(stream.await(2)).hasSize(2);
        assertThat(Answer.of(c, "SELECT @@server_id").rows())
            .containsExactly(List.of("" + RELAY_SERVER_ID));
      }
    } finally {
      relay.close();
      link.close();
    }
  }

  // ---- the topology ----

  /**
   * The schema, some rows of customers, and the schema source's account: REFERENCES only, no
   * SELECT.
   */
  private static void prepare(DatabaseServer primary) {
    primary.execute(
        "CREATE DATABASE shop DEFAULT CHARACTER SET utf8mb4",
        "CREATE TABLE shop.customers (id INT PRIMARY KEY, email VARCHAR(100) NOT NULL, UNIQUE KEY email"
            + " (email)) COMMENT 'who buys'",
        "CREATE TABLE shop.orders (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, customer_id INT NOT NULL,"
            + " sku VARCHAR(32) NOT NULL DEFAULT 'n/a' COMMENT 'stock \"unit\" it''s', qty SMALLINT"
            + " UNSIGNED, price DECIMAL(10,2), placed DATETIME(3) NULL, note TEXT, flag BINARY(4) DEFAULT"
            + " 0x00FF0102, KEY sku_qty (sku, qty), CONSTRAINT orders_customer FOREIGN KEY (customer_id)"
            + " REFERENCES shop.customers (id))",
        "CREATE TABLE `shop`.`odd ``name`` t` (`k` INT PRIMARY KEY, `\u00e4` VARCHAR(5) DEFAULT '\\\\')",
        "CREATE VIEW shop.big_orders AS SELECT id, qty FROM shop.orders WHERE qty > 10",
        "INSERT INTO shop.customers VALUES (1, 'a@example.com'), (2, 'b@example.com')",
        "CREATE USER '" + SCHEMA.user() + "'@'%' IDENTIFIED BY '" + SCHEMA.password() + "'",
        "GRANT REFERENCES ON *.* TO '" + SCHEMA.user() + "'@'%'");
    assertThat(primary.queryRows("SHOW GRANTS FOR '" + SCHEMA.user() + "'@'%'")).hasSize(1);
  }

  /**
   * A relay following {@code primary}, its schema source at {@code schemaSource} as {@link
   * #SCHEMA}.
   */
  private static Relay relay(DatabaseServer primary, HostAndPort schemaSource, Path directory)
      throws Exception {
    boolean mysql = primary.flavor() == ServerFlavor.MYSQL;
    SecureRandom random = new SecureRandom();
    String accounts =
        CDC.user()
            + "@% REPLICATION_SLAVE,REPLICATION_CLIENT,SCHEMA_READ "
            + hash(mysql, CDC.password(), random)
            + "\n"
            + NO_GRANT.user()
            + "@% REPLICATION_SLAVE,REPLICATION_CLIENT "
            + hash(mysql, NO_GRANT.password(), random)
            + "\n";
    DownstreamSettings downstream =
        new DownstreamSettings(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            RELAY_SERVER_ID,
            UpstreamConfig.defaultReplicaUuid(RELAY_SERVER_ID).toString(),
            UserAccounts.parse(accounts),
            null,
            false);
    Credentials repl = primary.replicationCredentials();
    UpstreamConfig upstream =
        UpstreamConfig.builder(
                primary.address().host(), primary.address().port(), repl.user(), repl.password())
            .serverId(RELAY_SERVER_ID)
            .report("127.0.0.1", 0)
            .heartbeatPeriod(Duration.ofMillis(500))
            .build();
    ServerEndpoint endpoint =
        new ServerEndpoint(
            "schema source",
            schemaSource.host(),
            schemaSource.port(),
            SCHEMA.user(),
            SCHEMA.password(),
            TIMEOUT,
            TlsConfig.of(TlsMode.PREFERRED));
    RelayConfig config =
        new RelayConfig(
            directory,
            null,
            SyncPolicy.everyTransaction(),
            RetentionPolicy.keepEverything(),
            RelayConfig.DEFAULT_RETENTION_INTERVAL,
            upstream,
            downstream,
            Duration.ofSeconds(30),
            null,
            SchemaSourceConfig.of(endpoint));
    Relay relay = new Relay(config, Time.SYSTEM);
    relay.start();
    return relay;
  }

  /**
   * caching_sha2_password for MySQL (its default), mysql_native_password for MariaDB (its default).
   */
  private static String hash(boolean mysql, String password, SecureRandom random) {
    return mysql
        ? CachingSha2Hash.create(password, 5000, random).storedForm()
        : NativePasswordHash.of(password).storedForm();
  }

  /**
   * Each flavour's own driver, as its CDC connectors use: MySQL Connector/J, MariaDB Connector/J.
   * (MySQL Connector/J also logs in to a relay of MariaDB 10.x, whose greeting carries the "5.5.5-"
   * prefix as a 10.x server's does: {@link ConnectorJOnMariadbRelayIT}.)
   */
  private static String url(ServerFlavor flavor, String hostAndPort) {
    return flavor == ServerFlavor.MYSQL
        ? "jdbc:mysql://"
            + hostAndPort
            + "/shop?sslMode=DISABLED&allowPublicKeyRetrieval=true"
            + "&connectTimeout=5000&socketTimeout=60000"
        : "jdbc:mariadb://" + hostAndPort + "/shop?connectTimeout=5000&socketTimeout=60000";
  }

  private static Connection relayConnection(Relay relay, Credentials who, ServerFlavor flavor)
      throws SQLException {
    return DriverManager.getConnection(
        url(flavor, "127.0.0.1:" + relay.replicaServer().port()), who.user(), who.password());
  }

  private static Connection primaryConnection(DatabaseServer primary) throws SQLException {
    return DriverManager.getConnection(
        url(primary.flavor(), primary.address().toString()), SCHEMA.user(), SCHEMA.password());
  }

  /** Waits until the relay stores everything the primary wrote; returns that position. */
  private static Position awaitCaughtUp(Relay relay, DatabaseServer primary)
      throws InterruptedException {
    String statement =
        primary.flavor() == ServerFlavor.MYSQL ? "SHOW BINARY LOG STATUS" : "SHOW MASTER STATUS";
    return eventually(
            BOUND,
            "the relay at the primary's position [primary, relay]",
            () -> {
              Map<String, String> row = primary.queryRows(statement).get(0);
              return Arrays.asList(
                  new Position(row.get("File"), Long.parseLong(row.get("Position"))),
                  relay.store().readableEnd());
            },
            both -> both.get(0).equals(both.get(1)))
        .get(0);
  }

  // ---- answers ----

  /**
   * What a statement answered, as a JDBC client sees it: column labels, SQL types and type names,
   * and the rows as text; or the error's code, SQL state and message.
   */
  record Answer(
      List<String> labels,
      List<String> types,
      List<List<String>> rows,
      Integer error,
      String state,
      String message) {

    static Answer of(Connection c, String sql) throws SQLException {
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery(sql)) {
        ResultSetMetaData meta = rs.getMetaData();
        List<String> labels = new ArrayList<>();
        List<String> types = new ArrayList<>();
        for (int i = 1; i <= meta.getColumnCount(); i++) {
          labels.add(meta.getColumnLabel(i));
          types.add(meta.getColumnType(i) + " " + meta.getColumnTypeName(i));
        }
        List<List<String>> rows = new ArrayList<>();
        while (rs.next()) {
          List<String> row = new ArrayList<>();
          for (int i = 1; i <= meta.getColumnCount(); i++) {
            row.add(rs.getString(i));
          }
          rows.add(row);
        }
        return new Answer(labels, types, rows, null, null, null);
      } catch (SQLException e) {
        if (e.getErrorCode() == 0) {
          throw e;
        }
        // MariaDB Connector/J puts "(conn=N) " before the server's message
        return new Answer(
            List.of(),
            List.of(),
            List.of(),
            e.getErrorCode(),
            e.getSQLState(),
            e.getMessage().replaceFirst("^\\(conn=\\d+\\) ", ""));
      }
    }

    static Answer unchecked(Connection c, String sql) {
      try {
        return of(c, sql);
      } catch (SQLException e) {
        throw new IllegalStateException(sql + ": " + e, e);
      }
    }
  }

  /**
   * {@code sql} answers the same through the relay as on the primary: rows, or the error {@code
   * fails} says.
   */
  private static void compare(
      Connection viaRelay, Connection direct, String sql, boolean fails, ServerFlavor flavor)
      throws SQLException {
    Answer expected = Answer.of(direct, sql);
    Answer got = Answer.of(viaRelay, sql);
    assertThat(got).as("%s through the relay (%s)", sql.strip(), flavor).isEqualTo(expected);
    assertThat(expected.error() != null).as("%s fails: %s", sql.strip(), expected).isEqualTo(fails);
    if (fails) {
      assertThat(expected.error()).isIn(1049, 1054, 1142, 1146);
    } else {
      assertThat(expected.rows()).as("%s answers something", sql.strip()).isNotEmpty();
    }
  }

  private static void assertError(Connection c, String sql, int code, String state, String message)
      throws SQLException {
    Answer a = Answer.of(c, sql);
    assertThat(a.error()).as("%s: %s", sql, a).isEqualTo(code);
    assertThat(a.state()).isEqualTo(state);
    if (message != null) {
      assertThat(a.message()).isEqualTo(message);
    }
  }

  private static List<String> column(Statement s, String sql, int column) throws SQLException {
    List<String> values = new ArrayList<>();
    try (ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        values.add(rs.getString(column));
      }
    }
    return values;
  }

  private static Map<String, String> firstRow(Statement s, String sql) throws SQLException {
    try (ResultSet rs = s.executeQuery(sql)) {
      assertThat(rs.next()).as(sql).isTrue();
      Map<String, String> row = new LinkedHashMap<>();
      for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
        row.put(rs.getMetaData().getColumnLabel(i), rs.getString(i));
      }
      return row;
    }
  }

  private static String text(Serializable value) {
    return value instanceof byte[] bytes
        ? new String(bytes, StandardCharsets.UTF_8)
        : String.valueOf(value);
  }

  /**
   * mysql-binlog-connector-java streaming from the relay: the rows written into one table of {@code
   * shop}.
   */
  private static final class RowStream implements AutoCloseable {
    private final BinaryLogClient client;
    private final List<Serializable[]> rows = new CopyOnWriteArrayList<>();
    private final CompletableFuture<Exception> failure = new CompletableFuture<>();
    private volatile long tableId = -1;
    private volatile int columnCount = -1;

    private RowStream(BinaryLogClient client) {
      this.client = client;
    }

    static RowStream open(Relay relay, Position start, String table) throws Exception {
      BinaryLogClient client =
          new BinaryLogClient(
              "127.0.0.1", relay.replicaServer().port(), CDC.user(), CDC.password());
      client.setServerId(4343 + (long) (Math.random() * 1000));
      client.setKeepAlive(false);
      client.setBinlogFilename(start.file());
      client.setBinlogPosition(start.offset());
      RowStream stream = new RowStream(client);
      client.registerEventListener(
          event -> {
            EventData data = event.getData();
            if (data instanceof TableMapEventData map
                && map.getDatabase().equals("shop")
                && map.getTable().equals(table)) {
              stream.tableId = map.getTableId();
              stream.columnCount = map.getColumnTypes().length;
            } else if (data instanceof WriteRowsEventData write
                && write.getTableId() == stream.tableId) {
              stream.rows.addAll(write.getRows());
            }
          });
      client.registerLifecycleListener(
          new BinaryLogClient.AbstractLifecycleListener() {
            @Override
            public void onCommunicationFailure(BinaryLogClient c, Exception e) {
              stream.failure.complete(e);
            }
          });
      client.connect(BOUND.toMillis());
      return stream;
    }

    /** Waits until {@code count} rows have come; returns them. */
    List<Serializable[]> await(int count) throws Exception {
      eventually(
          BOUND,
          count + " rows streamed through the relay",
          () -> {
            if (failure.isDone()) {
              throw new AssertionError(
                  "the stream failed after " + rows.size() + " rows", failure.get());
            }
            return rows.size();
          },
          n -> n >= count);
      return List.copyOf(rows);
    }

    int columnCount() {
      return columnCount;
    }

    @Override
    public void close() throws Exception {
      client.disconnect();
    }
  }
}
