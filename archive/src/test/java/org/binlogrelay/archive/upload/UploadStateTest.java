package org.binlogrelay.archive.upload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.binlogrelay.archive.upload.KeyValueText.DamagedException;
import org.binlogrelay.archive.upload.UploadState.PartState;
import org.binlogrelay.archive.upload.UploadState.Phase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UploadStateTest {
  private static final String MD5 = "0cc175b9c0f1b6a831c399e269772661";
  private static final String SHA =
      "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb";

  @TempDir Path dir;

  @Test
  void persistsEachPhaseAndReadsItBack() throws Exception {
    String name = "binlog.000007";
    assertThat(UploadState.read(dir, name)).isEqualTo(UploadState.queued(name));
    UploadState s = UploadState.queued(name).queuedWith(100, MD5, SHA);
    for (UploadState next :
        new UploadState[] {
          s,
          s = s.uploading("upload-id-1", 64),
          s = s.withPart(new PartState(2, MD5, "etag2")),
          s = s.withPart(new PartState(1, MD5, "etag1")),
          s = s.uploaded(MD5 + "-2"),
          s.verified(MD5 + "-2", "1@relay-a"),
          s.conflict("other bytes: sha256 x")
        }) {
      next.write(dir);
      assertThat(UploadState.read(dir, name)).isEqualTo(next);
    }
    try (var files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly("binlog.000007.state");
    }
  }

  @Test
  void partsStayOrderedAndAReSentPartReplacesItsRecord() {
    UploadState s = UploadState.queued("binlog.000001").uploading("u", 10);
    s = s.withPart(new PartState(3, MD5, "c")).withPart(new PartState(1, MD5, "a"));
    s = s.withPart(new PartState(3, MD5, "d"));
    assertThat(s.parts()).extracting(PartState::etag).containsExactly("a", "d");
  }

  @Test
  void refusesImpossibleMoves() {
    UploadState verified = UploadState.queued("binlog.000001").verified("e", "r");
    assertThatThrownBy(() -> verified.queuedWith(1, MD5, SHA))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("binlog.000001: an upload cannot move from VERIFIED to QUEUED");
    UploadState conflict = UploadState.queued("binlog.000001").conflict("why");
    assertThatThrownBy(() -> conflict.uploading("u", 1)).isInstanceOf(IllegalStateException.class);
    UploadState uploaded = UploadState.queued("binlog.000001").uploaded("e");
    assertThatThrownBy(() -> uploaded.uploading("u", 1))
        .hasMessage("binlog.000001: an upload cannot move from UPLOADED to UPLOADING");
    assertThatThrownBy(() -> uploaded.withPart(new PartState(1, MD5, "e")))
        .isInstanceOf(IllegalStateException.class);
    assertThat(Phase.UPLOADED.canMoveTo(Phase.QUEUED)).isTrue();
  }

  @Test
  void aDamagedStateFileIsRefusedClearly() throws Exception {
    UploadState s = UploadState.queued("binlog.000002").queuedWith(9, MD5, SHA).uploading("u", 4);
    s.write(dir);
    Path file = UploadState.path(dir, "binlog.000002");
    byte[] bytes = Files.readAllBytes(file);
    bytes[30] ^= 0x20;
    Files.write(file, bytes);
    assertThatThrownBy(() -> UploadState.read(dir, "binlog.000002"))
        .isInstanceOf(DamagedException.class)
        .hasMessageContaining(file + ": CRC32 is ");
    Files.write(UploadState.path(dir, "binlog.000003"), s.encode());
    assertThatThrownBy(() -> UploadState.read(dir, "binlog.000003"))
        .isInstanceOf(DamagedException.class)
        .hasMessageContaining("describes binlog.000002, not binlog.000003");
  }
}
