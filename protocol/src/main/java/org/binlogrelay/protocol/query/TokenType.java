package org.binlogrelay.protocol.query;

/** Kinds of {@link Token}. */
public enum TokenType {
  /** A bare word: keyword or identifier, value as written. */
  WORD,
  /** A back-quoted identifier, value unquoted. */
  QUOTED_IDENTIFIER,
  /** A '...' or "..." string, value unescaped (adjacent strings joined). */
  STRING,
  /** An integer or decimal number, value as written. */
  NUMBER,
  /** {@code @name}, value is the name. */
  USER_VARIABLE,
  /** {@code @@}: a system variable follows. */
  AT_AT,
  COMMA,
  LEFT_PAREN,
  RIGHT_PAREN,
  EQUALS,
  /** {@code :=}. */
  ASSIGN,
  DOT,
  SEMICOLON,
  STAR,
  MINUS,
  PLUS,
  /** Any other operator character, value as written. */
  SYMBOL,
  /** End of the statement. */
  END
}
