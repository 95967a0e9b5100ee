package org.binlogrelay.protocol.query;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * A statement that reads table schemas, which a binlog server cannot answer from its binlogs but
 * CDC readers (binlog libraries, Debezium-style connectors) send to their source: the metadata
 * {@code SHOW} statements and a {@code SELECT} of one {@code information_schema} table. A closed
 * list: nothing here reads table data or writes.
 *
 * <p>The relay forwards such a statement to a server that has the tables (its schema source). It
 * never forwards the client's text: {@link #sql} writes the statement again from the parsed tree,
 * every name back-quoted and every string quoted ({@link SqlQuotes}), so what the server runs is
 * exactly what the relay's parser understood (comments, executable comments and whatever followed
 * the statement are gone). Names the client left to its current database are qualified with it, and
 * {@code DATABASE()} becomes its value, because the server's connection is shared and has no
 * current database. Immutable.
 */
public sealed interface MetadataStatement {

  /**
   * The {@code information_schema} tables a {@link InformationSchemaSelect} may read: table and key
   * metadata.
   */
  Set<String> INFORMATION_SCHEMA_TABLES =
      Set.of(
          "SCHEMATA",
          "TABLES",
          "COLUMNS",
          "STATISTICS",
          "KEY_COLUMN_USAGE",
          "TABLE_CONSTRAINTS",
          "REFERENTIAL_CONSTRAINTS");

  /**
   * What writing the statement needs to know about the session it is meant for.
   *
   * @param currentDatabase the client's current database, or null if none is selected
   * @param backslashEscapes whether the server reading the text treats a backslash in a string as
   *     an escape (its {@code sql_mode} lacks {@code NO_BACKSLASH_ESCAPES})
   */
  record Rendering(String currentDatabase, boolean backslashEscapes) {}

  /**
   * True if the statement names a table or database through the client's current database (an
   * unqualified {@code SHOW TABLES}, {@code SHOW CREATE TABLE t}): it cannot be written without
   * one.
   */
  boolean usesCurrentDatabase();

  /**
   * The statement as SQL text for a server to run.
   *
   * @throws IllegalStateException if it {@linkplain #usesCurrentDatabase() uses the current
   *     database} and {@code rendering} has none
   */
  String sql(Rendering rendering);

  /** A table name, {@code [database.]table}; {@code database} null for the current one. */
  record TableName(String database, String table) {
    public TableName {
      Objects.requireNonNull(table, "table");
    }

    void render(StringBuilder out, Rendering rendering) {
      out.append(SqlQuotes.identifier(orCurrent(database, rendering)))
          .append('.')
          .append(SqlQuotes.identifier(table));
    }
  }

  /** What a {@code SHOW} keeps: everything, {@code LIKE 'pattern'} or {@code WHERE condition}. */
  sealed interface Filter {
    void render(StringBuilder out, Rendering rendering);
  }

  /** No {@code LIKE} or {@code WHERE}. */
  record All() implements Filter {
    @Override
    public void render(StringBuilder out, Rendering rendering) {}
  }

  /** {@code LIKE 'pattern'}. */
  record Like(String pattern) implements Filter {
    public Like {
      Objects.requireNonNull(pattern, "pattern");
    }

    @Override
    public void render(StringBuilder out, Rendering rendering) {
      out.append(" LIKE ").append(SqlQuotes.string(pattern, rendering.backslashEscapes()));
    }
  }

  /** {@code WHERE condition}, over the columns the {@code SHOW} outputs. */
  record Where(Condition condition) implements Filter {
    public Where {
      Objects.requireNonNull(condition, "condition");
    }

    @Override
    public void render(StringBuilder out, Rendering rendering) {
      out.append(" WHERE ");
      condition.render(out, rendering);
    }
  }

  /** {@code SHOW {DATABASES | SCHEMAS} [filter]}. */
  record ShowDatabases(Filter filter) implements MetadataStatement {
    public ShowDatabases {
      Objects.requireNonNull(filter, "filter");
    }

    @Override
    public boolean usesCurrentDatabase() {
      return false;
    }

    @Override
    public String sql(Rendering rendering) {
      StringBuilder out = new StringBuilder("SHOW DATABASES");
      filter.render(out, rendering);
      return out.toString();
    }
  }

  /**
   * {@code SHOW [EXTENDED] [FULL] TABLES [{FROM | IN} database] [filter]}; {@code database} null
   * for the current.
   */
  record ShowTables(boolean extended, boolean full, String database, Filter filter)
      implements MetadataStatement {
    public ShowTables {
      Objects.requireNonNull(filter, "filter");
    }

    @Override
    public boolean usesCurrentDatabase() {
      return database == null;
    }

    @Override
    public String sql(Rendering rendering) {
      StringBuilder out =
          new StringBuilder("SHOW ")
              .append(extended ? "EXTENDED " : "")
              .append(full ? "FULL " : "")
              .append("TABLES FROM ")
              .append(SqlQuotes.identifier(orCurrent(database, rendering)));
      filter.render(out, rendering);
      return out.toString();
    }
  }

  /** {@code SHOW TABLE STATUS [{FROM | IN} database] [filter]}. */
  record ShowTableStatus(String database, Filter filter) implements MetadataStatement {
    public ShowTableStatus {
      Objects.requireNonNull(filter, "filter");
    }

    @Override
    public boolean usesCurrentDatabase() {
      return database == null;
    }

    @Override
    public String sql(Rendering rendering) {
      StringBuilder out =
          new StringBuilder("SHOW TABLE STATUS FROM ")
              .append(SqlQuotes.identifier(orCurrent(database, rendering)));
      filter.render(out, rendering);
      return out.toString();
    }
  }

  /**
   * {@code SHOW [EXTENDED] [FULL] {COLUMNS | FIELDS} {FROM | IN} table [{FROM | IN} database]
   * [filter]}; a database after the table replaces the one in its name, as in MySQL.
   */
  record ShowColumns(boolean extended, boolean full, TableName table, Filter filter)
      implements MetadataStatement {
    public ShowColumns {
      Objects.requireNonNull(table, "table");
      Objects.requireNonNull(filter, "filter");
    }

    @Override
    public boolean usesCurrentDatabase() {
      return table.database() == null;
    }

    @Override
    public String sql(Rendering rendering) {
      StringBuilder out =
          new StringBuilder("SHOW ")
              .append(extended ? "EXTENDED " : "")
              .append(full ? "FULL " : "")
              .append("COLUMNS FROM ");
      table.render(out, rendering);
      filter.render(out, rendering);
      return out.toString();
    }
  }

  /**
   * {@code SHOW [EXTENDED] {INDEX | INDEXES | KEYS} {FROM | IN} table [{FROM | IN} database] [WHERE
   * condition]}.
   */
  record ShowIndex(boolean extended, TableName table, Filter filter) implements MetadataStatement {
    public ShowIndex {
      Objects.requireNonNull(table, "table");
      Objects.requireNonNull(filter, "filter");
      if (filter instanceof Like) {
        throw new IllegalArgumentException("SHOW INDEX takes WHERE, not LIKE");
      }
    }

    @Override
    public boolean usesCurrentDatabase() {
      return table.database() == null;
    }

    @Override
    public String sql(Rendering rendering) {
      StringBuilder out =
          new StringBuilder("SHOW ").append(extended ? "EXTENDED " : "").append("INDEX FROM ");
      table.render(out, rendering);
      filter.render(out, rendering);
      return out.toString();
    }
  }

  /** {@code SHOW CREATE TABLE table}. */
  record ShowCreateTable(TableName table) implements MetadataStatement {
    public ShowCreateTable {
      Objects.requireNonNull(table, "table");
    }

    @Override
    public boolean usesCurrentDatabase() {
      return table.database() == null;
    }

    @Override
    public String sql(Rendering rendering) {
      StringBuilder out = new StringBuilder("SHOW CREATE TABLE ");
      table.render(out, rendering);
      return out.toString();
    }
  }

  /** {@code SHOW CREATE {DATABASE | SCHEMA} [IF NOT EXISTS] database}. */
  record ShowCreateDatabase(boolean ifNotExists, String database) implements MetadataStatement {
    public ShowCreateDatabase {
      Objects.requireNonNull(database, "database");
    }

    @Override
    public boolean usesCurrentDatabase() {
      return false;
    }

    @Override
    public String sql(Rendering rendering) {
      return "SHOW CREATE DATABASE "
          + (ifNotExists ? "IF NOT EXISTS " : "")
          + SqlQuotes.identifier(database);
    }
  }

  /**
   * One item of a {@link InformationSchemaSelect}'s list: an operand and its column name. {@code
   * alias} is the name the client gave, or for an operand other than a column the text it wrote
   * (the server names such a column after its text, which the relay writes differently); null for a
   * column without alias.
   */
  record Projection(Operand operand, String alias) {
    public Projection {
      Objects.requireNonNull(operand, "operand");
    }
  }

  /** One {@code ORDER BY} key. */
  record Order(Operand key, boolean descending) {
    public Order {
      Objects.requireNonNull(key, "key");
    }
  }

  /**
   * {@code SELECT [DISTINCT] {* | projection, ...} FROM information_schema.table [[AS] alias]
   * [WHERE condition] [ORDER BY key [ASC | DESC], ...] [LIMIT [offset,] count | LIMIT count OFFSET
   * offset]}: one table of {@link #INFORMATION_SCHEMA_TABLES}, no join, subquery, variable or
   * function beyond {@link Operand}'s.
   *
   * @param projections the select list; empty for {@code *}
   * @param table the information_schema table, upper case
   * @param alias the table's alias, or null
   * @param where the condition, or null
   * @param limit the row count, -1 for none
   * @param offset rows skipped, 0 for none
   */
  record InformationSchemaSelect(
      boolean distinct,
      List<Projection> projections,
      String table,
      String alias,
      Condition where,
      List<Order> orderBy,
      long limit,
      long offset)
      implements MetadataStatement {
    public InformationSchemaSelect {
      projections = List.copyOf(projections);
      orderBy = List.copyOf(orderBy);
      table = table.toUpperCase(Locale.ROOT);
      if (!INFORMATION_SCHEMA_TABLES.contains(table)) {
        throw new IllegalArgumentException(
            "information_schema." + table + " is not a metadata table the relay reads");
      }
      if (limit < -1 || offset < 0 || (limit == -1 && offset > 0)) {
        throw new IllegalArgumentException("LIMIT " + limit + " OFFSET " + offset);
      }
    }

    @Override
    public boolean usesCurrentDatabase() {
      return false;
    }

    @Override
    public String sql(Rendering rendering) {
      StringBuilder out = new StringBuilder("SELECT ").append(distinct ? "DISTINCT " : "");
      if (projections.isEmpty()) {
        out.append('*');
      }
      for (int i = 0; i < projections.size(); i++) {
        Projection p = projections.get(i);
        out.append(i > 0 ? ", " : "");
        p.operand().render(out, rendering);
        if (p.alias() != null) {
          out.append(" AS ").append(SqlQuotes.identifier(p.alias()));
        }
      }
      out.append(" FROM `information_schema`.").append(SqlQuotes.identifier(table));
      if (alias != null) {
        out.append(" AS ").append(SqlQuotes.identifier(alias));
      }
      if (where != null) {
        out.append(" WHERE ");
        where.render(out, rendering);
      }
      for (int i = 0; i < orderBy.size(); i++) {
        out.append(i == 0 ? " ORDER BY " : ", ");
        orderBy.get(i).key().render(out, rendering);
        out.append(orderBy.get(i).descending() ? " DESC" : " ASC");
      }
      if (limit >= 0) {
        out.append(" LIMIT ").append(limit);
        if (offset > 0) {
          out.append(" OFFSET ").append(offset);
        }
      }
      return out.toString();
    }
  }

  /** {@code name}, else the current database of {@code rendering}. */
  private static String orCurrent(String name, Rendering rendering) {
    if (name != null) {
      return name;
    }
    if (rendering.currentDatabase() == null) {
      throw new IllegalStateException("no database selected");
    }
    return rendering.currentDatabase();
  }
}
