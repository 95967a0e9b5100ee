package org.binlogrelay.protocol.query;

import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The {@code WHERE} of a metadata statement ({@link MetadataStatement}): comparisons, {@code LIKE},
 * {@code IN}, {@code IS NULL} of {@link Operand}s, joined with {@code AND}, {@code OR} and {@code
 * NOT}. Rendered fully parenthesised, so the text means what the tree says whatever the precedence
 * rules. Immutable.
 */
public sealed interface Condition {

  /** The comparison operators, as written in SQL. */
  Set<String> OPERATORS = Set.of("=", "<=>", "<>", "!=", "<", "<=", ">", ">=");

  /** Appends this condition as SQL text. */
  void render(StringBuilder out, MetadataStatement.Rendering rendering);

  /** {@code a OR b OR ...}. */
  record Or(List<Condition> terms) implements Condition {
    public Or {
      terms = List.copyOf(terms);
      if (terms.size() < 2) {
        throw new IllegalArgumentException("OR of " + terms.size() + " terms");
      }
    }

    @Override
    public void render(StringBuilder out, MetadataStatement.Rendering rendering) {
      join(out, rendering, terms, " OR ");
    }
  }

  /** {@code a AND b AND ...}. */
  record And(List<Condition> terms) implements Condition {
    public And {
      terms = List.copyOf(terms);
      if (terms.size() < 2) {
        throw new IllegalArgumentException("AND of " + terms.size() + " terms");
      }
    }

    @Override
    public void render(StringBuilder out, MetadataStatement.Rendering rendering) {
      join(out, rendering, terms, " AND ");
    }
  }

  /** {@code NOT a}. */
  record Not(Condition term) implements Condition {
    public Not {
      Objects.requireNonNull(term, "term");
    }

    @Override
    public void render(StringBuilder out, MetadataStatement.Rendering rendering) {
      out.append("(NOT ");
      term.render(out, rendering);
      out.append(')');
    }
  }

  /** {@code left operator right}, {@code operator} one of {@link #OPERATORS}. */
  record Comparison(Operand left, String operator, Operand right) implements Condition {
    public Comparison {
      Objects.requireNonNull(left, "left");
      Objects.requireNonNull(right, "right");
      if (!OPERATORS.contains(operator)) {
        throw new IllegalArgumentException("not a comparison operator: " + operator);
      }
    }

    @Override
    public void render(StringBuilder out, MetadataStatement.Rendering rendering) {
      out.append('(');
      left.render(out, rendering);
      out.append(' ').append(operator).append(' ');
      right.render(out, rendering);
      out.append(')');
    }
  }

  /** {@code value [NOT] LIKE pattern [ESCAPE escape]}; {@code escape} may be null. */
  record Like(Operand value, boolean negated, Operand pattern, Operand escape)
      implements Condition {
    public Like {
      Objects.requireNonNull(value, "value");
      Objects.requireNonNull(pattern, "pattern");
    }

    @Override
    public void render(StringBuilder out, MetadataStatement.Rendering rendering) {
      out.append('(');
      value.render(out, rendering);
      out.append(negated ? " NOT LIKE " : " LIKE ");
      pattern.render(out, rendering);
      if (escape != null) {
        out.append(" ESCAPE ");
        escape.render(out, rendering);
      }
      out.append(')');
    }
  }

  /** {@code value [NOT] IN (v1, v2, ...)}. */
  record In(Operand value, boolean negated, List<Operand> values) implements Condition {
    public In {
      Objects.requireNonNull(value, "value");
      values = List.copyOf(values);
      if (values.isEmpty()) {
        throw new IllegalArgumentException("IN of an empty list");
      }
    }

    @Override
    public void render(StringBuilder out, MetadataStatement.Rendering rendering) {
      out.append('(');
      value.render(out, rendering);
      out.append(negated ? " NOT IN (" : " IN (");
      for (int i = 0; i < values.size(); i++) {
        if (i > 0) {
          out.append(", ");
        }
        values.get(i).render(out, rendering);
      }
      out.append("))");
    }
  }

  /** {@code value IS [NOT] NULL}. */
  record IsNull(Operand value, boolean negated) implements Condition {
    public IsNull {
      Objects.requireNonNull(value, "value");
    }

    @Override
    public void render(StringBuilder out, MetadataStatement.Rendering rendering) {
      out.append('(');
      value.render(out, rendering);
      out.append(negated ? " IS NOT NULL)" : " IS NULL)");
    }
  }

  private static void join(
      StringBuilder out,
      MetadataStatement.Rendering rendering,
      List<Condition> terms,
      String separator) {
    out.append('(');
    for (int i = 0; i < terms.size(); i++) {
      if (i > 0) {
        out.append(separator);
      }
      terms.get(i).render(out, rendering);
    }
    out.append(')');
  }
}
