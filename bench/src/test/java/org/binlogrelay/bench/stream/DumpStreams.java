package org.binlogrelay.bench.stream;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.zip.CRC32;
import org.binlogrelay.protocol.bytes.ByteWriter;
import org.binlogrelay.protocol.bytes.LittleEndian;

/**
 * Test side: the real binlog files of protocol's fixtures (docs/fixtures.md) and dump streams made
 * from them the way a source's dump thread sends them: an artificial ROTATE naming the file, then
 * its events (the first file's FORMAT_DESCRIPTION with the in-use flag cleared), or, for a start
 * inside a file, the FORMAT_DESCRIPTION with log_pos 0 and the events from there.
 */
final class DumpStreams {
  private final ByteArrayOutputStream packets = new ByteArrayOutputStream();
  private int sequence = 1;

  static Properties expected(String fixture) {
    Properties p = new Properties();
    try (InputStream in = resource(fixture, "expected.properties")) {
      p.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return p;
  }

  static List<String> files(String fixture) {
    return Arrays.asList(expected(fixture).getProperty("files").split(","));
  }

  static byte[] file(String fixture, String name) {
    try (InputStream in = resource(fixture, name)) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static InputStream resource(String fixture, String name) {
    InputStream in = DumpStreams.class.getResourceAsStream("/fixtures/" + fixture + "/" + name);
    if (in == null) {
      throw new IllegalStateException(
          "fixture " + fixture + "/" + name + " missing from protocol's test-jar");
    }
    return in;
  }

  /** The events of a binlog file, each as its bytes. */
  static List<byte[]> events(byte[] file) {
    List<byte[]> events = new ArrayList<>();
    int at = 4;
    while (at < file.length) {
      int size = (int) LittleEndian.u32(file, at + 9);
      events.add(Arrays.copyOfRange(file, at, at + size));
      at += size;
    }
    return events;
  }

  /**
   * An artificial ROTATE (timestamp 0, log_pos 0, flag 0x20) to {@code name} at {@code position},
   * with CRC32.
   */
  static byte[] artificialRotate(String name, long position) {
    byte[] n = name.getBytes(StandardCharsets.UTF_8);
    int size = 19 + 8 + n.length + 4;
    byte[] event =
        new ByteWriter(size)
            .u32(0)
            .u8(4)
            .u32(1)
            .u32(size)
            .u32(0)
            .u16(0x20)
            .u64(position)
            .bytes(n)
            .u32(0)
            .toByteArray();
    return withCrc(event);
  }

  static byte[] withCrc(byte[] event) {
    CRC32 crc = new CRC32();
    crc.update(event, 0, event.length - 4);
    LittleEndian.put32(event, event.length - 4, crc.getValue());
    return event;
  }

  /** Appends one event packet (0x00 marker), split into frames as a server does. */
  DumpStreams event(byte[] event) {
    byte[] payload = new byte[event.length + 1];
    System.arraycopy(event, 0, payload, 1, event.length);
    int at = 0;
    while (true) {
      int n = Math.min(0xFFFFFF, payload.length - at);
      packets.write(n);
      packets.write(n >>> 8);
      packets.write(n >>> 16);
      packets.write(sequence++ & 0xff);
      packets.write(payload, at, n);
      at += n;
      if (n < 0xFFFFFF) {
        return this;
      }
    }
  }

  /** Appends a non-blocking dump's EOF packet. */
  DumpStreams eof() {
    packets.write(new byte[] {5, 0, 0, (byte) sequence++, (byte) 0xfe, 0, 0, 2, 0}, 0, 9);
    return this;
  }

  /** The whole fixture from its first file, as a dump from binlog.000001:4 sends it. */
  static DumpStreams wholeFixture(String fixture) {
    DumpStreams s = new DumpStreams();
    List<String> names = files(fixture);
    s.event(artificialRotate(names.get(0), 4));
    for (String name : names) {
      List<byte[]> events = events(file(fixture, name));
      for (int i = 0; i < events.size(); i++) {
        byte[] e = events.get(i);
        if (i == 0) {
          e = e.clone();
          e[17] &=
              ~1; // the dump thread clears LOG_EVENT_BINLOG_IN_USE_F; the CRC does not cover it
        }
        s.event(e);
      }
    }
    return s;
  }

  byte[] bytes() {
    return packets.toByteArray();
  }
}
