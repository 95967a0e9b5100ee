package org.binlogrelay.archive.codec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A binlog file encoded into an archived object's bytes, held in a temporary file, with what an
 * uploader must know before sending it: the object's length and MD5 ({@code Content-MD5}, the
 * ETag), the file's length and SHA-256, and the chunk offsets. {@link #close()} deletes the
 * temporary file. Immutable apart from that file; thread-safe.
 *
 * @param file the temporary file holding the object's bytes
 * @param encoding how it is encoded
 * @param keyId the key id it is encrypted with, empty if not encrypted
 * @param chunkSize plaintext bytes per chunk, 0 for identity
 * @param length the object's length
 * @param md5 the MD5 of the object's bytes (16 bytes)
 * @param plainLength the binlog file's length
 * @param plainSha256 the SHA-256 of the binlog file's bytes (32 bytes)
 * @param chunkOffsets the object offset of each chunk record, empty for identity (the index that
 *     follows the last chunk lists them too)
 */
public record EncodedObject(
    Path file,
    ObjectEncoding encoding,
    String keyId,
    int chunkSize,
    long length,
    byte[] md5,
    long plainLength,
    byte[] plainSha256,
    List<Long> chunkOffsets)
    implements AutoCloseable {

  public EncodedObject {
    md5 = md5.clone();
    plainSha256 = plainSha256.clone();
    chunkOffsets = List.copyOf(chunkOffsets);
  }

  @Override
  public byte[] md5() {
    return md5.clone();
  }

  @Override
  public byte[] plainSha256() {
    return plainSha256.clone();
  }

  /** The MD5 in lower-case hex: a single PUT's ETag. */
  public String md5Hex() {
    return HexFormat.of().formatHex(md5);
  }

  /** The MD5 in base64: the {@code Content-MD5} header of a single PUT. */
  public String contentMd5() {
    return Base64.getEncoder().encodeToString(md5);
  }

  /** The SHA-256 of the binlog file in lower-case hex (the metadata object's {@code sha256}). */
  public String plainSha256Hex() {
    return HexFormat.of().formatHex(plainSha256);
  }

  /**
   * The small pairs to store as the object's user metadata ({@code x-amz-meta-*}): {@code sha256},
   * {@code size} (of the binlog file), {@code encoding} and, if encrypted, {@code key-id}.
   */
  public Map<String, String> userMetadata() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("sha256", plainSha256Hex());
    m.put("size", Long.toString(plainLength));
    m.put("encoding", encoding.name());
    if (!keyId.isEmpty()) {
      m.put("key-id", keyId);
    }
    return m;
  }

  /** Deletes the temporary file (no error if it is gone). */
  @Override
  public void close() throws IOException {
    Files.deleteIfExists(file);
  }
}
