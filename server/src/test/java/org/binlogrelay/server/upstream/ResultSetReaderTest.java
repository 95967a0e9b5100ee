package org.binlogrelay.server.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Arrays;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.ByteWriter;
import org.binlogrelay.protocol.packet.BlockingPacketReader;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.packet.Frames;
import org.binlogrelay.protocol.packet.OkPacket;
import org.junit.jupiter.api.Test;

class ResultSetReaderTest {
  private static final byte[] EOF = {(byte) 0xfe, 0, 0, 2, 0};

  private static byte[] column(String name) {
    return new ByteWriter()
        .lenencString("def")
        .lenencString("")
        .lenencString("")
        .lenencString("")
        .lenencString(name)
        .lenencString(name)
        .u8(0x0c)
        .u16(33)
        .u32(255)
        .u8(0xfd)
        .u16(0)
        .u8(0)
        .u16(0)
        .toByteArray();
  }

  private static BlockingPacketReader reader(byte[]... packets) {
    BlockingPacketReader r =
        new BlockingPacketReader(
            new ByteArrayInputStream(Frames.packets(1, packets)), 64, 1 << 20, "the primary", "");
    r.expectSequence(1);
    return r;
  }

  @Test
  void readsRowsWithNulls() throws IOException {
    byte[] row1 =
        new ByteWriter().lenencString("binlog.000001").lenencString("4096").u8(0xfb).toByteArray();
    byte[] row2 =
        new ByteWriter()
            .lenencString("binlog.000002")
            .lenencString("157")
            .lenencString("No")
            .toByteArray();
    ResultRows rows =
        ResultSetReader.read(
            reader(
                new byte[] {3},
                column("Log_name"),
                column("File_size"),
                column("Encrypted"),
                EOF,
                row1,
                row2,
                EOF),
            "SHOW BINARY LOGS");
    assertThat(rows.columns()).containsExactly("Log_name", "File_size", "Encrypted");
    assertThat(rows.rows()).hasSize(2);
    assertThat(rows.value(0, "log_name")).isEqualTo("binlog.000001");
    assertThat(rows.value(0, "Encrypted")).isNull();
    assertThat(rows.value(1, "File_size")).isEqualTo("157");
  }

  @Test
  void anOkIsAnEmptyResult() throws IOException {
    assertThat(ResultSetReader.read(reader(OkPacket.ok().encode()), "SET").isEmpty()).isTrue();
    ResultSetReader.readOk(reader(OkPacket.ok().encode()), "SET");
  }

  @Test
  void anErrKeepsTheServersCodeAndText() {
    byte[] err =
        new ErrPacket(1227, "42000", "Access denied; you need the REPLICATION CLIENT privilege")
            .encode();
    assertThatThrownBy(
            () -> ResultSetReader.read(reader(err), "primary x failed 'SHOW BINARY LOGS'"))
        .isInstanceOfSatisfying(
            PrimaryErrorException.class,
            e -> {
              assertThat(e.code()).isEqualTo(1227);
              assertThat(e.sqlState()).isEqualTo("42000");
              assertThat(e.serverMessage()).startsWith("Access denied");
              assertThat(e.getMessage())
                  .isEqualTo(
                      "primary x failed 'SHOW BINARY LOGS': error 1227 (42000): Access denied;"
                          + " you need the REPLICATION CLIENT privilege");
            });
    assertThatThrownBy(() -> ResultSetReader.readOk(reader(err), "SET"))
        .isInstanceOf(PrimaryErrorException.class);
  }

  @Test
  void anErrAfterSomeRowsIsThrown() {
    byte[] row = new ByteWriter().lenencString("1").toByteArray();
    byte[] err = new ErrPacket(1317, "70100", "Query execution was interrupted").encode();
    assertThatThrownBy(
            () -> ResultSetReader.read(reader(new byte[] {1}, column("a"), EOF, row, err), "q"))
        .isInstanceOfSatisfying(
            PrimaryErrorException.class, e -> assertThat(e.code()).isEqualTo(1317));
  }

  @Test
  void aRowOfTheWrongWidthIsRefused() {
    byte[] shortRow = new ByteWriter().lenencString("only one").toByteArray();
    assertThatThrownBy(
            () ->
                ResultSetReader.read(
                    reader(new byte[] {2}, column("a"), column("b"), EOF, shortRow, EOF), "q"))
        .isInstanceOf(ProtocolException.class);
    byte[] longRow = new ByteWriter().lenencString("1").lenencString("2").toByteArray();
    assertThatThrownBy(
            () -> ResultSetReader.read(reader(new byte[] {1}, column("a"), EOF, longRow, EOF), "q"))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("left over");
  }

  @Test
  void readOkRefusesARowSet() {
    assertThatThrownBy(() -> ResultSetReader.readOk(reader(new byte[] {1}), "SET x"))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("expected an OK packet");
  }

  @Test
  void resultRowsAreImmutable() {
    ResultRows rows = new ResultRows(Arrays.asList("a"), Arrays.asList(Arrays.asList("1")));
    assertThatThrownBy(() -> rows.rows().get(0).set(0, "2"))
        .isInstanceOf(UnsupportedOperationException.class);
  }
}
