package org.binlogrelay.server.serving;

import io.netty.buffer.ByteBuf;
import io.netty.channel.FileRegion;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Test side: what a dump put on an {@link EmbeddedChannel}, as the replica would read it. Buffers
 * and file regions are drained in order (regions transferred as Netty would, then released), and
 * the bytes are parsed back into MySQL packets, continuation frames joined.
 */
final class Wire {
  /** One logical packet: the sequence id of its first frame, its frames, and the joined payload. */
  record Packet(int sequenceId, int frames, byte[] payload) {
    int first() {
      return payload.length == 0 ? -1 : payload[0] & 0xff;
    }

    /** For an event packet (0x00 marker), the event bytes. */
    byte[] event() {
      if (first() != 0) {
        throw new AssertionError(
            "not an event packet: first byte " + first() + " of " + payload.length);
      }
      return Arrays.copyOfRange(payload, 1, payload.length);
    }

    int eventType() {
      return payload[1 + 4] & 0xff;
    }
  }

  /** What was written and how: buffer count and region count, and the bytes. */
  record Drained(byte[] bytes, int buffers, int regions) {}

  private Wire() {}

  static Drained drain(EmbeddedChannel channel) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    WritableByteChannel target = Channels.newChannel(out);
    int buffers = 0;
    int regions = 0;
    for (Object m = channel.readOutbound(); m != null; m = channel.readOutbound()) {
      if (m instanceof ByteBuf buf) {
        byte[] b = new byte[buf.readableBytes()];
        buf.readBytes(b);
        out.writeBytes(b);
        buf.release();
        buffers++;
      } else if (m instanceof FileRegion region) {
        try {
          while (region.transferred() < region.count()) {
            region.transferTo(target, region.transferred());
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        } finally {
          region.release();
        }
        regions++;
      } else {
        throw new AssertionError("unexpected outbound message " + m);
      }
    }
    return new Drained(out.toByteArray(), buffers, regions);
  }

  static List<Packet> packets(byte[] wire) {
    List<Packet> out = new ArrayList<>();
    int p = 0;
    while (p < wire.length) {
      ByteArrayOutputStream payload = new ByteArrayOutputStream();
      int first = -1;
      int frames = 0;
      int expected = -1;
      while (true) {
        if (p + 4 > wire.length) {
          throw new AssertionError("frame header cut at " + p + " of " + wire.length);
        }
        int length = (wire[p] & 0xff) | (wire[p + 1] & 0xff) << 8 | (wire[p + 2] & 0xff) << 16;
        int seq = wire[p + 3] & 0xff;
        if (first < 0) {
          first = seq;
        } else if (seq != expected) {
          throw new AssertionError(
              "frame " + frames + " has sequence id " + seq + ", expected " + expected);
        }
        expected = (seq + 1) & 0xff;
        p += 4;
        payload.write(wire, p, length);
        p += length;
        frames++;
        if (length < PacketSequence.MAX_FRAME) {
          break;
        }
      }
      out.add(new Packet(first, frames, payload.toByteArray()));
    }
    return out;
  }
}
