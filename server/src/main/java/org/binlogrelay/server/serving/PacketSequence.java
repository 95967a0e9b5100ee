package org.binlogrelay.server.serving;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;

/**
 * The packets of one dump stream on the wire, with their sequence ids. Every frame is
 *
 * <pre>
 *   u24 LE  length      0 .. 0xFFFFFF
 *   u8      sequence id one more than the previous frame's, modulo 256
 *   n       payload     a payload of 0xFFFFFF bytes or more continues in the next frame; a payload whose
 *                       length is a multiple of 0xFFFFFF (0 included) ends with an empty frame
 * </pre>
 *
 * An event's payload is {@code 0x00} (the OK marker) followed by the event, so an event of 0xFFFFFE
 * bytes or more takes two frames or more: the marker counts in the first frame's length.
 *
 * <p>The stream writes frames itself (as {@code ByteBuf}s and file regions) rather than through the
 * pipeline's packet encoder, because a region cannot be wrapped in a packet object. Not
 * thread-safe: the channel's event loop owns it.
 */
final class PacketSequence {
  /** The longest frame payload; a frame this long is continued by the next. */
  static final int MAX_FRAME = 0xFFFFFF;

  static final int HEADER = 4;

  private int next;

  PacketSequence(int first) {
    this.next = first & 0xff;
  }

  /** The id the next frame will carry. */
  int next() {
    return next;
  }

  /**
   * Counts {@code frames} frames that went out framed by another sequence with the same next id (a
   * shared batch, {@link TailGroup}).
   */
  void advance(int frames) {
    next = (next + frames) & 0xff;
  }

  /** Writes a frame header for {@code length} payload bytes and advances the id. */
  void header(ByteBuf out, int length) {
    if (length < 0 || length > MAX_FRAME) {
      throw new IllegalArgumentException("frame of " + length + " bytes");
    }
    out.writeMediumLE(length).writeByte(next);
    next = (next + 1) & 0xff;
  }

  /** A whole payload (any length) framed into one new buffer. */
  ByteBuf packet(ByteBufAllocator alloc, byte[] payload) {
    int frames = frames(payload.length);
    ByteBuf out = alloc.buffer(payload.length + frames * HEADER);
    int at = 0;
    for (int k = 0; k < frames; k++) {
      int length = frameLength(payload.length, k);
      header(out, length);
      out.writeBytes(payload, at, length);
      at += length;
    }
    return out;
  }

  /**
   * Writes the packet(s) of one event whose bytes are {@code [index, index + size)} of {@code
   * source}: the OK marker, then the event, framed.
   */
  void event(ByteBuf out, ByteBuf source, int index, int size) {
    long payload = size + 1L;
    int frames = frames(payload);
    int at = index;
    for (int k = 0; k < frames; k++) {
      int length = frameLength(payload, k);
      header(out, length);
      if (k == 0) {
        out.writeByte(0);
        out.writeBytes(source, at, length - 1);
        at += length - 1;
      } else {
        out.writeBytes(source, at, length);
        at += length;
      }
    }
  }

  /**
   * Writes the packet of one event below a frame's limit ({@code size + 1 < MAX_FRAME}) at {@code
   * index} of {@code dst} (little-endian order): header, OK marker, the event copied from {@code
   * [at, at + size)} of {@code src}; returns the index after it. Neither buffer's position moves.
   */
  int event(ByteBuffer dst, int index, ByteBuffer src, int at, int size) {
    int length = size + 1;
    if (length >= MAX_FRAME) {
      throw new IllegalArgumentException("event of " + size + " bytes takes more than one frame");
    }
    dst.putInt(index, length | next << 24);
    dst.put(index + HEADER, (byte) 0);
    dst.put(index + HEADER + 1, src, at, size);
    next = (next + 1) & 0xff;
    return index + HEADER + 1 + size;
  }

  /** Bytes on the wire for an event of {@code size} bytes: headers, marker and event. */
  static long eventWireBytes(long size) {
    return size + 1 + (long) frames(size + 1) * HEADER;
  }

  /** How many frames a payload of {@code length} bytes takes. */
  static int frames(long length) {
    return (int) (length / MAX_FRAME) + 1;
  }

  /** The payload length of frame {@code k} of a payload of {@code length} bytes. */
  static int frameLength(long length, int k) {
    return (int) Math.min(MAX_FRAME, length - (long) k * MAX_FRAME);
  }
}
