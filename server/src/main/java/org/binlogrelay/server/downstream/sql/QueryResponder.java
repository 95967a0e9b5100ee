package org.binlogrelay.server.downstream.sql;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import org.binlogrelay.protocol.packet.OkPacket;
import org.binlogrelay.protocol.query.Assignment;
import org.binlogrelay.protocol.query.ColumnDefinition;
import org.binlogrelay.protocol.query.Expression;
import org.binlogrelay.protocol.query.QueryResponse;
import org.binlogrelay.protocol.query.SelectItem;
import org.binlogrelay.protocol.query.SqlParser;
import org.binlogrelay.protocol.query.SqlSyntaxError;
import org.binlogrelay.protocol.query.Statement;
import org.binlogrelay.protocol.query.TextResultSet;
import org.binlogrelay.protocol.query.VariableScope;
import org.binlogrelay.server.downstream.account.Privilege;

/**
 * Answers a COM_QUERY the way a MySQL or MariaDB server would ({@link Dialect}): parses it
 * ({@link SqlParser}), evaluates {@code SELECT} lists against the server's and the session's variables,
 * applies {@code SET}, and lists variables, binlogs and replicas. Every refusal is an ERR with the real
 * server's code and wording: 1064 for anything it does not understand, 1193 for unknown variables, 1227 for a
 * missing privilege, 1229 / 1238 for scope mistakes, 1231 for bad values. Statements that read table schemas go
 * to the {@link SchemaStatements} given (the relay's schema source), whose answer may be {@link
 * QueryResponse.Pending}.
 *
 * <p>Thread-safe: holds only immutable configuration and thread-safe sources; the per-connection state is the
 * {@link SessionVariables} passed in, which the caller's event loop owns.
 */
public final class QueryResponder {
  private static final Set<String> CHARACTER_SETS =
      Set.of("utf8mb4", "utf8mb3", "utf8", "latin1", "ascii", "binary");

  private final Dialect dialect;
  private final ServerIdentity identity;
  private final ServerVariables variables;
  private final BinlogListing binlogs;
  private final Supplier<List<ReplicaInfo>> replicas;
  private final Clock clock;
  private final Columns columns;
  private final SchemaStatements schema;

  /** A responder without a schema source: statements that read table schemas get ER_NOT_SUPPORTED_YET. */
  public QueryResponder(Dialect dialect, ServerIdentity identity, ServerVariables variables, BinlogListing binlogs,
      Supplier<List<ReplicaInfo>> replicas, Clock clock) {
    this(dialect, identity, variables, binlogs, replicas, clock, SchemaStatements.off(dialect.productName()));
  }

  /** @param schema answers the statements that read table schemas ({@link Statement.Metadata}) */
  public QueryResponder(Dialect dialect, ServerIdentity identity, ServerVariables variables, BinlogListing binlogs,
      Supplier<List<ReplicaInfo>> replicas, Clock clock, SchemaStatements schema) {
    this.schema = Objects.requireNonNull(schema, "schema");
    this.dialect = Objects.requireNonNull(dialect, "dialect");
    this.identity = Objects.requireNonNull(identity, "identity");
    this.variables = Objects.requireNonNull(variables, "variables");
    this.binlogs = Objects.requireNonNull(binlogs, "binlogs");
    this.replicas = Objects.requireNonNull(replicas, "replicas");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.columns = new Columns(dialect.collationId());
  }

  public Dialect dialect() {
    return dialect;
  }

  public ServerVariables variables() {
    return variables;
  }

  /** The answer to one statement; never throws for anything a client can send. */
  public QueryResponse respond(String sql, ClientContext client, SessionVariables session) {
    if (sql.isBlank()) {
      return new QueryResponse.Err(ErrorMessages.emptyQuery());
    }
    Statement statement;
    try {
      statement = SqlParser.parse(sql, identity.versionNumber(), dialect.executesMariadbComments());
    } catch (SqlSyntaxError e) {
      return new QueryResponse.Err(ErrorMessages.parseError(dialect.productName(), e.near(), e.line()));
    }
    try {
      return answer(statement, sql, client, session);
    } catch (StatementRefused e) {
      return new QueryResponse.Err(e.err());
    }
  }

  private QueryResponse answer(Statement statement, String sql, ClientContext client, SessionVariables session) {
    if (statement instanceof Statement.Select select) {
      return rows(select(select, client, session));
    }
    if (statement instanceof Statement.Set set) {
      set(set, client, session);
      return new QueryResponse.Ok(OkPacket.ok());
    }
    if (statement instanceof Statement.ShowVariables show) {
      return rows(showVariables(show, session));
    }
    if (statement instanceof Statement.ShowBinaryLogs show) {
      spelling(show.spelling(), show.at(), sql);
      require(client, Privilege.REPLICATION_CLIENT, dialect.binlogMonitorPrivileges());
      return rows(dialect.binaryLogs(columns, binlogs.files()));
    }
    if (statement instanceof Statement.ShowBinaryLogStatus show) {
      spelling(show.spelling(), show.at(), sql);
      require(client, Privilege.REPLICATION_CLIENT, dialect.binlogMonitorPrivileges());
      return rows(dialect.binaryLogStatus(columns, binlogs.current(), binlogs.executedGtids()));
    }
    if (statement instanceof Statement.ShowReplicas show) {
      spelling(show.spelling(), show.at(), sql);
      require(client, dialect.replicaListPrivilege(), dialect.replicaListPrivileges());
      return rows(dialect.replicas(columns, replicas.get()));
    }
    if (statement instanceof Statement.Metadata metadata) {
      return schema.answer(metadata.statement(), client, session);
    }
    if (statement instanceof Statement.ShowWarnings) {
      return rows(new TextResultSet(List.of(columns.text("Level", 28, true),
          columns.number("Code", org.binlogrelay.protocol.query.ColumnType.LONG, 4),
          columns.text("Message", 2048, true)), List.of()));
    }
    throw new IllegalStateException("statement without an answer: " + statement);
  }

  private static QueryResponse rows(TextResultSet rs) {
    return new QueryResponse.Rows(rs);
  }

  private void spelling(String spelling, int at, String sql) {
    int word = dialect.rejectedWordIndex(spelling);
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
    throw new StatementRefused(ErrorMessages.parseError(dialect.productName(), sql.substring(from), lineAt(sql, from)));
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

  /** A computed value and the column it goes out under. */
  private record Value(String text, ColumnDefinition column) {}

  private TextResultSet select(Statement.Select select, ClientContext client, SessionVariables session) {
    List<ColumnDefinition> cols = new ArrayList<>();
    List<String> row = new ArrayList<>();
    for (SelectItem item : select.items()) {
      Value v = value(item.expression(), item.columnName(), client, session);
      cols.add(v.column());
      row.add(v.text());
    }
    return new TextResultSet(cols, select.limit() == 0 ? List.of() : List.of(row));
  }

  private Value value(Expression e, String name, ClientContext client, SessionVariables session) {
    if (e instanceof Expression.Literal l) {
      switch (l.kind()) {
        case STRING:
          return new Value(l.text(), columns.stringValue(name, l.text()));
        case INTEGER:
          String n = new BigInteger(l.text().startsWith("0x") ? "0" : l.text()).toString();
          return new Value(n, columns.integerValue(name, Math.max(1, n.length())));
        case DECIMAL:
          String d = new BigDecimal(l.text()).toPlainString();
          return new Value(d, columns.decimalValue(name, d));
        default:
          return new Value(null, columns.nullValue(name));
      }
    }
    if (e instanceof Expression.UserVariable u) {
      UserValue v = session.user(u.name());
      switch (v.kind()) {
        case INTEGER:
          return new Value(v.text(), columns.integerVariable(name, false));
        case DECIMAL:
          return new Value(v.text(), columns.decimalValue(name, v.text()));
        default:
          return new Value(v.text(), columns.userString(name));
      }
    }
    if (e instanceof Expression.SystemVariable s) {
      SystemVariable variable = systemVariable(s.name());
      String text = read(variable, s.scope(), s.name(), session);
      switch (variable.type()) {
        case UNSIGNED:
          return new Value(text, columns.integerVariable(name, true));
        case SIGNED:
          return new Value(text, columns.integerVariable(name, false));
        case BOOLEAN:
          return new Value(text, columns.booleanVariable(name));
        default:
          return new Value(text, columns.stringVariable(name));
      }
    }
    if (e instanceof Expression.FunctionCall f) {
      return function(f, name, client, session);
    }
    throw new StatementRefused(ErrorMessages.parseError(dialect.productName(), name, 1));
  }

  private Value function(Expression.FunctionCall f, String name, ClientContext client, SessionVariables session) {
    switch (f.name()) {
      case "VERSION":
        arguments(f, 0);
        return new Value(identity.version(), columns.stringValue(name, identity.version()));
      case "DATABASE":
      case "SCHEMA":
        arguments(f, 0);
        return new Value(session.database(), columns.nullableString(name, 34));
      case "USER":
      case "SESSION_USER":
      case "SYSTEM_USER": {
        arguments(f, 0);
        String who = client.user() + "@" + client.peerAddress();
        return new Value(who, columns.stringValue(name, who));
      }
      case "CURRENT_USER": {
        arguments(f, 0);
        String who = client.user() + "@" + client.accountHost();
        return new Value(who, columns.stringValue(name, who));
      }
      case "CONNECTION_ID":
        arguments(f, 0);
        return new Value(Long.toString(client.connectionId()), columns.integerValue(name, 10));
      case "UNIX_TIMESTAMP":
        arguments(f, 0);
        return new Value(Long.toString(clock.instant().getEpochSecond()), columns.integerValue(name, 21));
      case "BINLOG_GTID_POS":
        if (dialect.hasBinlogGtidPos()) {
          arguments(f, 2);
          String file = value(f.arguments().get(0), name, client, session).text();
          String offset = value(f.arguments().get(1), name, client, session).text();
          String position = file == null || offset == null || !offset.matches("[0-9]{1,19}") ? null
              : binlogs.gtidPositionAt(file, Long.parseLong(offset)).orElse(null);
          return new Value(position, columns.userString(name));
        }
        break;
      default:
        break;
    }
    if (session.database() == null) {
      throw new StatementRefused(ErrorMessages.noDatabaseSelected());
    }
    throw new StatementRefused(ErrorMessages.functionDoesNotExist(session.database() + "."
        + f.name().toLowerCase(Locale.ROOT)));
  }

  private static void arguments(Expression.FunctionCall f, int expected) {
    if (f.arguments().size() != expected) {
      throw new StatementRefused(ErrorMessages.wrongParameterCount(f.name().toLowerCase(Locale.ROOT)));
    }
  }

  private SystemVariable systemVariable(String name) {
    return variables.find(name).orElseThrow(() -> new StatementRefused(ErrorMessages.unknownSystemVariable(name)));
  }

  /** The value {@code @@[scope.]name} reads: the session's own value if it has one, else the global one. */
  private String read(SystemVariable variable, VariableScope scope, String writtenName, SessionVariables session) {
    if (scope == VariableScope.SESSION && !variable.hasSessionValue()) {
      throw new StatementRefused(ErrorMessages.globalOnlyVariable(writtenName.toLowerCase(Locale.ROOT)));
    }
    if (scope != VariableScope.GLOBAL && variable.hasSessionValue()) {
      var own = session.system(variable.name());
      if (own.isPresent()) {
        return own.get().value();
      }
    }
    return variable.globalValue().get();
  }

  // ---- SHOW VARIABLES ----

  private TextResultSet showVariables(Statement.ShowVariables show, SessionVariables session) {
    List<List<String>> rows = new ArrayList<>();
    for (SystemVariable v : variables.all()) {
      if (show.filter().matches(v.name())) {
        VariableScope scope = show.scope() == VariableScope.GLOBAL ? VariableScope.GLOBAL : VariableScope.DEFAULT;
        String value = v.shown(read(v, scope, v.name(), session));
        rows.add(java.util.Arrays.asList(v.name(), value == null ? "" : value));
      }
    }
    return new TextResultSet(List.of(columns.variableName(), columns.variableValue()), rows);
  }

  // ---- SET ----

  /** Validates every assignment first, then applies them all, so a failing SET changes nothing (as MySQL). */
  private void set(Statement.Set set, ClientContext client, SessionVariables session) {
    List<Runnable> changes = new ArrayList<>();
    for (Assignment a : set.assignments()) {
      if (a instanceof Assignment.UserVariable u) {
        UserValue v = userValue(u.value(), client, session);
        changes.add(() -> {
          if (!session.setUser(u.name(), v)) {
            throw new StatementRefused(ErrorMessages.wrongValueForVariable(u.name(), "(too many or too large user"
                + " variables: at most " + SessionVariables.MAX_USER_VARIABLES + " of "
                + SessionVariables.MAX_VALUE_CHARS + " characters)"));
          }
        });
      } else if (a instanceof Assignment.SystemVariable s) {
        changes.add(systemAssignment(s, client, session));
      } else if (a instanceof Assignment.Names n) {
        changes.add(names(n, session));
      }
    }
    for (Runnable change : changes) {
      change.run();
    }
  }

  private Runnable systemAssignment(Assignment.SystemVariable s, ClientContext client, SessionVariables session) {
    SystemVariable variable = systemVariable(s.name());
    if (s.scope() == VariableScope.GLOBAL) {
      throw new StatementRefused(ErrorMessages.specificAccessDenied(variable.globalSetPrivileges() != null
          ? variable.globalSetPrivileges() : dialect.setGlobalPrivileges()));
    }
    String name = variable.name();
    if (!variable.hasSessionValue()) {
      throw new StatementRefused(ErrorMessages.setGlobalVariableInSession(name));
    }
    if (variable.sessionSetPrivileges() != null) {
      throw new StatementRefused(ErrorMessages.specificAccessDenied(variable.sessionSetPrivileges()));
    }
    if (s.value() instanceof Expression.Default) {
      return () -> session.resetSystem(name);
    }
    UserValue value = userValue(s.value(), client, session);
    if (value.text() == null) {
      if (!variable.nullable()) {
        throw new StatementRefused(ErrorMessages.wrongValueForVariable(name, "NULL"));
      }
      return () -> session.setSystem(name, null);
    }
    String normal = variable.normalise(value.text());
    if (normal == null) {
      throw new StatementRefused(variable.type() == VariableType.STRING || value.kind() == UserValue.Kind.STRING
          && variable.type() == VariableType.BOOLEAN
          ? ErrorMessages.wrongValueForVariable(name, value.text()) : ErrorMessages.wrongTypeForVariable(name));
    }
    if (name.startsWith("character_set_") && !CHARACTER_SETS.contains(normal.toLowerCase(Locale.ROOT))) {
      throw new StatementRefused(ErrorMessages.unknownCharacterSet(normal));
    }
    return () -> session.setSystem(name, normal);
  }

  private Runnable names(Assignment.Names n, SessionVariables session) {
    String charset = n.charset().equals("default") ? dialect.characterSet() : n.charset().toLowerCase(Locale.ROOT);
    if (!CHARACTER_SETS.contains(charset)) {
      throw new StatementRefused(ErrorMessages.unknownCharacterSet(n.charset()));
    }
    String collation = n.collation() != null ? n.collation().toLowerCase(Locale.ROOT)
        : charset.equals(dialect.characterSet()) ? dialect.collation()
        : charset.equals("binary") ? "binary" : charset + "_general_ci";
    return () -> {
      session.setSystem("character_set_client", charset);
      session.setSystem("character_set_connection", charset);
      session.setSystem("character_set_results", charset);
      session.setSystem("collation_connection", collation);
    };
  }

  /** The value of a SET's right-hand side. */
  private UserValue userValue(Expression e, ClientContext client, SessionVariables session) {
    if (e instanceof Expression.Word w) {
      return new UserValue(w.word(), UserValue.Kind.STRING);
    }
    if (e instanceof Expression.Default) {
      throw new StatementRefused(ErrorMessages.parseError(dialect.productName(), "DEFAULT", 1));
    }
    if (e instanceof Expression.UserVariable u) {
      return session.user(u.name());
    }
    if (e instanceof Expression.Literal l) {
      switch (l.kind()) {
        case STRING:
          return new UserValue(l.text(), UserValue.Kind.STRING);
        case INTEGER:
          return new UserValue(new BigInteger(l.text().startsWith("0x") ? "0" : l.text()).toString(),
              UserValue.Kind.INTEGER);
        case DECIMAL:
          return new UserValue(new BigDecimal(l.text()).toPlainString(), UserValue.Kind.DECIMAL);
        default:
          return UserValue.NULL;
      }
    }
    Value v = value(e, "", client, session);
    if (v.text() == null) {
      return UserValue.NULL;
    }
    boolean number = v.column().type() == org.binlogrelay.protocol.query.ColumnType.LONGLONG;
    return new UserValue(v.text(), number ? UserValue.Kind.INTEGER : UserValue.Kind.STRING);
  }
}
