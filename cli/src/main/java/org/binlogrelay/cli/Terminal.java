package org.binlogrelay.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Where standard output goes: a terminal (redraw in place with ANSI escapes) or not (a file, a
 * pipe), and how many columns it has. Implementations are thread-safe.
 */
public interface Terminal {
  /** Columns used when the width cannot be found out. */
  int DEFAULT_WIDTH = 80;

  /** True when standard output is a terminal that understands ANSI escapes. */
  boolean interactive();

  /** Columns now (a terminal can be resized between refreshes). */
  int width();

  /** A terminal of fixed properties, for tests and for output that is not a terminal. */
  static Terminal fixed(boolean interactive, int width) {
    return new Terminal() {
      @Override
      public boolean interactive() {
        return interactive;
      }

      @Override
      public int width() {
        return width;
      }
    };
  }

  /**
   * The process's own: interactive when the JVM has a console (standard input and output are a
   * terminal) and {@code TERM} is not {@code dumb}; the width from {@code COLUMNS}, else from
   * {@code stty size} on {@code /dev/tty}, else {@link #DEFAULT_WIDTH}.
   */
  // Java 17, the release the build targets, has no Console.isTerminal(): console() is null without
  // a terminal.
  @SuppressWarnings("SystemConsoleNull")
  static Terminal system() {
    boolean interactive = System.console() != null && !"dumb".equals(System.getenv("TERM"));
    return new Terminal() {
      @Override
      public boolean interactive() {
        return interactive;
      }

      @Override
      public int width() {
        String columns = System.getenv("COLUMNS");
        if (columns != null && columns.matches("\\d{1,4}") && Integer.parseInt(columns) > 0) {
          return Integer.parseInt(columns);
        }
        return interactive ? sttyWidth() : DEFAULT_WIDTH;
      }
    };
  }

  private static int sttyWidth() {
    Path tty = Path.of("/dev/tty");
    if (!Files.isReadable(tty)) {
      return DEFAULT_WIDTH;
    }
    try {
      Process stty =
          new ProcessBuilder("stty", "size")
              .redirectInput(tty.toFile())
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      String answer =
          new String(stty.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
      if (!stty.waitFor(2, TimeUnit.SECONDS) || stty.exitValue() != 0) {
        stty.destroyForcibly();
        return DEFAULT_WIDTH;
      }
      String[] rowsColumns = answer.split("\\s+");
      int width =
          rowsColumns.length == 2 && rowsColumns[1].matches("\\d{1,4}")
              ? Integer.parseInt(rowsColumns[1])
              : 0;
      return width > 0 ? width : DEFAULT_WIDTH;
    } catch (IOException e) {
      return DEFAULT_WIDTH;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return DEFAULT_WIDTH;
    }
  }
}
