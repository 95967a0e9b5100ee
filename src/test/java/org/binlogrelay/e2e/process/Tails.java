package org.binlogrelay.e2e.process;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The last lines of log files, for failure messages. Reads at most the last 256 KiB of a file. */
public final class Tails {

  private static final int MAX_BYTES = 256 * 1024;

  private Tails() {}

  /**
   * {@code --- <file> (last n lines) ---} and the lines, or a note that the file is missing or
   * empty.
   */
  public static String of(Path file, int lines) {
    if (!Files.exists(file)) {
      return "--- " + file + ": does not exist ---\n";
    }
    List<String> all = lastLines(file, lines);
    if (all.isEmpty()) {
      return "--- " + file + ": empty ---\n";
    }
    return "--- " + file + " (last " + all.size() + " lines) ---\n" + String.join("\n", all) + "\n";
  }

  public static List<String> lastLines(Path file, int lines) {
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
      long length = raf.length();
      int size = (int) Math.min(length, MAX_BYTES);
      byte[] bytes = new byte[size];
      raf.seek(length - size);
      raf.readFully(bytes);
      List<String> all = new String(bytes, StandardCharsets.UTF_8).lines().toList();
      return all.subList(Math.max(0, all.size() - lines), all.size());
    } catch (IOException e) {
      return List.of("(cannot read " + file + ": " + e.getMessage() + ")");
    }
  }
}
