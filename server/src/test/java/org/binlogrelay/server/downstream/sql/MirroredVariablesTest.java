package org.binlogrelay.server.downstream.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.query.QueryResponse;
import org.binlogrelay.server.downstream.account.Privilege;
import org.binlogrelay.server.upstream.PrimaryVariables;
import org.junit.jupiter.api.Test;

/**
 * The primary's {@code binlog_row_metadata} as binlog libraries ask for it: python-mysql-replication's {@code SHOW
 * VARIABLES LIKE 'BINLOG_ROW_METADATA';} on a connection to {@code information_schema}, and the usual forms.
 */
class MirroredVariablesTest {
  private static final ServerIdentity ID = new ServerIdentity("9.7.4-relay", "binlog-relay", 77,
      "11111111-2222-3333-4444-555555555555", 0, 67108864, 28800, "relay-host", 3306);
  private static final ClientContext REPL = new ClientContext("repl", "%", "127.0.0.1", 12,
      EnumSet.allOf(Privilege.class));

  private final Map<String, String> primary = new ConcurrentHashMap<>();
  private final SessionVariables session = new SessionVariables();

  private QueryResponder responder(Dialect dialect) {
    List<SystemVariable> variables = new ArrayList<>(dialect.variables(ID, BinlogListing.EMPTY));
    variables.addAll(MirroredVariables.of(dialect.flavor(), name -> Optional.ofNullable(primary.get(name))));
    return new QueryResponder(dialect, ID, new ServerVariables(variables), BinlogListing.EMPTY, List::of,
        Clock.systemUTC());
  }

  private List<List<String>> rows(QueryResponder r, String sql) {
    QueryResponse answer = r.respond(sql, REPL, session);
    assertThat(answer).as(sql).isInstanceOf(QueryResponse.Rows.class);
    return ((QueryResponse.Rows) answer).resultSet().rows();
  }

  @Test
  void showsThePrimarysValueLiveAndTheServersDefaultBeforeItIsKnown() {
    QueryResponder mysql = responder(MysqlDialect.INSTANCE);
    QueryResponder mariadb = responder(MariadbDialect.INSTANCE);
    String python = "SHOW VARIABLES LIKE 'BINLOG_ROW_METADATA';";
    assertThat(rows(mysql, python)).containsExactly(List.of("binlog_row_metadata", "MINIMAL"));
    assertThat(rows(mariadb, python)).containsExactly(List.of("binlog_row_metadata", "NO_LOG"));

    primary.put("binlog_row_metadata", "FULL");
    for (QueryResponder r : List.of(mysql, mariadb)) {
      assertThat(rows(r, python)).containsExactly(List.of("binlog_row_metadata", "FULL"));
      assertThat(rows(r, "SHOW GLOBAL VARIABLES LIKE 'binlog_row%'")).contains(List.of("binlog_row_metadata",
          "FULL"));
      assertThat(rows(r, "SELECT @@binlog_row_metadata, @@global.binlog_row_metadata"))
          .containsExactly(List.of("FULL", "FULL"));
      // Global only on both servers.
      QueryResponse session = r.respond("SELECT @@session.binlog_row_metadata", REPL, this.session);
      assertThat(session).isInstanceOf(QueryResponse.Err.class);
      ErrPacket err = ((QueryResponse.Err) session).err();
      assertThat(err.code()).isEqualTo(1238);
    }
  }

  @Test
  void everyVariableTheUpstreamReadsIsShown() {
    QueryResponder mysql = responder(MysqlDialect.INSTANCE);
    for (String name : PrimaryVariables.MIRRORED) {
      primary.put(name, "value-of-" + name);
      assertThat(rows(mysql, "SELECT @@global." + name)).containsExactly(List.of("value-of-" + name));
    }
  }
}
