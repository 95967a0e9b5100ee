package org.binlogrelay.archive.upload;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The digests of one local binlog file, computed in one sequential pass through a 1 MiB buffer
 * (never the whole file in memory): its MD5 and SHA-256, and, for a multipart upload only, the MD5
 * of each part, from which the ETag an S3-compatible server gives the completed object follows
 * ({@link #expectedEtag}). Immutable after {@link #of}; thread-safe.
 *
 * @param size the file's length
 * @param partSize the multipart part size, 0 for a single PUT
 */
record LocalDigest(long size, byte[] md5, String sha256, long partSize, List<byte[]> partMd5s) {
  private static final int BUFFER = 1 << 20;
  private static final HexFormat HEX = HexFormat.of();

  LocalDigest {
    md5 = md5.clone();
    partMd5s = List.copyOf(partMd5s);
  }

  /**
   * Reads {@code size} bytes of {@code channel} from offset 0.
   *
   * @param partSize 0 for one part, else the multipart part size
   * @throws IOException if reading fails or the file is shorter than {@code size}
   */
  static LocalDigest of(FileChannel channel, String name, long size, long partSize)
      throws IOException {
    MessageDigest whole = digest("MD5");
    MessageDigest sha = digest("SHA-256");
    MessageDigest part = digest("MD5");
    List<byte[]> parts = new ArrayList<>();
    ByteBuffer buf = ByteBuffer.allocate((int) Math.min(BUFFER, Math.max(size, 1)));
    long pos = 0;
    long partEnd = partSize == 0 ? size : Math.min(size, partSize);
    while (pos < size) {
      buf.clear();
      buf.limit((int) Math.min(buf.capacity(), partEnd - pos));
      int n = channel.read(buf, pos);
      if (n < 0) {
        throw new IOException(
            name + " ends at " + pos + " bytes, but the store says it has " + size);
      }
      buf.flip();
      whole.update(buf.duplicate());
      sha.update(buf.duplicate());
      if (partSize > 0) {
        // a single PUT's ETag is the whole file's MD5: no second MD5 of the same bytes
        part.update(buf);
      }
      pos += n;
      if (pos == partEnd && partSize > 0) {
        parts.add(part.digest());
        partEnd = Math.min(size, partEnd + partSize);
      }
    }
    return new LocalDigest(size, whole.digest(), HEX.formatHex(sha.digest()), partSize, parts);
  }

  /** The part size for a file of {@code size} bytes: 0 (single PUT) below the threshold. */
  static long partSizeFor(long size, long threshold) {
    if (size < threshold) {
      return 0;
    }
    return Math.max(threshold, (size + 8_999) / 9_000);
  }

  String md5Hex() {
    return HEX.formatHex(md5);
  }

  @Override
  public byte[] md5() {
    return md5.clone();
  }

  int parts() {
    return partMd5s.size();
  }

  byte[] partMd5(int number) {
    return partMd5s.get(number - 1).clone();
  }

  String partMd5Hex(int number) {
    return HEX.formatHex(partMd5s.get(number - 1));
  }

  long partOffset(int number) {
    return (number - 1) * partSize;
  }

  long partLength(int number) {
    return Math.min(partSize, size - partOffset(number));
  }

  /** The ETag of the object: hex MD5, or MD5 of the parts' MD5s and "-N" for a multipart one. */
  String expectedEtag() {
    if (partSize == 0) {
      return md5Hex();
    }
    MessageDigest m = digest("MD5");
    for (byte[] p : partMd5s) {
      m.update(p);
    }
    return HEX.formatHex(m.digest()) + "-" + partMd5s.size();
  }

  static MessageDigest digest(String algorithm) {
    try {
      return MessageDigest.getInstance(algorithm);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(algorithm + " is missing from this JVM", e);
    }
  }

  static String hex(byte[] bytes) {
    return HEX.formatHex(bytes);
  }
}
