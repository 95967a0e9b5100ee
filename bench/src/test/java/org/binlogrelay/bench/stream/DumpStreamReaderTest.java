package org.binlogrelay.bench.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.channels.ReadableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.binlogrelay.bench.client.PacketFrames;
import org.binlogrelay.bench.client.SourceException;
import org.binlogrelay.bench.client.TrickleChannel;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.ByteWriter;
import org.binlogrelay.protocol.packet.BlockingPacketReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DumpStreamReaderTest {
  @TempDir Path dir;

  private static DumpStreamReader reader(byte[] stream, FileRebuilder rebuilder) {
    BlockingPacketReader packets =
        new BlockingPacketReader(new ByteArrayInputStream(stream), 256, 64 << 20, "the source", "");
    packets.expectSequence(1);
    return new DumpStreamReader(packets, true, true, rebuilder, () -> 0L);
  }

  private static void drain(DumpStreamReader reader) throws IOException {
    while (reader.next() != DumpStreamReader.Kind.EOF) {
      // read on
    }
  }

  private void copyFixture(String fixture) throws IOException {
    for (String name : DumpStreams.files(fixture)) {
      Files.write(dir.resolve(name), DumpStreams.file(fixture, name));
    }
  }

  @Test
  void readsTheClockOncePerReadOfTheSocketNotPerEvent() throws IOException {
    BlockingPacketReader packets =
        new BlockingPacketReader(
            new ByteArrayInputStream(DumpStreams.wholeFixture("mysql-9.7").eof().bytes()),
            4096,
            64 << 20,
            "the source",
            "");
    packets.expectSequence(1);
    AtomicLong clock = new AtomicLong();
    DumpStreamReader reader =
        new DumpStreamReader(packets, true, true, null, clock::incrementAndGet);
    drain(reader);
    assertThat(clock.get())
        .as("clock reads")
        .isPositive()
        .isLessThanOrEqualTo(packets.reads())
        .isLessThan(reader.events() / 4);
    assertThat(reader.progress().lastEventNanos())
        .as("the last event's arrival")
        .isEqualTo(clock.get());
  }

  @ParameterizedTest
  @ValueSource(strings = {"mysql-9.7", "mariadb-10.11", "mariadb-11.8"})
  void countsAndRebuildsARealServersFilesByteForByte(String fixture) throws IOException {
    copyFixture(fixture);
    List<String> names = DumpStreams.files(fixture);
    long bytes = 0;
    long events = 0;
    for (String name : names) {
      byte[] f = DumpStreams.file(fixture, name);
      bytes += f.length - 4;
      events += DumpStreams.events(f).size();
    }
    try (SourceFileComparison comparison = new SourceFileComparison(dir)) {
      DumpStreamReader reader =
          reader(DumpStreams.wholeFixture(fixture).eof().bytes(), new FileRebuilder(comparison));
      drain(reader);
      assertThat(reader.eventBytes())
          .isEqualTo(bytes + DumpStreams.artificialRotate(names.get(0), 4).length);
      assertThat(reader.events()).isEqualTo(events + 1);
      assertThat(reader.checksumsVerified()).isEqualTo(events + 1);
      long gtids = 0;
      for (String name : names) {
        gtids +=
            Long.parseLong(
                DumpStreams.expected(fixture).getProperty("file." + name + ".gtid_count"));
      }
      assertThat(reader.transactions()).isEqualTo(gtids);
      String last = names.get(names.size() - 1);
      assertThat(reader.position())
          .isEqualTo(new BinlogPosition(last, Files.size(dir.resolve(last))));
      assertThat(comparison.compared()).isEqualTo(bytes);
      assertThat(comparison.results())
          .hasSize(names.size())
          .allSatisfy(r -> assertThat(r.whole()).isTrue());
    }
  }

  @Test
  void aStartInsideAFileSkipsItsHeadAndTheLogPosZeroFormatDescription() throws IOException {
    copyFixture("mysql-9.7");
    String name = DumpStreams.files("mysql-9.7").get(1);
    List<byte[]> events = DumpStreams.events(DumpStreams.file("mysql-9.7", name));
    long start = 4;
    for (int i = 0; i < 4; i++) {
      start += events.get(i).length;
    }
    byte[] format = events.get(0).clone();
    format[13] = format[14] = format[15] = format[16] = 0; // log_pos 0: sent for decoding only
    DumpStreams stream =
        new DumpStreams()
            .event(DumpStreams.artificialRotate(name, start))
            .event(DumpStreams.withCrc(format));
    for (byte[] e : events.subList(4, events.size())) {
      stream.event(e);
    }
    try (SourceFileComparison comparison = new SourceFileComparison(dir)) {
      DumpStreamReader reader = reader(stream.eof().bytes(), new FileRebuilder(comparison));
      drain(reader);
      SourceFileComparison.FileResult result = comparison.results().get(0);
      assertThat(result.skipped()).isEqualTo(start - 4);
      assertThat(result.compared()).isEqualTo(Files.size(dir.resolve(name)) - start);
      assertThat(result.whole()).isFalse();
      assertThat(result.complete()).isTrue();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"mysql-9.7", "mariadb-10.11", "mariadb-11.8"})
  void packetsReadWithoutBlockingCountAsPacketsReadBlocking(String fixture) throws IOException {
    byte[] bytes = DumpStreams.wholeFixture(fixture).eof().bytes();
    DumpStreamReader blocking = reader(bytes, null);
    drain(blocking);
    // The blocking reader had the login's last bytes; the rest comes from the channel in pieces.
    int handedOver = 100;
    PacketFrames frames = new PacketFrames(Arrays.copyOf(bytes, handedOver), 256, 64 << 20, 1);
    ReadableByteChannel channel =
        new TrickleChannel(Arrays.copyOfRange(bytes, handedOver, bytes.length), 11);
    DumpStreamReader pushed = new DumpStreamReader(null, true, true, null, () -> 0L);
    long reads = 0;
    DumpStreamReader.Kind last = null;
    while (last != DumpStreamReader.Kind.EOF) {
      while (frames.next()) {
        last = pushed.accept(frames.array(), frames.offset(), frames.length(), reads);
      }
      if (last != DumpStreamReader.Kind.EOF) {
        assertThat(frames.readFrom(channel)).as("bytes before the EOF packet").isNotNegative();
        reads++;
      }
    }
    assertThat(pushed.events()).isEqualTo(blocking.events());
    assertThat(pushed.eventBytes()).isEqualTo(blocking.eventBytes());
    assertThat(pushed.transactions()).isEqualTo(blocking.transactions());
    assertThat(pushed.checksumsVerified()).isEqualTo(blocking.checksumsVerified());
    assertThat(pushed.position()).isEqualTo(blocking.position());
    assertThat(pushed.progress().lastEventNanos()).as("the last event's read").isBetween(1L, reads);
    assertThatThrownBy(() -> blocking.accept(new byte[1], 0, 1, 0))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aFlippedByteFailsTheCrc32Check() {
    List<byte[]> events = DumpStreams.events(DumpStreams.file("mysql-9.7", "binlog.000001"));
    byte[] broken = events.get(3).clone();
    broken[25] ^= 0x10;
    DumpStreams stream = new DumpStreams().event(DumpStreams.artificialRotate("binlog.000001", 4));
    events.subList(0, 3).forEach(stream::event);
    stream.event(broken);
    DumpStreamReader reader = reader(stream.bytes(), null);
    assertThatThrownBy(() -> drain(reader))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("CRC32 mismatch")
        .hasMessageContaining("binlog.000001");
  }

  @Test
  void bytesThatDifferFromTheSourcesFileAreReportedWithTheirOffset() throws IOException {
    copyFixture("mysql-9.7");
    byte[] f = Files.readAllBytes(dir.resolve("binlog.000001"));
    int target = 4 + DumpStreams.events(f).get(0).length + 30;
    f[target] ^= 1;
    Files.write(dir.resolve("binlog.000001"), f);
    try (SourceFileComparison comparison = new SourceFileComparison(dir)) {
      DumpStreamReader reader =
          reader(DumpStreams.wholeFixture("mysql-9.7").bytes(), new FileRebuilder(comparison));
      assertThatThrownBy(() -> drain(reader))
          .isInstanceOf(SourceFileComparison.MismatchException.class)
          .hasMessageContaining("binlog.000001: byte " + target + " differs");
    }
  }

  @Test
  void anEventOver16MiBArrivesSplitAndIsCheckedWhole() throws IOException {
    int size = 0xFFFFFF + 1000;
    byte[] big = new byte[size];
    new Random(7).nextBytes(big);
    byte[] header =
        new ByteWriter(19)
            .u32(1_795_319_847L)
            .u8(30)
            .u32(1)
            .u32(size)
            .u32(400 + size)
            .u16(0)
            .toByteArray();
    System.arraycopy(header, 0, big, 0, 19);
    DumpStreams stream =
        new DumpStreams()
            .event(DumpStreams.artificialRotate("binlog.000009", 400))
            .event(DumpStreams.withCrc(big))
            .eof();
    DumpStreamReader reader = reader(stream.bytes(), null);
    drain(reader);
    assertThat(reader.events()).isEqualTo(2);
    assertThat(reader.checksumsVerified()).isEqualTo(2);
    assertThat(reader.position()).isEqualTo(new BinlogPosition("binlog.000009", 400 + size));
  }

  @Test
  void anErrorPacketEndsTheStreamWithTheSourcesMessage() {
    byte[] err =
        new ByteWriter()
            .u8(0xff)
            .u16(1236)
            .string("#HY000")
            .string("Could not find first log file name")
            .toByteArray();
    byte[] stream = new ByteWriter().u24(err.length).u8(1).bytes(err).toByteArray();
    DumpStreamReader reader = reader(stream, null);
    assertThatThrownBy(reader::next)
        .isInstanceOf(SourceException.class)
        .hasMessageContaining("ERROR 1236 (HY000): Could not find first log file name");
  }
}
