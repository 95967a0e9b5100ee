package org.binlogrelay.e2e.downstream;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What one client said to a real server on one connection and how the server answered, as stored in
 * {@code src/test/resources/transcripts/*.txt}. The file format, one item per line:
 *
 * <pre>
 *   # free text                         comments: what was captured and how
 *   &gt; COM_QUERY SELECT UNIX_TIMESTAMP()   something the client sent
 *   &lt; RESULT UNIX_TIMESTAMP():LONGLONG:63:21:0x0081:0   the server's answer, one or more lines
 *   &lt; ROW 1795321542
 *   &lt; END
 * </pre>
 *
 * Client lines: {@code HANDSHAKE_RESPONSE ...}, {@code AUTH ...}, {@code COM_QUERY sql}, {@code
 * COM_REGISTER_SLAVE ...}, {@code COM_BINLOG_DUMP ...}, {@code COM_BINLOG_DUMP_GTID ...}, other
 * {@code COM_*}. Server lines: {@code GREETING}, {@code AUTH_SWITCH}, {@code AUTH_MORE_DATA},
 * {@code OK}, {@code ERR code state message}, {@code RESULT} (tab-separated {@code
 * name:TYPE:charset:length:flags:decimals}), {@code ROW} (tab-separated values), {@code END},
 * {@code EVENT type}, {@code EOF}. Values escape backslash, tab and newline as {@code \\ \t \n};
 * SQL NULL is {@code \N}.
 *
 * <p>Immutable.
 */
public record Transcript(String name, List<String> comments, List<Exchange> exchanges) {

  /** One thing the client sent and the server's lines in answer (possibly none). */
  public record Exchange(String request, List<String> response) {
    public Exchange {
      response = List.copyOf(response);
    }

    /** The first word of the request, e.g. {@code COM_QUERY}. */
    public String kind() {
      int space = request.indexOf(' ');
      return space < 0 ? request : request.substring(0, space);
    }

    /** The request after its first word. */
    public String argument() {
      int space = request.indexOf(' ');
      return space < 0 ? "" : request.substring(space + 1);
    }
  }

  public Transcript {
    comments = List.copyOf(comments);
    exchanges = List.copyOf(exchanges);
  }

  public List<Exchange> exchangesOf(String kind) {
    return exchanges.stream().filter(e -> e.kind().equals(kind)).toList();
  }

  public String format() {
    StringBuilder out = new StringBuilder();
    for (String comment : comments) {
      out.append("# ").append(comment).append('\n');
    }
    for (Exchange exchange : exchanges) {
      out.append("> ").append(exchange.request()).append('\n');
      for (String line : exchange.response()) {
        out.append("< ").append(line).append('\n');
      }
    }
    return out.toString();
  }

  public static Transcript parse(String name, String text) {
    List<String> comments = new ArrayList<>();
    List<Exchange> exchanges = new ArrayList<>();
    String request = null;
    List<String> response = new ArrayList<>();
    int lineNumber = 0;
    for (String line : text.split("\n", -1)) {
      lineNumber++;
      if (line.isEmpty()) {
        continue;
      }
      if (line.startsWith("# ") || line.equals("#")) {
        comments.add(line.length() > 2 ? line.substring(2) : "");
      } else if (line.startsWith("> ")) {
        if (request != null) {
          exchanges.add(new Exchange(request, response));
        }
        request = line.substring(2);
        response = new ArrayList<>();
      } else if (line.startsWith("< ")) {
        if (request == null) {
          response.add(line.substring(2));
          request = "(server first)";
        } else {
          response.add(line.substring(2));
        }
      } else {
        throw new IllegalArgumentException(
            "Transcript "
                + name
                + " line "
                + lineNumber
                + ": expected '# ', '> ' or '< ', got: "
                + line);
      }
    }
    if (request != null) {
      exchanges.add(new Exchange(request, response));
    }
    return new Transcript(name, comments, exchanges);
  }

  public static Transcript read(Path file) {
    try {
      return parse(file.getFileName().toString(), Files.readString(file, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read transcript " + file, e);
    }
  }

  public void write(Path file) {
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, format(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write transcript " + file, e);
    }
  }

  /** Escapes a value for a transcript line; null becomes {@code \N}. */
  public static String escape(String value) {
    if (value == null) {
      return "\\N";
    }
    StringBuilder out = new StringBuilder(value.length());
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '\\' -> out.append("\\\\");
        case '\t' -> out.append("\\t");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        default -> out.append(c);
      }
    }
    return out.toString();
  }

  /** The inverse of {@link #escape}. */
  public static String unescape(String text) {
    if (text.equals("\\N")) {
      return null;
    }
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\\' && i + 1 < text.length()) {
        char e = text.charAt(++i);
        out.append(
            switch (e) {
              case 't' -> '\t';
              case 'n' -> '\n';
              case 'r' -> '\r';
              default -> e;
            });
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }
}
