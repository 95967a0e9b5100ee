package org.binlogrelay.archive.codec;

import com.github.luben.zstd.Zstd;
import java.nio.ByteBuffer;

/**
 * Checks and opens one chunk record of an object (layout in {@link ObjectLayout}): the record's
 * lengths and flags against the header's limits before anything is read into a buffer, then the
 * seal, then zstd. Holds buffers of the chunk size; not thread-safe (one per decoder or per thread
 * of a ranged reader).
 */
final class ChunkOpener {
  private final ObjectLayout layout;
  private final ChunkSeal seal;
  private final byte[] payload;
  private final byte[] data;
  private final byte[] plain;

  /**
   * A chunk record's fields.
   *
   * @param payloadLength bytes of payload after the record header
   * @param plainLength plaintext bytes of the chunk
   * @param flags {@link ObjectLayout#LAST}, {@link ObjectLayout#ZSTD}
   */
  record ChunkRecord(int payloadLength, int plainLength, int flags) {
    boolean last() {
      return (flags & ObjectLayout.LAST) != 0;
    }
  }

  ChunkOpener(ObjectLayout layout, ChunkSeal seal) {
    this.layout = layout;
    this.seal = seal;
    this.payload = new byte[layout.maxPayload()];
    this.data = new byte[layout.maxPayload()];
    this.plain = new byte[layout.header().chunkSize()];
  }

  /** The buffer {@link #open} reads the payload from; fill {@code [0, payloadLength)}. */
  byte[] payload() {
    return payload;
  }

  /** Parses and checks the 9-byte header of chunk {@code index}'s record. */
  ChunkRecord record(byte[] header, long index, long offset) throws ObjectDecodeException {
    ByteBuffer b = ByteBuffer.wrap(header, 0, ObjectLayout.RECORD_HEADER);
    int s = b.getInt();
    int p = b.getInt();
    int flags = b.get() & 0xff;
    int chunkSize = layout.header().chunkSize();
    String problem = null;
    if ((flags & ~(ObjectLayout.LAST | ObjectLayout.ZSTD)) != 0
        || (flags & ObjectLayout.ZSTD) != 0 && !layout.header().encoding().compressed()) {
      problem = "unknown flags " + flags;
    } else if (p < 0 || p > chunkSize) {
      problem = "plaintext length " + p + " is out of range";
    } else if ((flags & ObjectLayout.LAST) == 0 ? p != chunkSize : p == 0 && index != 0) {
      problem = "plaintext length " + p + " does not fit its place";
    } else if (s < seal.sealedLength(0) || s > layout.maxPayload()) {
      problem = "payload length " + s + " is out of range";
    } else if ((flags & ObjectLayout.ZSTD) == 0 && s != seal.sealedLength(p)) {
      problem = "payload length " + s + " does not fit plaintext length " + p;
    }
    if (problem != null) {
      throw damaged(index, offset, problem);
    }
    return new ChunkRecord(s, p, flags);
  }

  /**
   * Opens chunk {@code index} whose payload is in {@link #payload()}.
   *
   * @return the buffer holding the chunk's plaintext in {@code [0, record.plainLength())}
   */
  byte[] open(ChunkRecord record, long index, long offset) throws ObjectDecodeException {
    byte[] aad = layout.chunkAad(index, record.plainLength(), record.flags());
    int n;
    try {
      n = seal.open(aad, payload, record.payloadLength(), data);
    } catch (ChunkSeal.BrokenSealException e) {
      throw damaged(
          index,
          offset,
          "it fails its check ("
              + e.getMessage()
              + "): damaged, or moved from another place or another file");
    }
    if ((record.flags() & ObjectLayout.ZSTD) == 0) {
      return data;
    }
    long p;
    try {
      p = Zstd.decompressByteArray(plain, 0, record.plainLength(), data, 0, n);
    } catch (RuntimeException e) {
      throw damaged(index, offset, "zstd cannot decompress it: " + e.getMessage());
    }
    if (p != record.plainLength()) {
      throw damaged(
          index, offset, "it decompresses to " + p + " bytes, not " + record.plainLength());
    }
    return plain;
  }

  ObjectDecodeException damaged(long index, long offset, String what) {
    return new ObjectDecodeException(
        ObjectDecodeException.Kind.DAMAGED_CHUNK, layout.chunk(index, offset) + ": " + what);
  }
}
