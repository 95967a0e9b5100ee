package org.binlogrelay.server.downstream.sql;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.binlogrelay.protocol.packet.OkPacket;
import org.binlogrelay.protocol.query.Assignment;
import org.binlogrelay.protocol.query.ColumnDefinition;
import org.binlogrelay.protocol.query.ColumnType;
import org.binlogrelay.protocol.query.Expression;
import org.binlogrelay.protocol.query.QueryResponse;
import org.binlogrelay.protocol.query.SelectItem;
import org.binlogrelay.protocol.query.SqlParser;
import org.binlogrelay.protocol.query.SqlSyntaxError;
import org.binlogrelay.protocol.query.Statement;
import org.binlogrelay.protocol.query.TableName;
import org.binlogrelay.protocol.query.TextResultSet;
import org.binlogrelay.protocol.query.VariableScope;
import org.binlogrelay.server.downstream.account.Privilege;
import org.binlogrelay.storage.Time;

/**
 * Answers a COM_QUERY the way a MySQL or MariaDB server would ({@link SqlFlavor}): parses it
 * ({@link SqlParser}), evaluates {@code SELECT} lists ({@link Evaluator}) and the relay's tables
 * ({@link TableQuery}), applies {@code SET} and transaction statements to the session, and lists
 * variables, status, binlogs, events, replicas, the relay's own replication and its connections.
 * Every refusal is an ERR with the real server's code and wording: 1064 for text that is not SQL,
 * 1235 (naming binlog-relay) for valid SQL the relay does not execute, 1193 for unknown variables,
 * 1227 for a missing privilege, 1229 / 1238 for scope mistakes, 1231 for bad values.
 *
 * <p>The statements that read table schemas ({@link Statement.Metadata}: {@code SHOW DATABASES},
 * {@code SHOW TABLES}, {@code SHOW CREATE TABLE}, {@code information_schema} reads, ...) go to the
 * {@link SchemaStatements} given (the relay's schema source), whose answer may be {@link
 * QueryResponse.Pending}; the few forms of them its grammar does not take reach {@link
 * #tableSchema}.
 *
 * <p>Thread-safe: holds only immutable configuration and thread-safe sources; the per-connection
 * state is the {@link SessionVariables} passed in, which the caller's event loop owns.
 */
public final class QueryResponder {
  private static final Set<String> CHARACTER_SETS =
      Set.of("utf8mb4", "utf8mb3", "utf8", "latin1", "ascii", "binary");
  private static final Set<String> SCHEMA_TABLES = Set.of("SCHEMATA", "TABLES", "COLUMNS");

  private final SqlEnvironment env;
  private final Supplier<List<ReplicaInfo>> replicas;
  private final ReplicationSource source;
  private final Connections connections;
  private final ServerCounters counters;
  private final StatementCounters statements = new StatementCounters();
  private final SchemaStatements schema;

  /**
   * A responder without a schema source: statements that read table schemas get
   * ER_NOT_SUPPORTED_YET.
   */
  public QueryResponder(
      SqlFlavor dialect,
      ServerIdentity identity,
      ServerVariables variables,
      BinlogListing binlogs,
      Supplier<List<ReplicaInfo>> replicas,
      Time time) {
    this(
        dialect,
        identity,
        variables,
        binlogs,
        replicas,
        time,
        ReplicationSource.NONE,
        Connections.NONE,
        ServerCounters.NONE,
        SchemaStatements.off(dialect.productName()));
  }

  /**
   * A responder with a schema source and without the relay's replication, connections or counters.
   */
  public QueryResponder(
      SqlFlavor dialect,
      ServerIdentity identity,
      ServerVariables variables,
      BinlogListing binlogs,
      Supplier<List<ReplicaInfo>> replicas,
      Time time,
      SchemaStatements schema) {
    this(
        dialect,
        identity,
        variables,
        binlogs,
        replicas,
        time,
        ReplicationSource.NONE,
        Connections.NONE,
        ServerCounters.NONE,
        schema);
  }

  /**
   * A responder without a schema source: statements that read table schemas get
   * ER_NOT_SUPPORTED_YET.
   */
  public QueryResponder(
      SqlFlavor dialect,
      ServerIdentity identity,
      ServerVariables variables,
      BinlogListing binlogs,
      Supplier<List<ReplicaInfo>> replicas,
      Time time,
      ReplicationSource source,
      Connections connections,
      ServerCounters counters) {
    this(
        dialect,
        identity,
        variables,
        binlogs,
        replicas,
        time,
        source,
        connections,
        counters,
        SchemaStatements.off(dialect.productName()));
  }

  /**
   * @param source the relay's own replication ({@code SHOW REPLICA STATUS})
   * @param connections the server's connections ({@code SHOW PROCESSLIST}, {@code KILL})
   * @param counters the server's counters ({@code SHOW STATUS})
   * @param schema answers the statements that read table schemas ({@link Statement.Metadata})
   */
  public QueryResponder(
      SqlFlavor dialect,
      ServerIdentity identity,
      ServerVariables variables,
      BinlogListing binlogs,
      Supplier<List<ReplicaInfo>> replicas,
      Time time,
      ReplicationSource source,
      Connections connections,
      ServerCounters counters,
      SchemaStatements schema) {
    this.env =
        new SqlEnvironment(
            dialect, identity, variables, binlogs, time, new Columns(dialect.collationId()));
    this.schema = Objects.requireNonNull(schema, "schema");
    this.replicas = Objects.requireNonNull(replicas, "replicas");
    this.source = Objects.requireNonNull(source, "source");
    this.connections = Objects.requireNonNull(connections, "connections");
    this.counters = Objects.requireNonNull(counters, "counters");
  }

  public SqlFlavor dialect() {
    return env.dialect();
  }

  public ServerVariables variables() {
    return env.variables();
  }

  /**
   * A new session of a client that asked for CLIENT_IGNORE_SPACE in its handshake: as on the
   * servers, its {@code sql_mode} gets IGNORE_SPACE.
   */
  public void ignoreSpace(SessionVariables session) {
    env.variables()
        .find("sql_mode")
        .ifPresent(
            v -> {
              String mode =
                  SqlModes.normalise(
                      v.globalValue().get() + ",IGNORE_SPACE", env.dialect().sqlModes());
              if (mode != null) {
                session.setSystem("sql_mode", mode);
              }
            });
  }

  /** The answer to one statement; never throws for anything a client can send. */
  public QueryResponse respond(String sql, ClientContext client, SessionVariables session) {
    statements.count("Questions");
    session.count("Questions");
    if (sql.isBlank()) {
      return new QueryResponse.Err(ErrorMessages.emptyQuery());
    }
    Statement statement;
    try {
      statement =
          SqlParser.parse(
              sql, env.identity().versionNumber(), env.dialect().executesMariadbComments());
    } catch (SqlSyntaxError e) {
      return new QueryResponse.Err(
          ErrorMessages.parseError(env.dialect().productName(), e.near(), e.line()));
    }
    try {
      count(statement, session);
      return answer(statement, sql, client, session);
    } catch (StatementRefused e) {
      return new QueryResponse.Err(e.err());
    }
  }

  private QueryResponse answer(
      Statement statement, String sql, ClientContext client, SessionVariables session) {
    Evaluator evaluator = new Evaluator(env, client, session);
    Columns columns = env.columns();
    SqlFlavor dialect = env.dialect();
    if (statement instanceof Statement.Select select) {
      return rows(select(select, evaluator, client, session));
    }
    if (statement instanceof Statement.Set set) {
      set(set, evaluator, session);
      return ok(session);
    }
    if (statement instanceof Statement.ShowVariables show) {
      return rows(
          TableQuery.filter(variables(show.scope(), evaluator), show.filter(), evaluator)
              .toResultSet());
    }
    if (statement instanceof Statement.ShowStatus show) {
      ResultTable status =
          new ResultTable(
              List.of(columns.variableName(), columns.variableValue()),
              StatusTable.rows(
                  show.scope(),
                  env,
                  counters,
                  connections,
                  source.status(),
                  statements,
                  session,
                  client,
                  replicas.get().size()));
      return rows(TableQuery.filter(status, show.filter(), evaluator).toResultSet());
    }
    if (statement instanceof Statement.Begin begin) {
      session.beginTransaction(begin.readOnly());
      return ok(session);
    }
    if (statement instanceof Statement.EndTransaction end) {
      session.endTransaction();
      if (end.chain()) {
        session.beginTransaction(false);
      }
      if (end.release()) {
        session.requestClose();
      }
      return ok(session);
    }
    if (statement instanceof Statement.SetTransaction set) {
      setTransaction(set, session);
      return ok(session);
    }
    if (statement instanceof Statement.ShowBinaryLogs show) {
      spelling(show.spelling(), show.at(), sql);
      require(client, Privilege.REPLICATION_CLIENT, dialect.binlogMonitorPrivileges());
      return rows(dialect.binaryLogs(columns, env.binlogs().files()));
    }
    if (statement instanceof Statement.ShowBinaryLogStatus show) {
      spelling(show.spelling(), show.at(), sql);
      require(client, Privilege.REPLICATION_CLIENT, dialect.binlogMonitorPrivileges());
      return rows(
          dialect.binaryLogStatus(columns, env.binlogs().current(), env.binlogs().executedGtids()));
    }
    if (statement instanceof Statement.ShowReplicas show) {
      spelling(show.spelling(), show.at(), sql);
      require(client, dialect.replicaListPrivilege(), dialect.replicaListPrivileges());
      return rows(dialect.replicas(columns, replicas.get()));
    }
    if (statement instanceof Statement.Metadata metadata) {
      return schema.answer(metadata.statement(), client, session);
    }
    if (statement instanceof Statement.ShowReplicaStatus show) {
      spelling(show.spelling(), show.at(), sql);
      require(client, Privilege.REPLICATION_CLIENT, dialect.replicaMonitorPrivileges());
      if (show.channel() != null && !show.channel().isEmpty()) {
        throw new StatementRefused(dialect.noSuchChannel(show.channel()));
      }
      return rows(
          dialect
              .replicaStatus(
                  columns, source.status(), show.all(), show.spelling().startsWith("SLAVE"))
              .toResultSet());
    }
    if (statement instanceof Statement.ShowProcessList show) {
      return rows(
          dialect.processList(columns, visibleProcesses(client), show.full()).toResultSet());
    }
    if (statement instanceof Statement.Kill kill) {
      kill(kill, evaluator, client);
      return ok(session);
    }
    if (statement instanceof Statement.ShowBinlogEvents show) {
      require(client, dialect.binlogEventsPrivilege(), dialect.binlogEventsPrivileges());
      return rows(binlogEvents(show));
    }
    if (statement instanceof Statement.ShowWarnings) {
      return rows(
          new TextResultSet(
              List.of(
                  columns.text("Level", 28, true),
                  columns.number("Code", ColumnType.LONG, 4),
                  columns.text("Message", 2048, true)),
              List.of()));
    }
    if (statement instanceof Statement.Use use) {
      session.database(use.database());
      return ok(session);
    }
    if (statement instanceof Statement.ShowDatabases
        || statement instanceof Statement.ShowTables
        || statement instanceof Statement.ShowColumns
        || statement instanceof Statement.ShowCreateTable) {
      return tableSchema(statement);
    }
    if (statement instanceof Statement.Unsupported unsupported) {
      throw new StatementRefused(ErrorMessages.notSupportedYet(unsupported.what()));
    }
    throw new IllegalStateException("statement without an answer: " + statement);
  }

  /**
   * The table-schema statements: {@code SHOW DATABASES}, {@code SHOW [FULL] TABLES}, {@code SHOW
   * COLUMNS} / {@code DESCRIBE}, {@code SHOW CREATE TABLE}, and {@code SELECT} from {@code
   * information_schema.SCHEMATA}, {@code TABLES} or {@code COLUMNS}. The relay holds no table
   * definitions yet: "not supported" (1235), naming the statement.
   */
  private QueryResponse tableSchema(Statement statement) {
    String what;
    if (statement instanceof Statement.ShowDatabases) {
      what = "SHOW DATABASES";
    } else if (statement instanceof Statement.ShowTables) {
      what = "SHOW TABLES";
    } else if (statement instanceof Statement.ShowColumns) {
      what = "SHOW COLUMNS";
    } else if (statement instanceof Statement.ShowCreateTable) {
      what = "SHOW CREATE TABLE";
    } else {
      what =
          "SELECT from information_schema."
              + ((Statement.Select) statement).from().name().toUpperCase(Locale.ROOT);
    }
    throw new StatementRefused(ErrorMessages.notSupportedYet(what));
  }

  private static QueryResponse rows(TextResultSet rs) {
    return new QueryResponse.Rows(rs);
  }

  private static QueryResponse ok(SessionVariables session) {
    return new QueryResponse.Ok(new OkPacket(0, 0, session.statusFlags(), 0, ""));
  }

  /** Counts the statement as the server's {@code Com_xxx} counters do. */
  private void count(Statement statement, SessionVariables session) {
    String name = counterOf(statement);
    if (name != null) {
      String counter = env.dialect().counterName(name);
      statements.count(counter);
      session.count(counter);
    }
  }

  private static String counterOf(Statement s) {
    if (s instanceof Statement.Select) {
      return "Com_select";
    }
    if (s instanceof Statement.Set || s instanceof Statement.SetTransaction) {
      return "Com_set_option";
    }
    if (s instanceof Statement.ShowVariables) {
      return "Com_show_variables";
    }
    if (s instanceof Statement.ShowStatus) {
      return "Com_show_status";
    }
    if (s instanceof Statement.Begin) {
      return "Com_begin";
    }
    if (s instanceof Statement.EndTransaction end) {
      return end.commit() ? "Com_commit" : "Com_rollback";
    }
    if (s instanceof Statement.ShowBinaryLogs) {
      return "Com_show_binlogs";
    }
    if (s instanceof Statement.ShowBinaryLogStatus) {
      return "Com_show_binary_log_status";
    }
    if (s instanceof Statement.ShowReplicas) {
      return "Com_show_replicas";
    }
    if (s instanceof Statement.ShowReplicaStatus) {
      return "Com_show_replica_status";
    }
    if (s instanceof Statement.ShowProcessList) {
      return "Com_show_processlist";
    }
    if (s instanceof Statement.Kill) {
      return "Com_kill";
    }
    if (s instanceof Statement.ShowBinlogEvents) {
      return "Com_show_binlog_events";
    }
    if (s instanceof Statement.ShowWarnings) {
      return "Com_show_warnings";
    }
    if (s instanceof Statement.Use) {
      return "Com_change_db";
    }
    if (s instanceof Statement.ShowDatabases) {
      return "Com_show_databases";
    }
    if (s instanceof Statement.ShowTables) {
      return "Com_show_tables";
    }
    if (s instanceof Statement.ShowColumns) {
      return "Com_show_fields";
    }
    if (s instanceof Statement.ShowCreateTable) {
      return "Com_show_create_table";
    }
    return null;
  }

  private void spelling(String spelling, int at, String sql) {
    int word = env.dialect().rejectedWordIndex(spelling, env.identity().versionNumber());
    if (word < 0) {
      return;
    }
    int from = at;
    for (int i = 0; i < word; i++) {
      while (from < sql.length() && !Character.isWhitespace(sql.charAt(from))) {
        from++;
      }
      while (from < sql.length() && Character.isWhitespace(sql.charAt(from))) {
        from++;
      }
    }
    throw new StatementRefused(
        ErrorMessages.parseError(
            env.dialect().productName(), sql.substring(from), lineAt(sql, from)));
  }

  private static int lineAt(String sql, int at) {
    int line = 1;
    for (int i = 0; i < at && i < sql.length(); i++) {
      if (sql.charAt(i) == '\n') {
        line++;
      }
    }
    return line;
  }

  private static void require(ClientContext client, Privilege privilege, String names) {
    if (!client.has(privilege)) {
      throw new StatementRefused(ErrorMessages.specificAccessDenied(names));
    }
  }

  // ---- SELECT ----

  private TextResultSet select(
      Statement.Select select,
      Evaluator evaluator,
      ClientContext client,
      SessionVariables session) {
    TableName from = select.from();
    if (from == null) {
      List<ColumnDefinition> cols = new ArrayList<>();
      List<String> row = new ArrayList<>();
      for (SelectItem item : select.items()) {
        if (item.expression() instanceof Expression.AllColumns) {
          throw new StatementRefused(ErrorMessages.noTablesUsed());
        }
        Evaluator.Value v = evaluator.value(item.expression(), item.columnName());
        cols.add(v.column());
        row.add(v.text());
      }
      boolean kept =
          (select.where() == null || evaluator.holds(select.where()))
              && select.limit() != 0
              && select.offset() == 0;
      return new TextResultSet(cols, kept ? List.of(row) : List.of());
    }
    if (from.schema() != null
        && from.schema().equalsIgnoreCase("information_schema")
        && SCHEMA_TABLES.contains(from.name().toUpperCase(Locale.ROOT))) {
      QueryResponse answer = tableSchema(select);
      return ((QueryResponse.Rows) answer).resultSet();
    }
    Optional<ResultTable> table =
        env.dialect().systemTable(from, env.columns(), visibleProcesses(client), source.status());
    if (table.isPresent()) {
      return TableQuery.select(select, table.get(), evaluator);
    }
    if (from.schema() == null && session.database() == null) {
      throw new StatementRefused(ErrorMessages.noDatabaseSelected());
    }
    throw new StatementRefused(
        ErrorMessages.notSupportedYet(
            "SELECT from "
                + (from.schema() == null ? session.database() + "." + from.name() : from)));
  }

  /**
   * Connections a client may see: all for REPLICATION CLIENT (monitoring accounts), else its own
   * user's.
   */
  private List<ProcessInfo> visibleProcesses(ClientContext client) {
    List<ProcessInfo> all = connections.list();
    if (client.has(Privilege.REPLICATION_CLIENT)) {
      return all;
    }
    return all.stream().filter(p -> p.user().equals(client.user())).toList();
  }

  // ---- SHOW VARIABLES, KILL, SHOW BINLOG EVENTS ----

  private ResultTable variables(VariableScope scope, Evaluator evaluator) {
    List<List<String>> rows = new ArrayList<>();
    VariableScope read =
        scope == VariableScope.GLOBAL ? VariableScope.GLOBAL : VariableScope.DEFAULT;
    for (SystemVariable v : env.variables().all()) {
      String value = v.shown(evaluator.read(v, read, v.name()));
      rows.add(Arrays.asList(v.name(), value == null ? "" : value));
    }
    return new ResultTable(
        List.of(env.columns().variableName(), env.columns().variableValue()), rows);
  }

  private void kill(Statement.Kill kill, Evaluator evaluator, ClientContext client) {
    String text = evaluator.value(kill.id(), "").text();
    long id;
    try {
      id = text == null ? -1 : new BigDecimal(text).longValueExact();
    } catch (ArithmeticException | NumberFormatException e) {
      id = -1;
    }
    final long target = id;
    Optional<ProcessInfo> process =
        connections.list().stream().filter(p -> p.id() == target).findFirst();
    if (process.isEmpty()) {
      throw new StatementRefused(ErrorMessages.unknownThread(text == null ? "NULL" : text));
    }
    if (!process.get().user().equals(client.user())) {
      throw new StatementRefused(ErrorMessages.killDenied(target));
    }
    if (!connections.kill(target, kill.query())) {
      throw new StatementRefused(ErrorMessages.unknownThread(text));
    }
  }

  private TextResultSet binlogEvents(Statement.ShowBinlogEvents show) {
    Columns c = env.columns();
    List<BinlogListing.EventRow> events =
        env.binlogs()
            .events(show.file(), show.from(), show.offset(), show.count())
            .orElseThrow(
                () ->
                    new StatementRefused(
                        ErrorMessages.errorWhenExecuting(
                            "SHOW BINLOG EVENTS", "Could not find target log")));
    List<List<String>> rows = new ArrayList<>();
    for (BinlogListing.EventRow e : events) {
      rows.add(
          List.of(
              e.logName(),
              Long.toString(e.position()),
              e.eventType(),
              Long.toString(e.serverId()),
              Long.toString(e.endPosition()),
              e.info()));
    }
    return new TextResultSet(
        List.of(
            c.text("Log_name", 60, true),
            c.number("Pos", ColumnType.LONGLONG, 12),
            c.text("Event_type", 60, true),
            c.number("Server_id", ColumnType.LONG, 11),
            c.number("End_log_pos", ColumnType.LONGLONG, 12),
            c.text("Info", 60, true)),
        rows);
  }

  // ---- SET ----

  private void setTransaction(Statement.SetTransaction set, SessionVariables session) {
    if (set.scope() == VariableScope.GLOBAL) {
      throw new StatementRefused(
          ErrorMessages.specificAccessDenied(env.dialect().setGlobalPrivileges()));
    }
    if (set.scope() == VariableScope.DEFAULT) {
      // Only the next transaction's characteristics: nothing a later SELECT @@transaction_isolation
      // shows.
      if (session.inTransaction()) {
        throw new StatementRefused(ErrorMessages.cannotChangeTransactionCharacteristics());
      }
      return;
    }
    for (String name : List.of("transaction_isolation", "tx_isolation")) {
      if (set.isolation() != null && env.variables().find(name).isPresent()) {
        session.setSystem(name, set.isolation());
      }
    }
    for (String name : List.of("transaction_read_only", "tx_read_only")) {
      if (set.readOnly() != null && env.variables().find(name).isPresent()) {
        session.setSystem(name, set.readOnly() ? "1" : "0");
      }
    }
  }

  /**
   * Validates every assignment first, then applies them all, so a failing SET changes nothing (as
   * MySQL).
   */
  private void set(Statement.Set set, Evaluator evaluator, SessionVariables session) {
    List<Runnable> changes = new ArrayList<>();
    for (Assignment a : set.assignments()) {
      if (a instanceof Assignment.UserVariable u) {
        UserValue v = userValue(u.value(), evaluator, session);
        changes.add(
            () -> {
              if (!session.setUser(u.name(), v)) {
                throw new StatementRefused(
                    ErrorMessages.wrongValueForVariable(
                        u.name(),
                        "(too many or too large user"
                            + " variables: at most "
                            + SessionVariables.MAX_USER_VARIABLES
                            + " of "
                            + SessionVariables.MAX_VALUE_CHARS
                            + " characters)"));
              }
            });
      } else if (a instanceof Assignment.SystemVariable s) {
        changes.add(systemAssignment(s, evaluator, session));
      } else if (a instanceof Assignment.Names n) {
        changes.add(names(n, session));
      }
    }
    boolean autocommitBefore = session.autocommit();
    for (Runnable change : changes) {
      change.run();
    }
    if (!autocommitBefore && session.autocommit()
        || session.autocommit()
            && session.inTransaction()
            && set.assignments().stream().anyMatch(QueryResponder::setsAutocommit)) {
      session.endTransaction(); // SET autocommit = 1 commits, as on MySQL
    }
  }

  private static boolean setsAutocommit(Assignment a) {
    return a instanceof Assignment.SystemVariable s && s.name().equalsIgnoreCase("autocommit");
  }

  private Runnable systemAssignment(
      Assignment.SystemVariable s, Evaluator evaluator, SessionVariables session) {
    SystemVariable variable =
        env.variables()
            .find(s.name())
            .orElseThrow(() -> new StatementRefused(ErrorMessages.unknownSystemVariable(s.name())));
    if (s.scope() == VariableScope.GLOBAL) {
      throw new StatementRefused(
          ErrorMessages.specificAccessDenied(
              variable.globalSetPrivileges() != null
                  ? variable.globalSetPrivileges()
                  : env.dialect().setGlobalPrivileges()));
    }
    String name = variable.name();
    if (!variable.hasSessionValue()) {
      throw new StatementRefused(ErrorMessages.setGlobalVariableInSession(name));
    }
    if (variable.sessionSetPrivileges() != null) {
      throw new StatementRefused(
          ErrorMessages.specificAccessDenied(variable.sessionSetPrivileges()));
    }
    if (s.value() instanceof Expression.Default) {
      return () -> session.resetSystem(name);
    }
    UserValue value = userValue(s.value(), evaluator, session);
    if (value.text() == null) {
      if (!variable.nullable()) {
        throw new StatementRefused(ErrorMessages.wrongValueForVariable(name, "NULL"));
      }
      return () -> session.setSystem(name, null);
    }
    String normal =
        name.equals("sql_mode")
            ? SqlModes.normalise(value.text(), env.dialect().sqlModes())
            : variable.normalise(value.text());
    if (normal == null) {
      throw new StatementRefused(
          variable.type() == VariableType.STRING
                  || value.kind() == UserValue.Kind.STRING
                      && variable.type() == VariableType.BOOLEAN
              ? ErrorMessages.wrongValueForVariable(name, value.text())
              : ErrorMessages.wrongTypeForVariable(name));
    }
    if (name.startsWith("character_set_")
        && !CHARACTER_SETS.contains(normal.toLowerCase(Locale.ROOT))) {
      throw new StatementRefused(ErrorMessages.unknownCharacterSet(normal));
    }
    return () -> session.setSystem(name, normal);
  }

  private Runnable names(Assignment.Names n, SessionVariables session) {
    SqlFlavor dialect = env.dialect();
    String charset =
        n.charset().equals("default")
            ? dialect.characterSet()
            : n.charset().toLowerCase(Locale.ROOT);
    if (!CHARACTER_SETS.contains(charset)) {
      throw new StatementRefused(ErrorMessages.unknownCharacterSet(n.charset()));
    }
    String collation =
        n.collation() != null
            ? n.collation().toLowerCase(Locale.ROOT)
            : charset.equals(dialect.characterSet())
                ? dialect.collation()
                : charset.equals("binary") ? "binary" : charset + "_general_ci";
    return () -> {
      session.setSystem("character_set_client", charset);
      session.setSystem("character_set_connection", charset);
      session.setSystem("character_set_results", charset);
      session.setSystem("collation_connection", collation);
    };
  }

  /** The value of a SET's right-hand side. */
  private UserValue userValue(Expression e, Evaluator evaluator, SessionVariables session) {
    if (e instanceof Expression.Word w) {
      return new UserValue(w.word(), UserValue.Kind.STRING);
    }
    if (e instanceof Expression.Default) {
      throw new StatementRefused(
          ErrorMessages.parseError(env.dialect().productName(), "DEFAULT", 1));
    }
    if (e instanceof Expression.UserVariable u) {
      return session.user(u.name());
    }
    Evaluator.Value v = evaluator.value(e, "");
    if (v.text() == null) {
      return UserValue.NULL;
    }
    return v.value();
  }
}
