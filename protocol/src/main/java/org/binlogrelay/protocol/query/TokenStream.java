package org.binlogrelay.protocol.query;

import java.util.List;
import java.util.Locale;

/**
 * The parsers' cursor over one statement's tokens: look ahead, accept, expect, and the two ways a
 * statement is refused, a {@link SqlSyntaxError} quoting the text from the failing token on
 * (MySQL's ER_PARSE_ERROR) or an {@link UnsupportedSyntax} naming a construct of MySQL's grammar
 * the server does not execute. Not thread-safe; one per statement.
 */
final class TokenStream {
  private final String sql;
  private final List<Token> tokens;
  private int at;

  TokenStream(String sql, List<Token> tokens) {
    this.sql = sql;
    this.tokens = tokens;
  }

  /** Valid SQL the server does not execute; {@code what} names it ("JOIN", "CREATE TABLE"). */
  static final class UnsupportedSyntax extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UnsupportedSyntax(String what) {
      super(what, null, false, false);
    }
  }

  String sql() {
    return sql;
  }

  Token peek() {
    return tokens.get(at);
  }

  /** The token {@code ahead} places on, or the END token past the end. */
  Token peek(int ahead) {
    return tokens.get(Math.min(at + ahead, tokens.size() - 1));
  }

  /** The token just consumed. */
  Token previous() {
    return tokens.get(at - 1);
  }

  Token next() {
    Token t = tokens.get(at);
    if (t.type() != TokenType.END) {
      at++;
    }
    return t;
  }

  boolean peekWord(String keyword) {
    return peek().isWord(keyword);
  }

  boolean peekSymbol(String symbol) {
    return peek().type() == TokenType.SYMBOL && peek().value().equals(symbol);
  }

  boolean atEnd() {
    return peek().type() == TokenType.END;
  }

  boolean accept(TokenType type) {
    if (peek().type() == type) {
      at++;
      return true;
    }
    return false;
  }

  boolean acceptWord(String keyword) {
    if (peekWord(keyword)) {
      at++;
      return true;
    }
    return false;
  }

  boolean acceptSymbol(String symbol) {
    if (peekSymbol(symbol)) {
      at++;
      return true;
    }
    return false;
  }

  Token expect(TokenType type, String what) {
    Token t = peek();
    if (t.type() != type) {
      throw error(t, "expected " + what);
    }
    at++;
    return t;
  }

  void expectWord(String keyword) {
    if (!acceptWord(keyword)) {
      throw error(peek(), "expected " + keyword);
    }
  }

  /** The next token as an upper-case keyword, "" if it is not a bare word. */
  String peekKeyword() {
    Token t = peek();
    return t.type() == TokenType.WORD ? t.value().toUpperCase(Locale.ROOT) : "";
  }

  /** An identifier: a bare word or a back-quoted name. */
  String identifier(String what) {
    Token t = peek();
    if (t.type() == TokenType.WORD || t.type() == TokenType.QUOTED_IDENTIFIER) {
      at++;
      return t.value();
    }
    throw error(t, "expected " + what);
  }

  /**
   * A name given as an identifier or a string ({@code SHOW SLAVE 'name' STATUS}, {@code FOR CHANNEL
   * 'c'}).
   */
  String name(String what) {
    Token t = peek();
    if (t.type() == TokenType.STRING) {
      at++;
      return t.value();
    }
    return identifier(what);
  }

  /** {@code [schema.]table}. */
  TableName tableName() {
    String first = identifier("a table name");
    if (peek().type() == TokenType.DOT) {
      at++;
      return new TableName(first, identifier("a table name"));
    }
    return new TableName(null, first);
  }

  /** A non-negative integer literal. */
  long count(String what) {
    Token n = expect(TokenType.NUMBER, what);
    try {
      long v = Long.parseLong(n.value());
      if (v >= 0) {
        return v;
      }
    } catch (NumberFormatException e) {
      // fall through
    }
    throw error(n, "expected " + what);
  }

  SqlSyntaxError error(Token t, String reason) {
    return new SqlSyntaxError(reason, sql.substring(Math.min(t.start(), sql.length())), t.line());
  }

  UnsupportedSyntax unsupported(String what) {
    return new UnsupportedSyntax(what);
  }
}
