package org.binlogrelay.server.downstream.schema;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.packet.OkPacket;
import org.binlogrelay.protocol.query.QueryResponse;
import org.binlogrelay.server.downstream.account.Privilege;
import org.binlogrelay.server.downstream.sql.BinlogListing;
import org.binlogrelay.server.downstream.sql.ClientContext;
import org.binlogrelay.server.downstream.sql.MariadbSqlFlavor;
import org.binlogrelay.server.downstream.sql.MysqlSqlFlavor;
import org.binlogrelay.server.downstream.sql.QueryResponder;
import org.binlogrelay.server.downstream.sql.SchemaStatements;
import org.binlogrelay.server.downstream.sql.ServerIdentity;
import org.binlogrelay.server.downstream.sql.ServerVariables;
import org.binlogrelay.server.downstream.sql.SessionVariables;
import org.binlogrelay.server.downstream.sql.SqlFlavor;
import org.binlogrelay.server.upstream.ServerEndpoint;
import org.binlogrelay.server.upstream.TlsConfig;
import org.binlogrelay.storage.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Who may read table schemas through the relay, and what the others get: statements through the
 * {@link QueryResponder}'s one dispatch point to the schema source, or to ER_NOT_SUPPORTED_YET
 * without one.
 */
class ForwardingSchemaStatementsTest {
  private static final ServerIdentity ID =
      new ServerIdentity(
          "9.7.4-relay",
          "binlog-relay",
          77,
          "11111111-2222-3333-4444-555555555555",
          0,
          67108864,
          28800,
          "relay-host",
          3306);
  private static final ClientContext GRANTED =
      new ClientContext(
          "cdc",
          "%",
          "127.0.0.1",
          12,
          EnumSet.of(Privilege.REPLICATION_SLAVE, Privilege.SCHEMA_READ));
  private static final ClientContext REPLICA =
      new ClientContext(
          "repl",
          "10.0.%",
          "127.0.0.1",
          13,
          EnumSet.of(
              Privilege.REPLICATION_SLAVE,
              Privilege.REPLICATION_CLIENT,
              Privilege.REPLICATION_MASTER_ADMIN));

  private final List<String> forwarded = new CopyOnWriteArrayList<>();
  private final SchemaSource source =
      new SchemaSource(
          new SchemaSourceConfig(
              new ServerEndpoint(
                  "schema source",
                  "127.0.0.1",
                  3306,
                  "schema",
                  "pw",
                  Duration.ofSeconds(10),
                  TlsConfig.DISABLED),
              1,
              1 << 20,
              Duration.ofMinutes(1)),
          socket ->
              new SchemaConnection() {
                @Override
                public boolean backslashEscapes() {
                  return true;
                }

                @Override
                public void resultsCharset(String charset) {
                  forwarded.add("charset " + charset);
                }

                @Override
                public QueryResponse forward(String sql, long maxBytes) {
                  forwarded.add(sql);
                  return new QueryResponse.Ok(OkPacket.ok());
                }

                @Override
                public String describe() {
                  return "fake";
                }

                @Override
                public void close() {}
              },
          Time.SYSTEM);
  private final SessionVariables session = new SessionVariables();

  @AfterEach
  void close() {
    source.close();
  }

  private static QueryResponder responder(SqlFlavor dialect, SchemaStatements schema) {
    return new QueryResponder(
        dialect,
        ID,
        new ServerVariables(dialect.variables(ID, BinlogListing.EMPTY)),
        BinlogListing.EMPTY,
        List::of,
        Time.SYSTEM,
        schema);
  }

  private static ErrPacket err(QueryResponse answer) {
    assertThat(answer).isInstanceOf(QueryResponse.Err.class);
    return ((QueryResponse.Err) answer).err();
  }

  @Test
  void withoutASchemaSourceEveryMetadataStatementIsNotSupportedYetNamingTheOption() {
    QueryResponder mysql =
        new QueryResponder(
            MysqlSqlFlavor.INSTANCE,
            ID,
            new ServerVariables(MysqlSqlFlavor.INSTANCE.variables(ID, BinlogListing.EMPTY)),
            BinlogListing.EMPTY,
            List::of,
            Time.SYSTEM);
    for (String sql :
        List.of(
            "SHOW DATABASES",
            "SHOW CREATE TABLE shop.t",
            "SHOW FULL TABLES IN shop WHERE" + " Table_Type = 'BASE TABLE'",
            "SELECT schema_name FROM information_schema.schemata")) {
      ErrPacket e = err(mysql.respond(sql, GRANTED, session));
      assertThat(e.code()).as(sql).isEqualTo(1235);
      assertThat(e.sqlState()).isEqualTo("42000");
      assertThat(e.message())
          .isEqualTo(
              "This version of MySQL doesn't yet support 'reading table schemas through"
                  + " binlog-relay without a schema source (start the relay with --schema-source)'");
    }
    ErrPacket maria =
        err(
            responder(MariadbSqlFlavor.INSTANCE, SchemaStatements.off("MariaDB"))
                .respond("SHOW DATABASES", GRANTED, session));
    assertThat(maria.message()).startsWith("This version of MariaDB doesn't yet support");
  }

  @Test
  void anAccountWithoutSchemaReadGetsAccessDeniedNamingThePrivilege() {
    QueryResponder r = responder(MysqlSqlFlavor.INSTANCE, new ForwardingSchemaStatements(source));
    ErrPacket e = err(r.respond("SHOW CREATE TABLE shop.t", REPLICA, session));
    assertThat(e)
        .isEqualTo(
            new ErrPacket(
                1227,
                "42000",
                "Access denied; you need (at least one of) the SCHEMA_READ privilege(s) for this operation"));
    assertThat(forwarded).isEmpty();
  }

  @Test
  void aGrantedAccountsStatementIsForwardedWithItsCurrentDatabaseAndResultCharset()
      throws Exception {
    QueryResponder r = responder(MysqlSqlFlavor.INSTANCE, new ForwardingSchemaStatements(source));
    assertThat(err(r.respond("SHOW TABLES", GRANTED, session)))
        .isEqualTo(new ErrPacket(1046, "3D000", "No database selected"));
    session.database("shop");
    QueryResponse answer =
        r.respond("/* c */ show full tables where Table_type = 'BASE TABLE'", GRANTED, session);
    assertThat(answer).isInstanceOf(QueryResponse.Pending.class);
    assertThat(
            ((QueryResponse.Pending) answer)
                .answer()
                .toCompletableFuture()
                .get(30, TimeUnit.SECONDS))
        .isInstanceOf(QueryResponse.Ok.class);
    session.setSystem("character_set_results", null);
    QueryResponse again = r.respond("SHOW CREATE TABLE t", GRANTED, session);
    ((QueryResponse.Pending) again).answer().toCompletableFuture().get(30, TimeUnit.SECONDS);
    assertThat(forwarded)
        .containsExactly(
            "charset utf8mb4",
            "SHOW FULL TABLES FROM `shop` WHERE (`Table_type` = 'BASE TABLE')",
            "charset null",
            "SHOW CREATE TABLE `shop`.`t`");
  }

  @Test
  void dataReadsAndTricksAreRefusedAndNotForwarded() {
    QueryResponder r = responder(MysqlSqlFlavor.INSTANCE, new ForwardingSchemaStatements(source));
    // a data read is valid SQL the relay does not run (1235); the others are not one statement of
    // the grammar
    assertThat(err(r.respond("SELECT * FROM shop.orders", GRANTED, session)).code())
        .isEqualTo(1235);
    for (String sql :
        List.of(
            "SHOW CREATE TABLE t; DROP TABLE t",
            "SELECT * FROM information_schema.TABLES UNION SELECT * FROM mysql.user")) {
      assertThat(err(r.respond(sql, GRANTED, session)).code()).as(sql).isIn(1064, 1235);
    }
    assertThat(forwarded).isEmpty();
  }
}
