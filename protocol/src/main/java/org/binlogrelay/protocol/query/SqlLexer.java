package org.binlogrelay.protocol.query;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits one statement into {@link Token}s the way MySQL's lexer does for the small language
 * replicas and tools speak:
 *
 * <ul>
 *   <li>comments: <code>/* ... *&#47;</code>, {@code -- } (two dashes and a space or control
 *       character), {@code #} to the end of the line, and <code>/*+ ... *&#47;</code> optimizer
 *       hints;
 *   <li>executable comments <code>/*!NNNNN ... *&#47;</code> (5 or 6 version digits, or none): the
 *       content is read as SQL when the version is at most the server's, skipped otherwise; <code>
 *       /*M!NNNNNN ... *&#47;</code> likewise, but only by a MariaDB server;
 *   <li>strings in {@code '...'} or {@code "..."} with doubled quotes and backslash escapes ({@code
 *       \0 \b \n \r \t \Z}; {@code \%} and {@code \_} keep their backslash for LIKE); adjacent
 *       strings join;
 *   <li>back-quoted identifiers with doubled back-quotes; {@code @var}, {@code @'var'}, {@code @@};
 * </ul>
 *
 * Hard limits: at most {@code maxTokens} tokens, so a hostile statement costs bounded memory. Not
 * thread-safe; one instance per statement.
 */
public final class SqlLexer {
  private final String sql;
  private final int serverVersion;
  private final boolean mariadb;
  private final int maxTokens;
  private final List<Token> tokens = new ArrayList<>();
  private int pos;
  private int line = 1;
  private boolean inExecutableComment;

  /**
   * @param sql the statement
   * @param serverVersion the server version as MySQL numbers it for executable comments (8.4.0 =
   *     80400, 10.11.6 = 101106)
   * @param mariadb whether {@code /*M!} comments are executed
   * @param maxTokens the most tokens accepted
   */
  public SqlLexer(String sql, int serverVersion, boolean mariadb, int maxTokens) {
    this.sql = sql;
    this.serverVersion = serverVersion;
    this.mariadb = mariadb;
    this.maxTokens = maxTokens;
  }

  /**
   * The tokens, ending with one {@link TokenType#END}; {@link SqlSyntaxError} on an unterminated
   * string.
   */
  public List<Token> tokenize() {
    while (true) {
      skipSpaceAndComments();
      if (pos >= sql.length()) {
        add(TokenType.END, "", pos, pos, line);
        return tokens;
      }
      if (tokens.size() >= maxTokens) {
        throw new SqlSyntaxError(
            "statement has more than " + maxTokens + " tokens", rest(pos), line);
      }
      next();
    }
  }

  private void next() {
    int start = pos;
    int startLine = line;
    char c = sql.charAt(pos);
    if (c == '\'' || c == '"') {
      StringBuilder value = new StringBuilder();
      int end;
      while (true) {
        readQuoted(sql.charAt(pos), value);
        end = pos;
        int savedPos = pos;
        int savedLine = line;
        boolean savedComment = inExecutableComment;
        skipSpaceAndComments();
        if (pos < sql.length() && (sql.charAt(pos) == '\'' || sql.charAt(pos) == '"')) {
          continue; // 'a' 'b' is 'ab'
        }
        pos = savedPos;
        line = savedLine;
        inExecutableComment = savedComment;
        break;
      }
      add(TokenType.STRING, value.toString(), start, end, startLine);
      return;
    }
    if (c == '`') {
      add(TokenType.QUOTED_IDENTIFIER, readBackQuoted(), start, pos, startLine);
      return;
    }
    if (c == '@') {
      if (peek(1) == '@') {
        pos += 2;
        add(TokenType.AT_AT, "@@", start, pos, startLine);
        return;
      }
      pos++;
      String name;
      char q = pos < sql.length() ? sql.charAt(pos) : 0;
      if (q == '\'' || q == '"') {
        StringBuilder value = new StringBuilder();
        readQuoted(q, value);
        name = value.toString();
      } else if (q == '`') {
        name = readBackQuoted();
      } else {
        int from = pos;
        while (pos < sql.length() && isVariableChar(sql.charAt(pos))) {
          pos++;
        }
        name = sql.substring(from, pos);
      }
      add(TokenType.USER_VARIABLE, name, start, pos, startLine);
      return;
    }
    if (isDigit(c) || (c == '.' && isDigit(peek(1)))) {
      readNumberOrWord(start, startLine);
      return;
    }
    if (isWordChar(c)) {
      while (pos < sql.length() && isWordChar(sql.charAt(pos))) {
        pos++;
      }
      add(TokenType.WORD, sql.substring(start, pos), start, pos, startLine);
      return;
    }
    pos++;
    switch (c) {
      case ',':
        add(TokenType.COMMA, ",", start, pos, startLine);
        break;
      case '(':
        add(TokenType.LEFT_PAREN, "(", start, pos, startLine);
        break;
      case ')':
        add(TokenType.RIGHT_PAREN, ")", start, pos, startLine);
        break;
      case '=':
        add(TokenType.EQUALS, "=", start, pos, startLine);
        break;
      case '.':
        add(TokenType.DOT, ".", start, pos, startLine);
        break;
      case ';':
        add(TokenType.SEMICOLON, ";", start, pos, startLine);
        break;
      case '*':
        add(TokenType.STAR, "*", start, pos, startLine);
        break;
      case '-':
        add(TokenType.MINUS, "-", start, pos, startLine);
        break;
      case '+':
        add(TokenType.PLUS, "+", start, pos, startLine);
        break;
      case ':':
        if (peek(0) == '=') {
          pos++;
          add(TokenType.ASSIGN, ":=", start, pos, startLine);
          break;
        }
        add(TokenType.SYMBOL, ":", start, pos, startLine);
        break;
      case '<':
      case '>':
      case '!':
      case '|':
      case '&':
        operator(c, start, startLine);
        break;
      default:
        add(TokenType.SYMBOL, String.valueOf(c), start, pos, startLine);
    }
  }

  /**
   * Comparison and logical operators of two or three characters ({@code <=>}, {@code <>}, {@code
   * !=}, ...).
   */
  private void operator(char c, int start, int startLine) {
    String two = String.valueOf(c) + peek(0);
    if (two.equals("<=") && peek(1) == '>') {
      pos += 2;
      add(TokenType.SYMBOL, "<=>", start, pos, startLine);
      return;
    }
    switch (two) {
      case "<=":
      case ">=":
      case "<>":
      case "!=":
      case "||":
      case "&&":
      case "<<":
      case ">>":
        pos++;
        add(TokenType.SYMBOL, two, start, pos, startLine);
        return;
      default:
        add(TokenType.SYMBOL, String.valueOf(c), start, pos, startLine);
    }
  }

  private void readNumberOrWord(int start, int startLine) {
    if (sql.charAt(pos) == '0' && (peek(1) == 'x' || peek(1) == 'X') && isHex(peek(2))) {
      pos += 2;
      while (pos < sql.length() && isHex(sql.charAt(pos))) {
        pos++;
      }
    } else {
      while (pos < sql.length() && isDigit(sql.charAt(pos))) {
        pos++;
      }
      if (pos < sql.length() && sql.charAt(pos) == '.') {
        pos++;
        while (pos < sql.length() && isDigit(sql.charAt(pos))) {
          pos++;
        }
      }
      if (pos < sql.length()
          && (sql.charAt(pos) == 'e' || sql.charAt(pos) == 'E')
          && (isDigit(peek(1)) || ((peek(1) == '-' || peek(1) == '+') && isDigit(peek(2))))) {
        pos += 2;
        while (pos < sql.length() && isDigit(sql.charAt(pos))) {
          pos++;
        }
      }
    }
    if (pos < sql.length() && isWordChar(sql.charAt(pos))) {
      // An identifier that starts with digits, such as 1abc: MySQL allows those.
      while (pos < sql.length() && isWordChar(sql.charAt(pos))) {
        pos++;
      }
      add(TokenType.WORD, sql.substring(start, pos), start, pos, startLine);
      return;
    }
    add(TokenType.NUMBER, sql.substring(start, pos), start, pos, startLine);
  }

  private void readQuoted(char quote, StringBuilder value) {
    int start = pos;
    int startLine = line;
    pos++;
    while (pos < sql.length()) {
      char c = sql.charAt(pos++);
      if (c == '\n') {
        line++;
      }
      if (c == quote) {
        if (pos < sql.length() && sql.charAt(pos) == quote) {
          value.append(quote);
          pos++;
          continue;
        }
        return;
      }
      if (c == '\\' && pos < sql.length()) {
        char e = sql.charAt(pos++);
        switch (e) {
          case '0':
            value.append('\0');
            break;
          case 'b':
            value.append('\b');
            break;
          case 'n':
            value.append('\n');
            break;
          case 'r':
            value.append('\r');
            break;
          case 't':
            value.append('\t');
            break;
          case 'Z':
            value.append('\u001a');
            break;
          case '%':
          case '_':
            value.append('\\').append(e);
            break;
          default:
            if (e == '\n') {
              line++;
            }
            value.append(e);
        }
        continue;
      }
      value.append(c);
    }
    throw new SqlSyntaxError("unterminated string", rest(start), startLine);
  }

  private String readBackQuoted() {
    int start = pos;
    int startLine = line;
    StringBuilder value = new StringBuilder();
    pos++;
    while (pos < sql.length()) {
      char c = sql.charAt(pos++);
      if (c == '\n') {
        line++;
      }
      if (c == '`') {
        if (pos < sql.length() && sql.charAt(pos) == '`') {
          value.append('`');
          pos++;
          continue;
        }
        return value.toString();
      }
      value.append(c);
    }
    throw new SqlSyntaxError("unterminated quoted identifier", rest(start), startLine);
  }

  private void skipSpaceAndComments() {
    while (pos < sql.length()) {
      char c = sql.charAt(pos);
      if (c == '\n') {
        line++;
        pos++;
      } else if (Character.isWhitespace(c)) {
        pos++;
      } else if (c == '#') {
        skipToEndOfLine();
      } else if (c == '-' && peek(1) == '-' && (pos + 2 >= sql.length() || peek(2) <= ' ')) {
        skipToEndOfLine();
      } else if (c == '*' && peek(1) == '/' && inExecutableComment) {
        inExecutableComment = false;
        pos += 2;
      } else if (c == '/' && peek(1) == '*') {
        if (!openComment()) {
          return;
        }
      } else {
        return;
      }
    }
  }

  /**
   * At {@code /*}: skips a comment, or enters an executable one; false if the text is not a comment
   * after all.
   */
  private boolean openComment() {
    int start = pos;
    int at = pos + 2;
    boolean mariadbOnly = false;
    if (at < sql.length()
        && sql.charAt(at) == 'M'
        && at + 1 < sql.length()
        && sql.charAt(at + 1) == '!') {
      mariadbOnly = true;
      at++;
    }
    if (at < sql.length() && sql.charAt(at) == '!' && !inExecutableComment) {
      at++;
      int digits = 0;
      while (at + digits < sql.length() && isDigit(sql.charAt(at + digits)) && digits < 6) {
        digits++;
      }
      int versionDigits = digits >= 6 ? 6 : digits >= 5 ? 5 : 0;
      int version =
          versionDigits == 0 ? 0 : Integer.parseInt(sql.substring(at, at + versionDigits));
      boolean run = version <= serverVersion && (!mariadbOnly || mariadb);
      if (run) {
        inExecutableComment = true;
        pos = at + versionDigits;
        return true;
      }
    }
    int close = sql.indexOf("*/", start + 2);
    if (close < 0) {
      throw new SqlSyntaxError("unterminated comment", rest(start), line);
    }
    for (int i = start; i < close; i++) {
      if (sql.charAt(i) == '\n') {
        line++;
      }
    }
    pos = close + 2;
    return true;
  }

  private void skipToEndOfLine() {
    while (pos < sql.length() && sql.charAt(pos) != '\n') {
      pos++;
    }
  }

  private void add(TokenType type, String value, int start, int end, int tokenLine) {
    tokens.add(new Token(type, value, start, end, tokenLine));
  }

  private char peek(int ahead) {
    int at = pos + ahead;
    return at < sql.length() ? sql.charAt(at) : 0;
  }

  private String rest(int from) {
    return sql.substring(from, Math.min(sql.length(), from + SqlSyntaxError.NEAR_LIMIT));
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private static boolean isHex(char c) {
    return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }

  private static boolean isWordChar(char c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || isDigit(c)
        || c == '_'
        || c == '$'
        || c >= 0x80;
  }

  private static boolean isVariableChar(char c) {
    return isWordChar(c) || c == '.';
  }
}
