package org.binlogrelay.archive.codec;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The archive's keys: at most one key to encrypt new objects with, and any number of older keys to
 * decrypt objects written before a key change, found by the key id an object carries.
 *
 * <p>A key file holds the 32 bytes of an AES-256 key, either raw (exactly 32 bytes) or as 64 hex
 * digits (blanks and line breaks around them ignored; {@code openssl rand -hex 32 > key}). Anything
 * else is refused, and so is a file that its group or others may read, write or run (like ssh with
 * a private key: {@code chmod 600}). The older keys are the regular files of a directory (names
 * starting with a dot skipped), each known by its default id (the first 16 hex digits of its
 * SHA-256) and, if its name ends with {@code .key}, also by the name without it (for keys that were
 * used with an explicit id). Immutable once loaded; thread-safe.
 */
public final class KeyRing {
  /** A key file longer than this is not a key file (nothing bigger is read). */
  static final int MAX_KEY_FILE_BYTES = 4096;

  private static final Set<PosixFilePermission> PRIVATE =
      EnumSet.of(
          PosixFilePermission.OWNER_READ,
          PosixFilePermission.OWNER_WRITE,
          PosixFilePermission.OWNER_EXECUTE);

  private final ArchiveKey encryptionKey;
  private final Map<String, ArchiveKey> byId;

  private KeyRing(ArchiveKey encryptionKey, Map<String, ArchiveKey> byId) {
    this.encryptionKey = encryptionKey;
    this.byId = Collections.unmodifiableMap(byId);
  }

  /** A key ring without keys: objects can be neither encrypted nor decrypted. */
  public static KeyRing none() {
    return new KeyRing(null, new TreeMap<>());
  }

  /**
   * A key ring of the given keys; the first (if any) encrypts. For tests and callers that hold keys
   * already.
   *
   * @throws IllegalArgumentException if two different keys have the same id
   */
  public static KeyRing of(List<ArchiveKey> keys) {
    Map<String, ArchiveKey> byId = new TreeMap<>();
    for (ArchiveKey k : keys) {
      add(byId, k.id(), k, k.id());
    }
    return new KeyRing(keys.isEmpty() ? null : keys.get(0), byId);
  }

  /**
   * Loads the archive's keys.
   *
   * @param keyFile the key that encrypts new objects (and decrypts), or {@code null}
   * @param keyId that key's id, or {@code null} for its default id
   * @param decryptionKeys a directory of older keys, or {@code null}
   * @throws KeyFileException naming the file and what is wrong with it
   */
  public static KeyRing load(Path keyFile, String keyId, Path decryptionKeys)
      throws KeyFileException {
    Map<String, ArchiveKey> byId = new TreeMap<>();
    ArchiveKey encryption = null;
    if (keyFile != null) {
      if (keyId != null) {
        try {
          ArchiveKey.checkId(keyId);
        } catch (IllegalArgumentException e) {
          throw new KeyFileException(e.getMessage() + " (the id given for " + keyFile + ")");
        }
      }
      encryption = ArchiveKey.of(readKey(keyFile), keyId);
      add(byId, encryption.id(), encryption, keyFile.toString());
    } else if (keyId != null) {
      throw new KeyFileException("an archive key id (" + keyId + ") is given without a key file");
    }
    if (decryptionKeys != null) {
      for (Path file : keyFiles(decryptionKeys)) {
        byte[] bytes = readKey(file);
        ArchiveKey k = ArchiveKey.of(bytes, null);
        add(byId, k.id(), k, file.toString());
        String name = file.getFileName().toString();
        if (name.endsWith(".key") && name.length() > ".key".length()) {
          String stem = name.substring(0, name.length() - ".key".length());
          try {
            add(byId, stem, ArchiveKey.of(bytes, stem), file.toString());
          } catch (IllegalArgumentException e) {
            throw new KeyFileException(e.getMessage() + " (from the name of " + file + ")");
          }
        }
      }
    }
    return new KeyRing(encryption, byId);
  }

  /** The key that encrypts new objects, if one is configured. */
  public Optional<ArchiveKey> encryptionKey() {
    return Optional.ofNullable(encryptionKey);
  }

  /** The key of an id, if the ring holds it. */
  public Optional<ArchiveKey> find(String keyId) {
    return Optional.ofNullable(byId.get(keyId));
  }

  /** The ids the ring knows, sorted (for error messages and status). */
  public Set<String> keyIds() {
    return byId.keySet();
  }

  @Override
  public String toString() {
    return "KeyRing[encrypt="
        + (encryptionKey == null ? "none" : encryptionKey.id())
        + ", ids="
        + byId.keySet()
        + "]";
  }

  private static void add(Map<String, ArchiveKey> byId, String id, ArchiveKey key, String source) {
    ArchiveKey existing = byId.get(id);
    if (existing != null && !existing.sameKey(key)) {
      throw new KeyFileException(
          "two different archive keys have the id " + id + " (the second from " + source + ")");
    }
    byId.putIfAbsent(id, key);
  }

  private static List<Path> keyFiles(Path dir) {
    if (!Files.isDirectory(dir)) {
      throw new KeyFileException(
          "the archive decryption keys directory " + dir + " does not exist or is not a directory");
    }
    List<Path> files = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path p : entries) {
        if (!p.getFileName().toString().startsWith(".")
            && Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
          files.add(p);
        }
      }
    } catch (IOException e) {
      throw new KeyFileException(
          "cannot list the archive decryption keys directory " + dir + ": " + e, e);
    }
    Collections.sort(files);
    return files;
  }

  /** The 32 key bytes of a key file, after its checks. */
  static byte[] readKey(Path file) {
    checkPermissions(file);
    byte[] content;
    try (InputStream in = Files.newInputStream(file)) {
      content = in.readNBytes(MAX_KEY_FILE_BYTES + 1);
    } catch (NoSuchFileException e) {
      throw new KeyFileException("archive key file " + file + " does not exist", e);
    } catch (IOException e) {
      throw new KeyFileException("cannot read archive key file " + file + ": " + e, e);
    }
    if (content.length > MAX_KEY_FILE_BYTES) {
      throw new KeyFileException(
          "archive key file "
              + file
              + " is larger than "
              + MAX_KEY_FILE_BYTES
              + " bytes: it must hold 32 raw bytes or 64 hex digits");
    }
    byte[] key = parseKey(content, file);
    try {
      ArchiveKey.of(key, "x");
    } catch (IllegalArgumentException e) {
      throw new KeyFileException(e.getMessage() + " (" + file + ")");
    }
    return key;
  }

  private static byte[] parseKey(byte[] content, Path file) {
    if (content.length == ArchiveKey.LENGTH) {
      if (allHex(new String(content, StandardCharsets.ISO_8859_1))) {
        throw new KeyFileException(
            "archive key file "
                + file
                + " holds 32 hex digits, a 128-bit key: AES-256 needs 64 hex digits (openssl rand"
                + " -hex 32) or 32 raw bytes");
      }
      return content;
    }
    String text = new String(content, StandardCharsets.ISO_8859_1).strip();
    if (text.length() == 2 * ArchiveKey.LENGTH && allHex(text)) {
      return HexFormat.of().parseHex(text);
    }
    String found =
        allHex(text)
            ? text.length() + " hex digits"
            : content.length + " bytes that are not 32 raw bytes nor hex digits";
    throw new KeyFileException(
        "archive key file "
            + file
            + " must hold 32 raw bytes or 64 hex digits (openssl rand -hex 32), found "
            + found);
  }

  private static boolean allHex(String s) {
    return !s.isEmpty() && s.chars().allMatch(c -> Character.digit(c, 16) >= 0 && c < 128);
  }

  private static void checkPermissions(Path file) {
    Set<PosixFilePermission> perms;
    try {
      if (!Files.isRegularFile(file)) {
        throw new KeyFileException(
            Files.exists(file)
                ? "archive key file " + file + " is not a regular file"
                : "archive key file " + file + " does not exist");
      }
      perms = Files.getPosixFilePermissions(file);
    } catch (UnsupportedOperationException e) {
      return; // not a POSIX file system: nothing to check
    } catch (IOException e) {
      throw new KeyFileException("cannot read the permissions of " + file + ": " + e, e);
    }
    if (!PRIVATE.containsAll(perms)) {
      throw new KeyFileException(
          String.format(
              "permissions %s (0%o) for archive key file '%s' are too open: the key must be"
                  + " accessible by its owner only (chmod 600 '%s')",
              PosixFilePermissions.toString(perms), mode(perms), file, file));
    }
  }

  private static int mode(Set<PosixFilePermission> perms) {
    int mode = 0;
    for (PosixFilePermission p : perms) {
      mode |= 1 << (8 - p.ordinal());
    }
    return mode;
  }
}
