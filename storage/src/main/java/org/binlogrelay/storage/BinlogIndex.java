package org.binlogrelay.storage;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The index file: the stored binlog files in serving order, in the server's own format, so that
 * tools that read a server's {@code binlog.index} read ours:
 *
 * <pre>
 *   ./binlog.000001\n
 *   ./binlog.000002\n
 * </pre>
 *
 * Named after the files' base name ({@code binlog.index} for {@code binlog.NNNNNN}). Always
 * replaced whole, atomically ({@link StoreDirectory#writeAtomically}); lines may also be bare names
 * or paths, of which only the last component counts. Stateless; callers serialise writes.
 */
final class BinlogIndex {
  static final String SUFFIX = ".index";

  private BinlogIndex() {}

  /** The index file's name for files named like {@code binlogName}. */
  static String nameFor(String binlogName) {
    return BinlogFileName.base(binlogName) + SUFFIX;
  }

  /**
   * The one index file in the directory, if any; {@link StoreCorruptException} if there are
   * several.
   */
  static Optional<String> find(List<String> directoryEntries, StoreDirectory dir) {
    List<String> found = new ArrayList<>();
    for (String name : directoryEntries) {
      if (name.endsWith(SUFFIX)) {
        found.add(name);
      }
    }
    if (found.size() > 1) {
      throw new StoreCorruptException(
          "binlog store "
              + dir
              + " has "
              + found.size()
              + " index files "
              + found
              + "; a store holds one primary's files with one base name. Move the extra files out and retry.");
    }
    return found.stream().findFirst();
  }

  static List<String> read(StoreDirectory dir, String indexName) throws IOException {
    byte[] content = dir.readIfExists(indexName);
    return content == null ? List.of() : decode(content, dir.resolve(indexName).toString());
  }

  static List<String> decode(byte[] content, String where) {
    List<String> names = new ArrayList<>();
    String text = new String(content, StandardCharsets.UTF_8);
    int lineNo = 0;
    for (String line : text.split("\n", -1)) {
      lineNo++;
      String entry = line.strip();
      if (entry.isEmpty()) {
        continue;
      }
      String name = entry.substring(Math.max(entry.lastIndexOf('/'), entry.lastIndexOf('\\')) + 1);
      if (!BinlogFileName.isValid(name)) {
        throw new StoreCorruptException(
            where
                + " line "
                + lineNo
                + ": '"
                + entry
                + "' is not a binlog file name;"
                + " fix or remove the line (the index lists ./base.NNNNNN, one per line)");
      }
      names.add(name);
    }
    return names;
  }

  static byte[] encode(List<String> names) {
    StringBuilder sb = new StringBuilder();
    for (String name : names) {
      sb.append("./").append(name).append('\n');
    }
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  static void write(StoreDirectory dir, String indexName, List<String> names) throws IOException {
    dir.writeAtomically(indexName, encode(names));
  }
}
