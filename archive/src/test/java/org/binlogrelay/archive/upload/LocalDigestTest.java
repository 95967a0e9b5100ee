package org.binlogrelay.archive.upload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalDigestTest {
  @TempDir Path dir;

  @Test
  void partSizeIsTheThresholdOrEnoughForAtMost9000Parts() {
    long mib = 1 << 20;
    assertThat(LocalDigest.partSizeFor(16 * mib - 1, 16 * mib)).isZero();
    assertThat(LocalDigest.partSizeFor(16 * mib, 16 * mib)).isEqualTo(16 * mib);
    assertThat(LocalDigest.partSizeFor(4L << 30, 16 * mib)).isEqualTo(16 * mib);
    long huge = 200L << 30;
    long part = LocalDigest.partSizeFor(huge, 16 * mib);
    assertThat(part).isEqualTo((huge + 8_999) / 9_000);
    assertThat((huge + part - 1) / part).isLessThanOrEqualTo(9_000);
  }

  @Test
  void digestsAndPartsMatchAStraightComputationAtEveryBoundary() throws Exception {
    byte[] bytes = new byte[(3 << 20) + 12_345];
    new Random(18).nextBytes(bytes);
    Path file = Files.write(dir.resolve("binlog.000001"), bytes);
    for (long partSize : new long[] {0, 1 << 20, 1_000_000, (1 << 20) + 1, bytes.length}) {
      LocalDigest d;
      try (FileChannel ch = FileChannel.open(file)) {
        d = LocalDigest.of(ch, "binlog.000001", bytes.length, partSize);
      }
      assertThat(d.md5Hex()).isEqualTo(hex("MD5", bytes));
      assertThat(d.sha256()).isEqualTo(hex("SHA-256", bytes));
      if (partSize == 0) {
        assertThat(d.parts()).isZero();
        assertThat(d.expectedEtag()).isEqualTo(hex("MD5", bytes));
        continue;
      }
      MessageDigest ofParts = MessageDigest.getInstance("MD5");
      int n = (int) ((bytes.length + partSize - 1) / partSize);
      assertThat(d.parts()).isEqualTo(n);
      for (int i = 1; i <= n; i++) {
        byte[] part =
            Arrays.copyOfRange(
                bytes, (int) d.partOffset(i), (int) (d.partOffset(i) + d.partLength(i)));
        assertThat(d.partMd5Hex(i)).isEqualTo(hex("MD5", part));
        ofParts.update(MessageDigest.getInstance("MD5").digest(part));
        try (InputStream in =
            new FileRegionBody(
                    name -> FileChannel.open(dir.resolve(name)),
                    "binlog.000001",
                    d.partOffset(i),
                    d.partLength(i))
                .open()) {
          assertThat(in.readAllBytes()).isEqualTo(part);
        }
      }
      assertThat(d.expectedEtag()).isEqualTo(LocalDigest.hex(ofParts.digest()) + "-" + n);
    }
  }

  @Test
  void aFileShorterThanTheStoreSaysIsALocalError() throws Exception {
    Path file = Files.write(dir.resolve("binlog.000002"), new byte[100]);
    try (FileChannel ch = FileChannel.open(file)) {
      assertThatThrownBy(() -> LocalDigest.of(ch, "binlog.000002", 150, 0))
          .isInstanceOf(IOException.class)
          .hasMessage("binlog.000002 ends at 100 bytes, but the store says it has 150");
    }
  }

  private static String hex(String algorithm, byte[] bytes) throws Exception {
    return LocalDigest.hex(MessageDigest.getInstance(algorithm).digest(bytes));
  }
}
