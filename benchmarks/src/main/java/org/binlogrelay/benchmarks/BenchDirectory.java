package org.binlogrelay.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Where the benchmarks keep their stores: under {@code -Dbinlogrelay.bench.dir} (default {@code
 * /var/tmp/binlog-relay-bench}, which should be on the disk being measured, not a tmpfs).
 * Throughput runs use a fresh directory each and delete it; the generated stores of the recovery
 * and lookup benchmarks stay there between runs (see {@link GeneratedStore}). Stateless.
 */
final class BenchDirectory {
  static final String PROPERTY = "binlogrelay.bench.dir";
  static final String DEFAULT = "/var/tmp/binlog-relay-bench";

  private BenchDirectory() {}

  static Path root() {
    return Paths.get(System.getProperty(PROPERTY, DEFAULT));
  }

  /** An empty directory {@code root/name}, removing whatever an earlier (killed) run left there. */
  static Path fresh(String name) {
    Path dir = root().resolve(name);
    delete(dir);
    try {
      return Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot create benchmark directory " + dir + " (set -D" + PROPERTY + ")", e);
    }
  }

  /** Deletes {@code dir} and everything in it; nothing if it does not exist. */
  static void delete(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      List<Path> all = walk.sorted(Comparator.reverseOrder()).collect(Collectors.toList());
      for (Path p : all) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete benchmark directory " + dir, e);
    }
  }

  /** The regular files directly in {@code dir}, sorted by name. */
  static List<Path> files(Path dir) throws IOException {
    try (Stream<Path> list = Files.list(dir)) {
      return list.filter(Files::isRegularFile).sorted().collect(Collectors.toList());
    }
  }
}
