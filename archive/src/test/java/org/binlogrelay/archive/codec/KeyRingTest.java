package org.binlogrelay.archive.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Key files: their two formats, their permissions, key ids and the decryption keys directory. */
class KeyRingTest {
  @TempDir Path dir;

  private final Random random = new Random(18);

  @Test
  void rawKeyFileGivesTheKeyAndItsDefaultId() throws Exception {
    byte[] key = key();
    Path file = write("archive.key", key, "rw-------");

    KeyRing ring = KeyRing.load(file, null, null);

    String expectedId =
        HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(key)).substring(0, 16);
    assertThat(ring.encryptionKey()).get().extracting(ArchiveKey::id).isEqualTo(expectedId);
    assertThat(ring.find(expectedId)).isPresent();
    assertThat(ring.keyIds()).containsExactly(expectedId);
    assertThat(ring.encryptionKey().orElseThrow().aes().getEncoded()).isEqualTo(key);
    assertThat(ring.toString()).doesNotContain(HexFormat.of().formatHex(key));
  }

  @Test
  void hexKeyFileWithBlanksAroundIsTheSameKey() throws Exception {
    byte[] key = key();
    Path raw = write("raw.key", key, "rw-------");
    String hex = "  " + HexFormat.of().formatHex(key).toUpperCase(java.util.Locale.ROOT) + "\n\n";
    Path text = write("hex.key", hex.getBytes(StandardCharsets.US_ASCII), "r--------");

    ArchiveKey a = KeyRing.load(raw, null, null).encryptionKey().orElseThrow();
    ArchiveKey b = KeyRing.load(text, null, null).encryptionKey().orElseThrow();

    assertThat(b.id()).isEqualTo(a.id());
    assertThat(b.sameKey(a)).isTrue();
  }

  @Test
  void explicitKeyIdIsUsedAndChecked() throws Exception {
    Path file = write("k", key(), "rw-------");

    assertThat(KeyRing.load(file, "prod-2026", null).encryptionKey().orElseThrow().id())
        .isEqualTo("prod-2026");
    assertThatThrownBy(() -> KeyRing.load(file, "bad id/x", null))
        .isInstanceOf(KeyFileException.class)
        .hasMessageContaining("'bad id/x'")
        .hasMessageContaining("A-Z a-z 0-9 . _ -");
    assertThatThrownBy(() -> KeyRing.load(null, "prod-2026", null))
        .isInstanceOf(KeyFileException.class)
        .hasMessageContaining("without a key file");
  }

  @Test
  void keyFileOpenToGroupOrOthersIsRefusedLikeSsh() throws Exception {
    for (String perms : List.of("rw-r--r--", "rw-r-----", "rw----r--", "rw--w----", "r-----r--")) {
      Path file = write("open-" + perms + ".key", key(), perms);
      assertThatThrownBy(() -> KeyRing.load(file, null, null))
          .as(perms)
          .isInstanceOf(KeyFileException.class)
          .hasMessageContaining("permissions " + perms)
          .hasMessageContaining("are too open")
          .hasMessageContaining("chmod 600 '" + file + "'");
    }
    Path ok = write("owner-only.key", key(), "r--------");
    assertThat(KeyRing.load(ok, null, null).encryptionKey()).isPresent();
  }

  @Test
  void keyFileFormatErrorsSayWhatWasFound() throws Exception {
    String hex64 = HexFormat.of().formatHex(key());
    check(new byte[0], "found 0 bytes that are not 32 raw bytes nor hex digits");
    check(Arrays.copyOf(key(), 31), "must hold 32 raw bytes or 64 hex digits");
    check(Arrays.copyOf(key(), 33), "must hold 32 raw bytes or 64 hex digits");
    check(ascii(hex64.substring(1) + "\n"), "found 63 hex digits");
    check(ascii(hex64 + "a\n"), "found 65 hex digits");
    check(ascii(hex64.substring(0, 32)), "32 hex digits, a 128-bit key");
    check(ascii(hex64.substring(0, 32) + "\n"), "found 32 hex digits");
    check(ascii(hex64.substring(0, 63) + "g"), "not 32 raw bytes nor hex digits");
    check(ascii(hex64.substring(0, 32) + " " + hex64.substring(32)), "must hold");
    check(new byte[5000], "larger than 4096 bytes");
    check(new byte[32], "all zero bytes");
    check(ascii("0".repeat(64)), "all zero bytes");
  }

  @Test
  void missingOrNonRegularKeyFileIsNamed() throws Exception {
    Path missing = dir.resolve("nope.key");
    assertThatThrownBy(() -> KeyRing.load(missing, null, null))
        .isInstanceOf(KeyFileException.class)
        .hasMessage("archive key file " + missing + " does not exist");
    Path sub = Files.createDirectory(dir.resolve("sub"));
    assertThatThrownBy(() -> KeyRing.load(sub, null, null))
        .isInstanceOf(KeyFileException.class)
        .hasMessageContaining("is not a regular file");
  }

  @Test
  void decryptionKeysDirectoryAddsOlderKeysByDefaultIdAndByName() throws Exception {
    Path current = write("current.key", key(), "rw-------");
    Path old = Files.createDirectory(dir.resolve("old"));
    byte[] k1 = key();
    byte[] k2 = key();
    write(old.resolve("2025-q1"), k1, "rw-------");
    write(old.resolve("legacy.key"), ascii(HexFormat.of().formatHex(k2) + "\n"), "r--------");
    write(old.resolve(".hidden"), new byte[3], "rw-r--r--"); // skipped

    KeyRing ring = KeyRing.load(current, null, old);

    String id1 = ArchiveKey.defaultId(k1);
    String id2 = ArchiveKey.defaultId(k2);
    String idCurrent = ring.encryptionKey().orElseThrow().id();
    assertThat(ring.keyIds()).containsExactlyInAnyOrder(idCurrent, id1, id2, "legacy");
    assertThat(ring.find("legacy").orElseThrow().sameKey(ring.find(id2).orElseThrow())).isTrue();
    assertThat(ring.find("2025-q1")).isEmpty();

    KeyRing readOnly = KeyRing.load(null, null, old);
    assertThat(readOnly.encryptionKey()).isEmpty();
    assertThat(readOnly.find(id1)).isPresent();
  }

  @Test
  void decryptionKeysDirectoryErrors() throws Exception {
    Path old = Files.createDirectory(dir.resolve("old"));
    Path open = write(old.resolve("a.key"), key(), "rw-rw-r--");
    assertThatThrownBy(() -> KeyRing.load(null, null, old))
        .isInstanceOf(KeyFileException.class)
        .hasMessageContaining(open.toString())
        .hasMessageContaining("too open");
    Files.delete(open);

    byte[] other = key();
    write(old.resolve("prod.key"), other, "rw-------");
    Path current = write("current.key", key(), "rw-------");
    assertThatThrownBy(() -> KeyRing.load(current, "prod", old))
        .isInstanceOf(KeyFileException.class)
        .hasMessageContaining("two different archive keys have the id prod");

    Path missing = dir.resolve("no-such-dir");
    assertThatThrownBy(() -> KeyRing.load(null, null, missing))
        .isInstanceOf(KeyFileException.class)
        .hasMessageContaining(missing + " does not exist or is not a directory");
  }

  @Test
  void theSameKeyUnderItsIdTwiceIsFine() throws Exception {
    byte[] k = key();
    Path current = write("current.key", k, "rw-------");
    Path old = Files.createDirectory(dir.resolve("old"));
    write(old.resolve("copy.key"), k, "rw-------");

    assertThat(KeyRing.load(current, null, old).keyIds())
        .containsExactlyInAnyOrder(ArchiveKey.defaultId(k), "copy");
  }

  private void check(byte[] content, String message) throws IOException {
    Path file = write("bad-" + random.nextInt(1_000_000) + ".key", content, "rw-------");
    assertThatThrownBy(() -> KeyRing.load(file, null, null))
        .isInstanceOf(KeyFileException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining(message);
  }

  private byte[] key() {
    byte[] k = new byte[32];
    random.nextBytes(k);
    return k;
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  private Path write(String name, byte[] content, String perms) throws IOException {
    return write(dir.resolve(name), content, perms);
  }

  private static Path write(Path file, byte[] content, String perms) throws IOException {
    Files.write(file, content);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(perms));
    return file;
  }
}
