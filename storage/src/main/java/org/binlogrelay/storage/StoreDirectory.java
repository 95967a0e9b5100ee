package org.binlogrelay.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's directory and the file-system steps that make changes to it durable: a force of the
 * directory itself after a file is created, renamed or removed (so the directory entry survives a
 * power loss, not just the data), and atomic replacement of small files (write {@code name.tmp},
 * force it, rename over {@code name}, force the directory), used for the index and the metadata.
 *
 * <p>An atomic write that fails (a full disk, EIO) deletes its temporary file and leaves {@code
 * name} as it was, so a failure never leaves a half-written index or metadata file behind.
 *
 * <p>Permissions: a directory the store creates is {@code rwx------} and its files {@code
 * rw-------} ({@link ChannelOpener#FILES}); binlogs hold table data. An existing directory is used
 * as it is, with a WARN if other users can read it.
 *
 * <p>Thread-safe (every method is a self-contained file-system operation); concurrent atomic writes
 * of the same name must be serialised by the caller.
 */
final class StoreDirectory {
  private static final Logger LOG = LoggerFactory.getLogger(StoreDirectory.class);
  static final String TEMP_SUFFIX = ".tmp";

  private final Path path;
  private final ChannelOpener opener;

  StoreDirectory(Path path) throws IOException {
    this(path, ChannelOpener.FILES);
  }

  StoreDirectory(Path path, ChannelOpener opener) throws IOException {
    this.path = path.toAbsolutePath();
    this.opener = opener;
    if (!Files.isDirectory(this.path) && posix(this.path.getParent())) {
      Files.createDirectories(this.path.getParent());
      try {
        Files.createDirectory(
            this.path, PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIRECTORY));
      } catch (FileAlreadyExistsException raced) {
        // created meanwhile by someone else: used as it is
      }
    } else {
      Files.createDirectories(this.path);
    }
    warnIfOthersCanRead(this.path);
  }

  /** Permissions of a store directory the store creates: binlogs hold table data. */
  static final Set<PosixFilePermission> OWNER_ONLY_DIRECTORY =
      PosixFilePermissions.fromString("rwx------");

  /**
   * Whether {@code directory} (or, if null, the working directory) is on a file system with POSIX
   * permissions.
   */
  static boolean posix(Path directory) {
    Path where = directory == null ? Path.of("").toAbsolutePath() : directory;
    while (where != null && !Files.exists(where)) {
      where = where.getParent();
    }
    try {
      return where != null
          && Files.getFileStore(where).supportsFileAttributeView(PosixFileAttributeView.class);
    } catch (IOException e) {
      return false;
    }
  }

  private static void warnIfOthersCanRead(Path directory) {
    if (!posix(directory)) {
      return;
    }
    try {
      Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(directory);
      if (permissions.contains(PosixFilePermission.OTHERS_READ)
          || permissions.contains(PosixFilePermission.OTHERS_EXECUTE)) {
        LOG.warn(
            "binlog store {} is readable by other users ({}); binlogs hold table data: chmod o-rwx {}",
            directory,
            PosixFilePermissions.toString(permissions),
            directory);
      }
    } catch (IOException | UnsupportedOperationException e) {
      // permissions unknown: nothing to say
    }
  }

  /** Opens {@code name} in the directory with the store's {@link ChannelOpener}. */
  FileChannel open(String name, OpenOption... options) throws IOException {
    return opener.open(resolve(name), options);
  }

  Path path() {
    return path;
  }

  Path resolve(String name) {
    return path.resolve(name);
  }

  boolean exists(String name) {
    return Files.exists(resolve(name));
  }

  /** Forces the directory's entries (creations, renames, removals) to disk. */
  void force() throws IOException {
    try (FileChannel dir = opener.open(path, StandardOpenOption.READ)) {
      dir.force(true);
    }
  }

  /**
   * Replaces {@code name} with {@code content} so that a crash leaves either the old or the new
   * content. If writing, forcing or renaming the temporary file fails, the temporary file is
   * deleted and {@code name} is unchanged.
   */
  void writeAtomically(String name, byte[] content) throws IOException {
    String tempName = name + TEMP_SUFFIX;
    Path temp = resolve(tempName);
    try {
      try (FileChannel out =
          opener.open(
              temp,
              StandardOpenOption.CREATE,
              StandardOpenOption.WRITE,
              StandardOpenOption.TRUNCATE_EXISTING)) {
        ByteBuffer buf = ByteBuffer.wrap(content);
        while (buf.hasRemaining()) {
          out.write(buf);
        }
        out.force(true);
      }
      Files.move(
          temp, resolve(name), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException | RuntimeException e) {
      try {
        Files.deleteIfExists(temp);
      } catch (IOException deleteFailed) {
        e.addSuppressed(deleteFailed); // recovery deletes *.tmp leftovers
      }
      throw e;
    }
    force();
  }

  /**
   * Writes {@code bytes} zero bytes to a temporary file, forces it and deletes it: proof that the
   * directory takes writes of that size now (space, quota, a working disk). Leaves nothing behind,
   * even on failure (recovery would delete a leftover {@code *.tmp} anyway).
   */
  void probe(String name, int bytes) throws IOException {
    Path temp = resolve(name + TEMP_SUFFIX);
    try (FileChannel out =
        opener.open(
            temp,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer buf = ByteBuffer.allocate(Math.min(bytes, 64 << 10));
      long left = bytes;
      while (left > 0) {
        buf.clear().limit((int) Math.min(buf.capacity(), left));
        while (buf.hasRemaining()) {
          left -= out.write(buf);
        }
      }
      out.force(true);
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /** The content of {@code name}, or {@code null} if it does not exist. */
  byte[] readIfExists(String name) throws IOException {
    try {
      return Files.readAllBytes(resolve(name));
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  /** Deletes {@code name} if present (the caller forces the directory afterwards). */
  boolean delete(String name) throws IOException {
    return Files.deleteIfExists(resolve(name));
  }

  /** Names of the regular files in the directory, sorted. */
  List<String> list() throws IOException {
    List<String> names = new ArrayList<>();
    try (Stream<Path> entries = Files.list(path)) {
      entries.filter(Files::isRegularFile).forEach(p -> names.add(p.getFileName().toString()));
    }
    names.sort(null);
    return names;
  }

  long size(String name) throws IOException {
    return Files.size(resolve(name));
  }

  @Override
  public String toString() {
    return path.toString();
  }
}
