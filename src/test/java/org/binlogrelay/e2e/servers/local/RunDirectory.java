package org.binlogrelay.e2e.servers.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code <base>/run-<pid>}: everything one test JVM puts under a base directory (template data
 * directory, server directories). Deleted by {@link LocalServerBackend#close()} and its shutdown
 * hook; a directory left behind by a JVM that was SIGKILLed is deleted by the next run, once its
 * pid is no longer alive.
 */
final class RunDirectory {

  private static final Logger LOG = LoggerFactory.getLogger(RunDirectory.class);
  private static final String PREFIX = "run-";

  private final Path path;

  private RunDirectory(Path path) {
    this.path = path;
  }

  static RunDirectory create(Path base) {
    try {
      Files.createDirectories(base);
      deleteStale(base);
      Path path = base.resolve(PREFIX + ProcessHandle.current().pid());
      Directories.delete(path);
      Files.createDirectories(path);
      return new RunDirectory(path);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create a run directory under " + base, e);
    }
  }

  private static void deleteStale(Path base) throws IOException {
    List<Path> runs;
    try (Stream<Path> children = Files.list(base)) {
      runs = children.filter(p -> p.getFileName().toString().matches(PREFIX + "\\d+")).toList();
    }
    for (Path run : runs) {
      long pid = Long.parseLong(run.getFileName().toString().substring(PREFIX.length()));
      if (pid != ProcessHandle.current().pid() && ProcessHandle.of(pid).isEmpty()) {
        LOG.info("Deleting {}, left behind by test JVM {} which is gone", run, pid);
        Directories.delete(run);
      }
    }
  }

  Path path() {
    return path;
  }

  void delete() {
    Directories.delete(path);
  }
}
