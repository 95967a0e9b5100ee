package org.binlogrelay.e2e.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.binlogrelay.archive.objectstore.ObjectStore;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.binlogrelay.e2e.upstream.RelayMainChild;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The archive with zstd compression and AES-256-GCM encryption end to end (issue #18, item 1): a
 * MySQL 9.7 primary with 1 MiB binlogs, the whole relay in a child JVM with {@code --archive
 * --archive-compression=zstd --archive-encryption-key-file=KEY} on a real s3proxy. Every closed
 * file is archived once; the stored objects are not the binlog files (they start with the chunk
 * format's magic {@code BRARCH1}, differ from the primary's bytes, and carry the encoding and key
 * id in their metadata); with the files purged locally, {@code mysqlbinlog
 * --read-from-remote-server --raw} (a binlog dump client, as a replica) gets from the relay,
 * decrypted and decompressed from the archive, exactly the primary's bytes; the relay's staging
 * area is empty once all is verified. One primary, one relay start.
 */
@ExtendWith(ServerFarmExtension.class)
class ArchiveEncodingIT {
  private static final Logger LOG = LoggerFactory.getLogger(ArchiveEncodingIT.class);

  @Test
  void encryptedCompressedArchiveServesThePrimarysBytes(ServerFarm farm, @TempDir Path dir)
      throws Exception {
    long started = System.nanoTime();
    DatabaseServer primary =
        farm.start(
            ServerSpec.of(ServerVersion.MYSQL_9_7).named("primary").withMaxBinlogSize(1L << 20));
    ArchiveHarness.createSchema(primary);
    ArchiveHarness.write(primary, 50);

    byte[] key = new byte[32];
    for (int i = 0; i < key.length; i++) {
      key[i] = (byte) (0x5a ^ i * 7);
    }
    Path keyFile = dir.resolve("archive.key");
    Files.writeString(keyFile, HexFormat.of().formatHex(key) + "\n");
    Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-------"));
    String keyId = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(key), 0, 8);

    try (ArchiveHarness archive = ArchiveHarness.start("relays/encoded")) {
      int port = ArchiveHarness.freePort();
      Path data = dir.resolve("relay");
      try (RelayMainChild relay =
          archive.relay(
              primary,
              dir,
              data,
              port,
              "--archive-compression=zstd",
              "--archive-encryption-key-file=" + keyFile)) {
        primary.execute("FLUSH BINARY LOGS");
        List<String> closed = ArchiveHarness.closedFiles(primary);
        assertThat(closed.size()).as("closed files on the primary").isGreaterThanOrEqualTo(3);
        archive.awaitArchived(closed, ArchiveHarness.ARCHIVED, relay);

        long plainBytes = 0;
        long storedBytes = 0;
        for (String name : closed) {
          byte[] primarys = Files.readAllBytes(primary.binlogDir().resolve(name));
          byte[] stored = archive.archivedBytes(name);
          assertThat(new String(Arrays.copyOf(stored, 7), StandardCharsets.US_ASCII))
              .as(name + ": the stored object starts with the chunk format's magic")
              .isEqualTo("BRARCH1");
          assertThat(stored)
              .as(name + ": the stored object is not the binlog file")
              .isNotEqualTo(primarys);
          ObjectStore.ObjectInfo info =
              archive.objects.head(archive.prefix + ArchiveHarness.DATA + name).orElseThrow();
          assertThat(info.userMetadata())
              .as(name + ": the data object's metadata")
              .containsEntry("encoding", "zstd+aes-gcm")
              .containsEntry("key-id", keyId);
          String meta = metadataText(archive, name);
          assertThat(meta).contains("encoding=zstd+aes-gcm\n", "key_id=" + keyId + "\n", "chunks=");
          plainBytes += primarys.length;
          storedBytes += stored.length;
        }
        LOG.info(
            "FIGURE {} files archived with zstd+aes-gcm: {} bytes stored for {} bytes of binlog",
            closed.size(),
            storedBytes,
            plainBytes);

        // the admin API (and relayctl archive) says how objects are written
        RelayMainChild.Answer status = relay.get("/api/v1/archive");
        assertThat(status.code()).as(status.body()).isEqualTo(200);
        assertThat(status.json().path("encoding").asText()).isEqualTo("zstd:3+aes-gcm");
        assertThat(status.json().path("encryptionKeyId").asText()).isEqualTo(keyId);
        assertThat(status.json().path("maxUploadRateBytesPerSecond").asLong()).isZero();

        // the uploader persists VERIFIED, then deletes the staged object: wait for both
        Path staging = data.resolve("archive").resolve("staging");
        eventually(
            ArchiveHarness.ARCHIVED,
            "the relay's staged objects deleted once verified",
            () -> {
              if (!Files.isDirectory(staging)) {
                return List.<Path>of();
              }
              try (var staged = Files.list(staging)) {
                return staged.toList();
              }
            },
            List::isEmpty);

        // purge every closed file but the last locally: they are served from the archive only
        String purgeTo = closed.get(closed.size() - 1);
        RelayMainChild.Answer purge =
            relay.post("/api/v1/binlogs/purge", "{\"to\": \"" + purgeTo + "\"}");
        assertThat(purge.code()).as("purge answer " + purge.body()).isEqualTo(200);
        List<String> archiveOnly = closed.subList(0, closed.size() - 1);
        List<String> removed = new ArrayList<>();
        purge.json().path("removed").forEach(n -> removed.add(n.asText()));
        assertThat(removed).as("purged locally").containsExactlyElementsOf(archiveOnly);
        Map<String, Long> local = ArchiveHarness.localFiles(data);
        assertThat(local.keySet()).doesNotContainAnyElementsOf(archiveOnly);

        for (String name : List.of(archiveOnly.get(0), archiveOnly.get(archiveOnly.size() - 1))) {
          byte[] raw = ArchiveHarness.mysqlbinlogRaw(port, name, dir);
          assertThat(raw)
              .as("mysqlbinlog --raw of archive-only " + name + " from the relay")
              .isEqualTo(Files.readAllBytes(primary.binlogDir().resolve(name)));
        }
        assertThat(relay.errorLines()).as("the relay's ERROR lines").isEmpty();
        LOG.info(
            "FIGURE ArchiveEncodingIT whole test {} s",
            Duration.ofNanos(System.nanoTime() - started).toSeconds());
      }
    }
  }

  private static String metadataText(ArchiveHarness archive, String name) throws Exception {
    try (var in =
        archive.objects.get(archive.prefix + ArchiveHarness.META + name + ".meta", 0, -1)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
