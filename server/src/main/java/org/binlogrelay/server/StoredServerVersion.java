package org.binlogrelay.server;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The server version recorded in the binlog files of a store directory, read before the store is
 * opened (the store needs its flavour to open). Each binlog file starts with the magic number and a
 * FORMAT_DESCRIPTION event whose body begins with the binlog version (2 bytes) and the server
 * version (50 bytes, NUL-padded), e.g. {@code 10.11.6-MariaDB-0+deb12u1-log} or {@code 9.7.0}:
 *
 * <pre>
 *   0   fe 62 69 6e      magic
 *   4   19-byte header   type at 4 + 4 = 15 (FORMAT_DESCRIPTION_EVENT)
 *   23  u16              binlog version (4)
 *   25  char[50]         server version
 * </pre>
 *
 * The files named by the index ({@code *.index}) are tried newest first; without an index, every
 * file named like {@code base.NNNNNN}. Only reads; stateless.
 */
final class StoredServerVersion {
  private static final byte[] MAGIC = {(byte) 0xfe, 0x62, 0x69, 0x6e};
  private static final int FORMAT_DESCRIPTION_EVENT = 15;
  private static final int TYPE_OFFSET = 4 + 4;
  private static final int VERSION_OFFSET = 4 + 19 + 2;
  private static final int VERSION_BYTES = 50;

  private StoredServerVersion() {}

  /**
   * The server version of the newest readable binlog file in {@code dataDir}; empty if the
   * directory does not exist or holds no binlog file with a complete FORMAT_DESCRIPTION.
   */
  static Optional<String> of(Path dataDir) throws IOException {
    if (!Files.isDirectory(dataDir)) {
      return Optional.empty();
    }
    for (Path file : candidates(dataDir)) {
      Optional<String> version = versionIn(file);
      if (version.isPresent()) {
        return version;
      }
    }
    return Optional.empty();
  }

  /** The binlog files of the directory, newest first. */
  private static List<Path> candidates(Path dataDir) throws IOException {
    List<Path> files = new ArrayList<>();
    List<Path> indexes;
    try (Stream<Path> listing = Files.list(dataDir)) {
      indexes =
          listing.filter(p -> p.getFileName().toString().endsWith(".index")).sorted().toList();
    }
    for (Path index : indexes) {
      for (String line : Files.readAllLines(index, StandardCharsets.UTF_8)) {
        String name = line.strip();
        if (!name.isEmpty()) {
          files.add(dataDir.resolve(Path.of(name).getFileName()));
        }
      }
    }
    if (files.isEmpty()) {
      try (Stream<Path> listing = Files.list(dataDir)) {
        files.addAll(
            listing
                .filter(p -> p.getFileName().toString().matches("[A-Za-z0-9_.-]+\\.[0-9]+"))
                .sorted()
                .toList());
      }
    }
    Collections.reverse(files);
    return files;
  }

  private static Optional<String> versionIn(Path file) throws IOException {
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    ByteBuffer head = ByteBuffer.allocate(VERSION_OFFSET + VERSION_BYTES);
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      while (head.hasRemaining() && channel.read(head) > 0) {
        // read until full or end of file
      }
    }
    if (head.hasRemaining()) {
      return Optional.empty();
    }
    byte[] b = head.array();
    for (int i = 0; i < MAGIC.length; i++) {
      if (b[i] != MAGIC[i]) {
        return Optional.empty();
      }
    }
    if ((b[TYPE_OFFSET] & 0xff) != FORMAT_DESCRIPTION_EVENT) {
      return Optional.empty();
    }
    int end = VERSION_OFFSET;
    while (end < VERSION_OFFSET + VERSION_BYTES && b[end] != 0) {
      end++;
    }
    String version =
        new String(b, VERSION_OFFSET, end - VERSION_OFFSET, StandardCharsets.ISO_8859_1);
    return version.isEmpty() ? Optional.empty() : Optional.of(version);
  }
}
