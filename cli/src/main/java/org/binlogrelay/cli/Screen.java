package org.binlogrelay.cli;

import java.io.PrintWriter;
import java.util.List;

/**
 * Draws successive frames of lines. On a terminal each frame replaces the last one in place (cursor
 * up over the previous frame, each line rewritten and erased to its end, leftovers below erased;
 * the cursor hidden meanwhile and shown again by {@link #close()}). Otherwise frames follow one
 * another, separated by a blank line, so that a log or a pipe keeps them all. Lines are cut to the
 * width so that nothing wraps and the line count stays true. Thread-safe: {@link #close()} may come
 * from a shutdown hook while a frame is drawn.
 */
final class Screen implements AutoCloseable {
  static final String HIDE_CURSOR = "\u001b[?25l";
  static final String SHOW_CURSOR = "\u001b[?25h";
  static final String ERASE_LINE_END = "\u001b[K";
  static final String ERASE_BELOW = "\u001b[J";

  private final PrintWriter out;
  private final boolean interactive;
  private int drawn;
  private boolean cursorHidden;
  private boolean closed;

  Screen(PrintWriter out, boolean interactive) {
    this.out = out;
    this.interactive = interactive;
  }

  synchronized void draw(List<String> lines, int width) {
    if (closed) {
      return;
    }
    StringBuilder frame = new StringBuilder();
    if (interactive) {
      if (!cursorHidden) {
        frame.append(HIDE_CURSOR);
        cursorHidden = true;
      }
      if (drawn > 0) {
        frame.append('\r').append("\u001b[").append(drawn).append('A');
      }
      for (String line : lines) {
        frame.append(cut(line, width)).append(ERASE_LINE_END).append('\n');
      }
      frame.append(ERASE_BELOW);
    } else {
      if (drawn > 0) {
        frame.append('\n');
      }
      lines.forEach(line -> frame.append(line).append('\n'));
    }
    drawn = lines.size();
    out.print(frame);
    out.flush();
  }

  /** Shows the cursor again; later frames are not drawn. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (cursorHidden) {
      out.print(SHOW_CURSOR);
    }
    out.flush();
  }

  private static String cut(String line, int width) {
    return line.length() <= width ? line : line.substring(0, Math.max(0, width));
  }
}
