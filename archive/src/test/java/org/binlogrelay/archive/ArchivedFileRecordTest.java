package org.binlogrelay.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.binlogrelay.archive.upload.KeyValueText;
import org.binlogrelay.archive.upload.KeyValueText.DamagedException;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.storage.FileMetadata;
import org.junit.jupiter.api.Test;

class ArchivedFileRecordTest {
  private static final String SHA =
      "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
  private static final String KEY = "prefix/meta/binlog.000003.meta";

  static ArchivedFileRecord mysql() {
    FileMetadata file =
        new FileMetadata(
            "binlog.000003",
            GtidFlavor.MYSQL,
            true,
            206_812,
            6,
            MysqlGtidSet.parse(
                "11111111-2222-3333-4444-555555555555:1:othertag:7,"
                    + "3b1e7c52-0000-4000-8000-00000000f001:1-16:mytag:1-2"),
            MysqlGtidSet.parse(
                "11111111-2222-3333-4444-555555555555:1:othertag:7,"
                    + "3b1e7c52-0000-4000-8000-00000000f001:1-21:mytag:1-3"),
            "3b1e7c52-0000-4000-8000-00000000f001:17",
            "3b1e7c52-0000-4000-8000-00000000f001:mytag:3",
            1_795_319_847,
            1_795_319_850,
            FileMetadata.Ending.ROTATE,
            "binlog.000004");
    return new ArchivedFileRecord(
        file,
        SHA,
        ArchivedFileRecord.IDENTITY,
        206_812,
        "0123456789abcdef0123456789abcdef-13",
        16 << 10,
        13,
        Instant.parse("2026-11-28T05:30:00.123Z"),
        "1@relay-a");
  }

  static ArchivedFileRecord mariadb() {
    FileMetadata file =
        new FileMetadata(
            "mariadb-bin.000002",
            GtidFlavor.MARIADB,
            true,
            2_038,
            0,
            MariadbGtidSet.parse("0-1-7,1-1-2"),
            MariadbGtidSet.parse("0-1-7,1-1-2"),
            null,
            null,
            1_795_319_847,
            0,
            FileMetadata.Ending.STOP,
            null);
    return new ArchivedFileRecord(
        file,
        SHA,
        ArchivedFileRecord.IDENTITY,
        2_038,
        "0123456789abcdef0123456789abcdef",
        0,
        0,
        Instant.parse("2026-11-28T05:30:00Z"),
        "2@relay-b");
  }

  @Test
  void roundTripsBothFlavours() throws Exception {
    for (ArchivedFileRecord r : new ArchivedFileRecord[] {mysql(), mariadb()}) {
      ArchivedFileRecord back = ArchivedFileRecord.decode(r.encode(), KEY, r.name());
      assertThat(back.file().gtidsAtStart().toString())
          .isEqualTo(r.file().gtidsAtStart().toString());
      assertThat(back.file().gtidsAtEnd().toString()).isEqualTo(r.file().gtidsAtEnd().toString());
      assertThat(back.encode()).isEqualTo(r.encode());
      assertThat(back.sha256()).isEqualTo(r.sha256());
      assertThat(back.uploadedAt()).isEqualTo(r.uploadedAt());
      assertThat(back.file().ending()).isEqualTo(r.file().ending());
      assertThat(back.file().nextFile()).isEqualTo(r.file().nextFile());
      assertThat(back.file().firstGtid()).isEqualTo(r.file().firstGtid());
    }
  }

  @Test
  void anEncodedRecordKeepsItsKeyIdAndChunksAndAnIdentityOneHasNone() throws Exception {
    ArchivedFileRecord m = mysql();
    ArchivedFileRecord encoded =
        new ArchivedFileRecord(
            m.file(),
            SHA,
            "zstd+aes-gcm",
            98_765,
            "0123456789abcdef0123456789abcdef",
            0,
            0,
            m.uploadedAt(),
            m.uploadedBy(),
            "prod-2026",
            4 << 20,
            java.util.List.of(32L, 40_000L));
    String text = new String(encoded.encode(), StandardCharsets.UTF_8);
    assertThat(text)
        .contains(
            "\nencoding=zstd+aes-gcm\nkey_id=prod-2026\nchunk_size=4194304\nchunks=32,40000\n");
    ArchivedFileRecord back = ArchivedFileRecord.decode(encoded.encode(), KEY, m.name());
    assertThat(back.keyId()).isEqualTo("prod-2026");
    assertThat(back.chunkSize()).isEqualTo(4 << 20);
    assertThat(back.chunkOffsets()).containsExactly(32L, 40_000L);
    assertThat(back.identity()).isFalse();
    assertThat(back.encode()).isEqualTo(encoded.encode());

    assertThat(new String(m.encode(), StandardCharsets.UTF_8))
        .doesNotContain("key_id=")
        .doesNotContain("chunks=");
    ArchivedFileRecord identity = ArchivedFileRecord.decode(m.encode(), KEY, m.name());
    assertThat(identity.keyId()).isEmpty();
    assertThat(identity.chunkOffsets()).isEmpty();
    assertThat(identity.identity()).isTrue();
  }

  @Test
  void theTextIsTheDocumentedKeyValueFormat() {
    String text = new String(mysql().encode(), StandardCharsets.UTF_8);
    assertThat(text)
        .startsWith("binlog-relay-archive 1\nname=binlog.000003\nflavor=MYSQL\nsize=206812\n")
        .contains("\nsha256=" + SHA + "\n")
        .contains("\nending=ROTATE\nnext_file=binlog.000004\nencoding=identity\n")
        .contains("\nparts=13\nuploaded_at=2026-11-28T05:30:00.123Z\nuploaded_by=1@relay-a\n")
        .containsPattern("\ncrc32=[0-9a-f]{8}\n$");
    assertThat(ArchivedFileRecord.metaKey("p/", "binlog.000003"))
        .isEqualTo("p/meta/binlog.000003.meta");
    assertThat(ArchivedFileRecord.dataKey("", "binlog.000003")).isEqualTo("binlogs/binlog.000003");
  }

  @Test
  void refusesEveryDamagedByte() {
    byte[] good = mysql().encode();
    for (int i = 0; i < good.length; i++) {
      byte[] bad = good.clone();
      bad[i] ^= 0x01;
      int at = i;
      assertThatThrownBy(() -> ArchivedFileRecord.decode(bad, KEY, "binlog.000003"))
          .as("byte %d flipped", at)
          .isInstanceOf(DamagedException.class)
          .hasMessageStartingWith(KEY + ": ");
    }
  }

  @Test
  void refusesTruncatedText() {
    byte[] good = mysql().encode();
    for (int len = 0; len < good.length; len++) {
      byte[] cut = java.util.Arrays.copyOf(good, len);
      assertThatThrownBy(() -> ArchivedFileRecord.decode(cut, KEY, null))
          .isInstanceOf(DamagedException.class);
    }
  }

  @Test
  void refusesAMissingOrMalformedFieldWithAValidCrc() throws Exception {
    Map<String, String> fields =
        KeyValueText.decode(mysql().encode(), ArchivedFileRecord.HEADER, KEY);
    assertDamaged(without(fields, "sha256"), "no sha256 line");
    assertDamaged(with(fields, "size", "-3"), "size=-3 is not a count");
    assertDamaged(with(fields, "sha256", "abc"), "sha256 is not 64 lower-case hex digits");
    assertDamaged(with(fields, "flavor", "ORACLE"), KEY);
    assertDamaged(with(fields, "gtids_at_end", "not a set"), KEY);
    assertDamaged(with(fields, "uploaded_at", "yesterday"), KEY);
    assertDamaged(with(fields, "parts", "0"), "bad object size");
    assertDamaged(with(fields, "ending", "STOP"), "nextFile is set exactly when");
    assertThatThrownBy(() -> ArchivedFileRecord.decode(mysql().encode(), KEY, "binlog.000009"))
        .isInstanceOf(DamagedException.class)
        .hasMessage(KEY + ": describes binlog.000003, not binlog.000009");
    byte[] otherHeader = KeyValueText.encode("binlog-relay-archive 2", fields);
    assertThatThrownBy(() -> ArchivedFileRecord.decode(otherHeader, KEY, null))
        .isInstanceOf(DamagedException.class)
        .hasMessageContaining("not a 'binlog-relay-archive 1' record");
  }

  private static void assertDamaged(Map<String, String> fields, String message) {
    byte[] text = KeyValueText.encode(ArchivedFileRecord.HEADER, fields);
    assertThatThrownBy(() -> ArchivedFileRecord.decode(text, KEY, "binlog.000003"))
        .isInstanceOf(DamagedException.class)
        .hasMessageContaining(message);
  }

  private static Map<String, String> without(Map<String, String> fields, String key) {
    Map<String, String> copy = new LinkedHashMap<>(fields);
    copy.remove(key);
    return copy;
  }

  private static Map<String, String> with(Map<String, String> fields, String key, String value) {
    Map<String, String> copy = new LinkedHashMap<>(fields);
    copy.put(key, value);
    return copy;
  }
}
