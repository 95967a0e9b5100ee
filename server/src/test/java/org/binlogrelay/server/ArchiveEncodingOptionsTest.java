package org.binlogrelay.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.binlogrelay.archive.ArchiveConfig;
import org.binlogrelay.archive.codec.ArchiveKey;
import org.binlogrelay.archive.codec.ChunkCodec;
import org.binlogrelay.archive.codec.ObjectEncoding;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The archive's encoding options ({@code --archive-compression}, {@code
 * --archive-encryption-key-file}, {@code --archive-encryption-key-id}, {@code
 * --archive-decryption-keys}): identity by default, each combination, from the environment, and one
 * clear line naming the option (and the file) for each bad value.
 */
class ArchiveEncodingOptionsTest {
  @TempDir Path dir;

  private RelayCommandLine cli;

  @BeforeEach
  void commandLine() {
    cli = new RelayCommandLine(dir.resolve("data"));
  }

  private int run(String... args) {
    return cli.run(args);
  }

  private ChunkCodec codec(String... args) {
    List<String> all = new ArrayList<>(List.of("--archive", "s3://binlogs/relay-1"));
    all.addAll(List.of(args));
    assertThat(run(all.toArray(String[]::new))).as(cli.err()).isZero();
    ArchiveConfig archive = cli.launched().archive();
    return archive.codec();
  }

  private void assertUsageError(String message, String... args) {
    List<String> all = new ArrayList<>(List.of("--archive", "s3://binlogs/relay-1"));
    all.addAll(List.of(args));
    cli.assertUsageError(run(all.toArray(String[]::new)), message);
  }

  private Path keyFile(String name, String content, String mode) throws IOException {
    Path p = dir.resolve(name);
    Files.write(p, content.getBytes(StandardCharsets.ISO_8859_1));
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(mode));
    return p;
  }

  private static String hexKey(int seed) {
    byte[] k = new byte[32];
    for (int i = 0; i < k.length; i++) {
      k[i] = (byte) (seed + i);
    }
    return HexFormat.of().formatHex(k);
  }

  @Test
  void identityWithoutKeysByDefault() {
    ChunkCodec c = codec();
    assertThat(c.encoding()).isEqualTo(ObjectEncoding.IDENTITY);
    assertThat(c.keys().keyIds()).isEmpty();
  }

  @Test
  void compressionEncryptionAndBoth() throws IOException {
    assertThat(codec("--archive-compression", "zstd").encoding()).isEqualTo(ObjectEncoding.ZSTD);
    assertThat(codec("--archive-compression=zstd:9").encoding().level()).isEqualTo(9);
    assertThat(codec("--archive-compression", "none").encoding().identity()).isTrue();

    Path key = keyFile("key", hexKey(1) + "\n", "rw-------");
    String id = ArchiveKey.defaultId(HexFormat.of().parseHex(hexKey(1)));
    ChunkCodec encrypted = codec("--archive-encryption-key-file", key.toString());
    assertThat(encrypted.encoding()).isEqualTo(ObjectEncoding.AES_GCM);
    assertThat(encrypted.keyId()).isEqualTo(id);

    ChunkCodec both =
        codec(
            "--archive-compression=zstd:2",
            "--archive-encryption-key-file=" + key,
            "--archive-encryption-key-id=prod-2026");
    assertThat(both.encoding().name()).isEqualTo("zstd+aes-gcm");
    assertThat(both.encoding().level()).isEqualTo(2);
    assertThat(both.keyId()).isEqualTo("prod-2026");

    Path old = Files.createDirectory(dir.resolve("old-keys"));
    keyFile("old-keys/2025.key", hexKey(50), "rw-------");
    ChunkCodec rotated =
        codec("--archive-encryption-key-file=" + key, "--archive-decryption-keys=" + old);
    assertThat(rotated.keys().keyIds()).contains(id, "2025");

    ChunkCodec readOnly = codec("--archive-decryption-keys=" + old);
    assertThat(readOnly.encoding().identity()).isTrue();
    assertThat(readOnly.keys().keyIds()).contains("2025");
  }

  @Test
  void fromTheEnvironment() throws IOException {
    Path key = keyFile("key", hexKey(1), "rw-------");
    cli.environment().put("BINLOG_RELAY_ARCHIVE_COMPRESSION", "zstd");
    cli.environment().put("BINLOG_RELAY_ARCHIVE_ENCRYPTION_KEY_FILE", key.toString());
    assertThat(codec().encoding()).isEqualTo(ObjectEncoding.ZSTD_AES_GCM);
  }

  @Test
  void badValuesAreRefusedNamingTheOptionAndTheFile() throws IOException {
    assertUsageError("--archive-compression", "--archive-compression=lz4");
    assertUsageError("--archive-compression", "--archive-compression=zstd:23");

    Path short32hex = keyFile("k128", hexKey(1).substring(0, 32), "rw-------");
    assertUsageError(
        "--archive-encryption-key-file: archive key file " + short32hex + " holds 32 hex digits",
        "--archive-encryption-key-file=" + short32hex);
    Path odd = keyFile("odd", "not a key at all", "rw-------");
    assertUsageError(
        "archive key file " + odd + " must hold 32 raw bytes or 64 hex digits",
        "--archive-encryption-key-file=" + odd);
    Path open = keyFile("open", hexKey(1), "rw-r--r--");
    assertUsageError("too open", "--archive-encryption-key-file=" + open);
    assertUsageError(
        "archive key file " + dir.resolve("missing") + " does not exist",
        "--archive-encryption-key-file=" + dir.resolve("missing"));
    assertUsageError(
        "--archive-encryption-key-id needs --archive-encryption-key-file",
        "--archive-encryption-key-id=k1");
    Path good = keyFile("good", hexKey(2), "rw-------");
    assertUsageError(
        "archive key id 'a b'",
        "--archive-encryption-key-file=" + good,
        "--archive-encryption-key-id=a b");
    assertUsageError(
        "--archive-decryption-keys: the archive decryption keys directory",
        "--archive-decryption-keys=" + dir.resolve("nowhere"));
    Path keys = Files.createDirectory(dir.resolve("keys"));
    Path bad = keyFile("keys/bad.key", "xyz", "rw-------");
    assertUsageError(
        "--archive-decryption-keys: archive key file " + bad, "--archive-decryption-keys=" + keys);
  }

  @Test
  void encodingOptionsWithoutArchiveAreRefused() {
    int status = run("--archive-compression=zstd", "--archive-decryption-keys=/k");
    assertThat(status).as(cli.err()).isEqualTo(RelayMain.USAGE);
    assertThat(cli.err())
        .contains("--archive-compression, --archive-decryption-keys need --archive s3://BUCKET");
  }
}
