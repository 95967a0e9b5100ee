package org.binlogrelay.protocol.query;

import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * A value in a metadata statement's condition, select list or ORDER BY ({@link MetadataStatement}):
 * a column of the statement's one table, a literal, or one of a few functions without side effects.
 * Nothing else: no variables, no subqueries, no function that reads data or state ({@code
 * LOAD_FILE}, {@code SLEEP}, ...). Immutable.
 */
public sealed interface Operand {

  /** Functions of one argument an operand may call. */
  Set<String> ONE_ARGUMENT_FUNCTIONS = Set.of("LOWER", "UPPER", "LCASE", "UCASE");

  /** Appends this operand as SQL text. */
  void render(StringBuilder out, MetadataStatement.Rendering rendering);

  /**
   * A column, {@code [qualifier.]name}, written back-quoted as given (the server checks that it
   * exists).
   */
  record Column(String qualifier, String name) implements Operand {
    public Column {
      Objects.requireNonNull(name, "name");
    }

    @Override
    public void render(StringBuilder out, MetadataStatement.Rendering rendering) {
      if (qualifier != null) {
        out.append(SqlQuotes.identifier(qualifier)).append('.');
      }
      out.append(SqlQuotes.identifier(name));
    }
  }

  /** A string literal. */
  record Text(String value) implements Operand {
    public Text {
      Objects.requireNonNull(value, "value");
    }

    @Override
    public void render(StringBuilder out, MetadataStatement.Rendering rendering) {
      out.append(SqlQuotes.string(value, rendering.backslashEscapes()));
    }
  }

  /**
   * A number as written: digits, an optional sign, point and exponent ({@link SqlLexer}'s NUMBER).
   */
  record Numeral(String text) implements Operand {
    public Numeral {
      if (!text.matches("[-+]?(0x[0-9a-fA-F]+|([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?)")) {
        throw new IllegalArgumentException("not a number: " + text);
      }
    }

    @Override
    public void render(StringBuilder out, MetadataStatement.Rendering rendering) {
      out.append(text);
    }
  }

  /** {@code NULL}, {@code TRUE} or {@code FALSE}. */
  record Keyword(String word) implements Operand {
    public Keyword {
      if (!Set.of("NULL", "TRUE", "FALSE").contains(word)) {
        throw new IllegalArgumentException("not NULL, TRUE or FALSE: " + word);
      }
    }

    @Override
    public void render(StringBuilder out, MetadataStatement.Rendering rendering) {
      out.append(word);
    }
  }

  /**
   * {@code DATABASE()} or {@code SCHEMA()}: the client's current database, which the relay knows
   * and the server it asks does not (its connection is shared), so it is written as a literal, or
   * NULL when none is selected.
   */
  record CurrentDatabase() implements Operand {
    @Override
    public void render(StringBuilder out, MetadataStatement.Rendering rendering) {
      String database = rendering.currentDatabase();
      out.append(
          database == null ? "NULL" : SqlQuotes.string(database, rendering.backslashEscapes()));
    }
  }

  /** {@code LOWER(x)}, {@code UPPER(x)} and their synonyms. */
  record Call(String function, Operand argument) implements Operand {
    public Call {
      function = function.toUpperCase(Locale.ROOT);
      if (!ONE_ARGUMENT_FUNCTIONS.contains(function)) {
        throw new IllegalArgumentException("function " + function + " is not allowed");
      }
      Objects.requireNonNull(argument, "argument");
    }

    @Override
    public void render(StringBuilder out, MetadataStatement.Rendering rendering) {
      out.append(function).append('(');
      argument.render(out, rendering);
      out.append(')');
    }
  }

  /**
   * {@code COUNT(*)} ({@code argument} null) or {@code COUNT([DISTINCT] x)}; in a select list only.
   */
  record Count(boolean distinct, Operand argument) implements Operand {
    public Count {
      if (distinct && argument == null) {
        throw new IllegalArgumentException("COUNT(DISTINCT *) is not SQL");
      }
    }

    @Override
    public void render(StringBuilder out, MetadataStatement.Rendering rendering) {
      out.append("COUNT(");
      if (argument == null) {
        out.append('*');
      } else {
        out.append(distinct ? "DISTINCT " : "");
        argument.render(out, rendering);
      }
      out.append(')');
    }
  }
}
