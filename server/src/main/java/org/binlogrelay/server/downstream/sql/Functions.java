package org.binlogrelay.server.downstream.sql;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.protocol.query.ColumnDefinition;
import org.binlogrelay.protocol.query.ColumnType;
import org.binlogrelay.protocol.query.Expression;

/**
 * The functions the relay evaluates: the session's ({@code VERSION()}, {@code DATABASE()}, {@code
 * USER()}, {@code CURRENT_USER()}, {@code CONNECTION_ID()}, {@code LAST_INSERT_ID()}), time ({@code
 * UNIX_TIMESTAMP()}, {@code NOW()}), text ({@code CONCAT}, {@code CONCAT_WS}, {@code LOWER}, {@code
 * UPPER}, {@code IFNULL}, {@code COALESCE}), and GTIDs: MySQL's {@code GTID_SUBTRACT(set, set)} and
 * {@code GTID_SUBSET(set, set)} (with protocol's {@link MysqlGtidSet}, so results print as MySQL
 * prints them), MariaDB's {@code BINLOG_GTID_POS(file, pos)}. MariaDB has no GTID set functions;
 * there, as on MariaDB, they do not exist. An unknown function is the dialect's error (MySQL: 1046
 * without a database, else 1305).
 *
 * <p>Not thread-safe: belongs to one {@link Evaluator}.
 */
final class Functions {
  private static final DateTimeFormatter DATETIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss", Locale.ROOT);

  private final SqlEnvironment env;
  private final ClientContext client;
  private final SessionVariables session;
  private final Evaluator evaluator;

  Functions(
      SqlEnvironment env, ClientContext client, SessionVariables session, Evaluator evaluator) {
    this.env = env;
    this.client = client;
    this.session = session;
    this.evaluator = evaluator;
  }

  Evaluator.Value call(Expression.FunctionCall f, String name) {
    Columns columns = env.columns();
    switch (f.name()) {
      case "VERSION":
        arguments(f, 0);
        return text(env.identity().version(), name);
      case "DATABASE":
      case "SCHEMA":
        arguments(f, 0);
        return new Evaluator.Value(textValue(session.database()), columns.nullableString(name, 34));
      case "USER":
      case "SESSION_USER":
      case "SYSTEM_USER":
        arguments(f, 0);
        return text(client.user() + "@" + client.peerAddress(), name);
      case "CURRENT_USER":
        arguments(f, 0);
        return text(client.user() + "@" + client.accountHost(), name);
      case "CONNECTION_ID":
        arguments(f, 0);
        return integer(Long.toString(client.connectionId()), name, 10);
      case "LAST_INSERT_ID":
        arguments(f, 0);
        return integer("0", name, 21);
      case "UNIX_TIMESTAMP":
        arguments(f, 0);
        return integer(
            Long.toString(Instant.ofEpochMilli(env.time().milliseconds()).getEpochSecond()),
            name,
            21);
      case "NOW":
      case "CURRENT_TIMESTAMP":
      case "LOCALTIME":
      case "LOCALTIMESTAMP":
      case "SYSDATE":
        {
          String now =
              LocalDateTime.ofInstant(
                      Instant.ofEpochMilli(env.time().milliseconds()), ZoneOffset.UTC)
                  .format(DATETIME);
          return new Evaluator.Value(
              new UserValue(now, UserValue.Kind.STRING),
              ColumnDefinition.computed(
                  name,
                  63,
                  19,
                  ColumnType.DATETIME,
                  ColumnDefinition.NOT_NULL_FLAG | ColumnDefinition.BINARY_FLAG,
                  0));
        }
      case "CONCAT":
      case "CONCAT_WS":
        return concat(f, name);
      case "LOWER":
      case "LCASE":
      case "UPPER":
      case "UCASE":
        {
          arguments(f, 1);
          String s = argument(f, 0).text();
          String changed =
              s == null
                  ? null
                  : f.name().startsWith("L")
                      ? s.toLowerCase(Locale.ROOT)
                      : s.toUpperCase(Locale.ROOT);
          return new Evaluator.Value(
              textValue(changed),
              columns.nullableString(name, changed == null ? 0 : changed.length()));
        }
      case "IFNULL":
        arguments(f, 2);
        return coalesce(f, name);
      case "COALESCE":
        if (f.arguments().isEmpty()) {
          throw wrongCount(f);
        }
        return coalesce(f, name);
      case "GTID_SUBTRACT":
      case "GTID_SUBSET":
        if (env.dialect().hasGtidSetFunctions()) {
          return gtidFunction(f, name);
        }
        break;
      case "BINLOG_GTID_POS":
        if (env.dialect().hasBinlogGtidPos()) {
          arguments(f, 2);
          String file = argument(f, 0).text();
          String offset = argument(f, 1).text();
          String position =
              file == null || offset == null || !offset.matches("[0-9]{1,19}")
                  ? null
                  : env.binlogs().gtidPositionAt(file, Long.parseLong(offset)).orElse(null);
          return new Evaluator.Value(textValue(position), columns.userString(name));
        }
        break;
      case "COUNT":
        throw new StatementRefused(
            ErrorMessages.notSupportedYet("COUNT() outside SELECT ... FROM"));
      default:
        break;
    }
    // The servers resolve variables while parsing, so an unknown variable among the arguments is
    // reported first.
    for (int i = 0; i < f.arguments().size(); i++) {
      argument(f, i);
    }
    throw new StatementRefused(
        env.dialect().unknownFunction(f.name().toLowerCase(Locale.ROOT), session.database()));
  }

  private Evaluator.Value gtidFunction(Expression.FunctionCall f, String name) {
    if (f.arguments().size() != 2) {
      throw new StatementRefused(ErrorMessages.wrongParameterCount(f.name()));
    }
    String a = argument(f, 0).text();
    String b = argument(f, 1).text();
    boolean subset = f.name().equals("GTID_SUBSET");
    if (a == null || b == null) {
      return subset
          ? evaluator.bool(null, name)
          : new Evaluator.Value(UserValue.NULL, env.columns().userString(name));
    }
    MysqlGtidSet left = gtidSet(a);
    MysqlGtidSet right = gtidSet(b);
    if (subset) {
      return evaluator.bool(right.containsAll(left), name);
    }
    String result = left.subtract(right).toString();
    return new Evaluator.Value(
        new UserValue(result, UserValue.Kind.STRING),
        env.columns().nullableString(name, Math.max(255, result.length())));
  }

  private static MysqlGtidSet gtidSet(String text) {
    try {
      return MysqlGtidSet.parse(text);
    } catch (IllegalArgumentException e) {
      throw new StatementRefused(ErrorMessages.malformedGtidSet(e.getMessage()));
    }
  }

  private Evaluator.Value concat(Expression.FunctionCall f, String name) {
    boolean separated = f.name().equals("CONCAT_WS");
    if (f.arguments().size() < (separated ? 2 : 1)) {
      throw wrongCount(f);
    }
    StringBuilder out = new StringBuilder();
    String separator = separated ? argument(f, 0).text() : "";
    if (separator == null) {
      return new Evaluator.Value(UserValue.NULL, env.columns().nullableString(name, 0));
    }
    boolean first = true;
    for (int i = separated ? 1 : 0; i < f.arguments().size(); i++) {
      String part = argument(f, i).text();
      if (part == null) {
        if (separated) {
          continue;
        }
        return new Evaluator.Value(UserValue.NULL, env.columns().nullableString(name, 0));
      }
      if (!first) {
        out.append(separator);
      }
      out.append(part);
      first = false;
    }
    String s = out.toString();
    return new Evaluator.Value(
        new UserValue(s, UserValue.Kind.STRING), env.columns().nullableString(name, s.length()));
  }

  private Evaluator.Value coalesce(Expression.FunctionCall f, String name) {
    Evaluator.Value last = null;
    for (int i = 0; i < f.arguments().size(); i++) {
      last = argument(f, i, name);
      if (last.text() != null) {
        return last;
      }
    }
    return last;
  }

  private Evaluator.Value argument(Expression.FunctionCall f, int i) {
    return argument(f, i, "");
  }

  private Evaluator.Value argument(Expression.FunctionCall f, int i, String name) {
    return evaluator.value(f.arguments().get(i), name);
  }

  private Evaluator.Value text(String s, String name) {
    return new Evaluator.Value(
        new UserValue(s, UserValue.Kind.STRING), env.columns().stringValue(name, s));
  }

  private Evaluator.Value integer(String n, String name, int length) {
    return new Evaluator.Value(
        new UserValue(n, UserValue.Kind.INTEGER), env.columns().integerValue(name, length));
  }

  private static UserValue textValue(String s) {
    return s == null ? UserValue.NULL : new UserValue(s, UserValue.Kind.STRING);
  }

  private static void arguments(Expression.FunctionCall f, int expected) {
    if (f.arguments().size() != expected) {
      throw wrongCount(f);
    }
  }

  private static StatementRefused wrongCount(Expression.FunctionCall f) {
    return new StatementRefused(
        ErrorMessages.wrongParameterCount(f.name().toLowerCase(Locale.ROOT)));
  }
}
