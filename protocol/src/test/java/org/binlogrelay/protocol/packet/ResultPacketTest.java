package org.binlogrelay.protocol.packet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import org.binlogrelay.protocol.ProtocolException;
import org.junit.jupiter.api.Test;

/** OK, ERR and EOF payloads. */
class ResultPacketTest {

  @Test
  void errPacketHasTheProtocol41Layout() {
    ErrPacket err =
        new ErrPacket(1236, "HY000", "Could not find first log file name in binary log index file");
    byte[] wire = err.encode();
    assertArrayEquals(HexFormat.of().parseHex("ffd404234859303030"), Arrays.copyOf(wire, 9));
    assertEquals(err, ErrPacket.decode(wire));
    assertTrue(ErrPacket.isErr(wire));
  }

  @Test
  void errPacketFromMariadb() {
    // The first 16 bytes of the ERR MariaDB 10.11 sent to COM_BINLOG_DUMP without REPLICATION
    // SLAVE.
    byte[] wire = HexFormat.of().parseHex("ffcb0423343230303041636365737320");
    ErrPacket err = ErrPacket.decode(wire);
    assertEquals(1227, err.code());
    assertEquals("42000", err.sqlState());
    assertEquals("Access ", err.message());
  }

  @Test
  void errPacketWithoutSqlStateMarker() {
    byte[] wire = {(byte) 0xff, 0x15, 0x04, 'n', 'o'};
    ErrPacket err = ErrPacket.decode(wire);
    assertEquals(1045, err.code());
    assertEquals("HY000", err.sqlState());
    assertEquals("no", err.message());
  }

  @Test
  void errPacketRejectsBadInput() {
    assertThrows(ProtocolException.class, () -> ErrPacket.decode(new byte[] {0}));
    assertThrows(ProtocolException.class, () -> ErrPacket.decode(new byte[] {(byte) 0xff, 1}));
    assertThrows(
        ProtocolException.class,
        () -> ErrPacket.decode(new byte[] {(byte) 0xff, 1, 0, '#', 'H', 'Y'}));
    assertThrows(IllegalArgumentException.class, () -> new ErrPacket(1, "HY00", "x"));
  }

  /**
   * Found by HandshakeFuzzTest#serverPackets
   * (HandshakeFuzzTestInputs/serverPackets/crash-3364e7e3...): a byte over 0x7f in the SQL state
   * made decode throw IllegalArgumentException from the record's constructor instead of
   * ProtocolException, so a primary's garbled ERR packet escaped the relay's protocol error
   * handling.
   */
  @Test
  void errWithANonAsciiSqlStateIsAProtocolError() {
    byte[] wire = HexFormat.of().parseHex("ff08fe2361af68696e675f736833675f7373737766");
    ProtocolException e = assertThrows(ProtocolException.class, () -> ErrPacket.decode(wire));
    assertTrue(e.getMessage().contains("sql state"), e.getMessage());
    byte[] twoByteChar = HexFormat.of().parseHex("ff1500234843c3a93030" + "6d657373616765");
    assertThrows(ProtocolException.class, () -> ErrPacket.decode(twoByteChar));
  }

  @Test
  void okPacketRoundTrips() {
    OkPacket ok =
        new OkPacket(
            300,
            1L << 40,
            OkPacket.SERVER_STATUS_AUTOCOMMIT | OkPacket.SERVER_STATUS_IN_TRANS,
            2,
            "Rows matched: 1");
    byte[] wire = ok.encode();
    assertEquals(0x00, wire[0]);
    assertEquals(0xfc, wire[1] & 0xff, "300 takes the 0xfc form");
    assertEquals(ok, OkPacket.decode(wire));
    assertTrue(OkPacket.isOk(wire));
    byte[] asEof = ok.encode(OkPacket.EOF_HEADER);
    assertEquals(0xfe, asEof[0] & 0xff);
    assertEquals(ok, OkPacket.decode(asEof));
  }

  @Test
  void okInfoIsLengthEncodedAsMysqlAndMariadbSendIt() {
    // After a login over TLS, MariaDB 11.4+ sends 0x01 and 64 hex digits: 65 bytes, length 0x41 in
    // front.
    String proof = "\u0001" + "7ED8C415248FCDBBE8CF52D418A27DAC7B840C8358482F3E003A13AB3AA599FE";
    byte[] wire = new OkPacket(0, 0, OkPacket.SERVER_STATUS_AUTOCOMMIT, 0, proof).encode();
    assertArrayEquals(
        HexFormat.of()
            .parseHex(
                "00"
                    + "00"
                    + "00"
                    + "0200"
                    + "0000"
                    + "41"
                    + "01"
                    + HexFormat.of()
                        .formatHex(
                            "7ED8C415248FCDBBE8CF52D418A27DAC7B840C8358482F3E003A13AB3AA599FE"
                                .getBytes(StandardCharsets.US_ASCII))),
        wire);
    assertEquals(proof, OkPacket.decode(wire).info());
    // Session state (CLIENT_SESSION_TRACK) after the info is skipped; an info running past the end
    // is refused.
    byte[] tracked =
        HexFormat.of().parseHex("00000002400000" + "026869" + "0a000869736f6c6174696f6e");
    assertEquals("hi", OkPacket.decode(tracked).info());
    byte[] overrun = HexFormat.of().parseHex("00000002000000" + "056869");
    ProtocolException e = assertThrows(ProtocolException.class, () -> OkPacket.decode(overrun));
    assertTrue(e.getMessage().contains("OK info"), e.getMessage());
  }

  @Test
  void minimalOkIsSevenBytes() {
    assertArrayEquals(new byte[] {0, 0, 0, 2, 0, 0, 0}, OkPacket.ok().encode());
  }

  @Test
  void okPacketEveryTruncationIsAProtocolException() {
    byte[] wire = new OkPacket(1, 2, 3, 4, "").encode();
    for (int n = 0; n < wire.length; n++) {
      byte[] cut = Arrays.copyOf(wire, n);
      assertThrows(ProtocolException.class, () -> OkPacket.decode(cut), "length " + n);
    }
  }

  @Test
  void eofPacket() {
    EofPacket eof = new EofPacket(1, OkPacket.SERVER_STATUS_AUTOCOMMIT);
    byte[] wire = eof.encode();
    assertArrayEquals(new byte[] {(byte) 0xfe, 1, 0, 2, 0}, wire);
    assertEquals(eof, EofPacket.decode(wire));
    assertTrue(EofPacket.isEof(wire));
    assertFalse(EofPacket.isEof(new byte[9]));
    assertThrows(ProtocolException.class, () -> EofPacket.decode(new byte[] {(byte) 0xfe, 1}));
  }

  @Test
  void errMessageIsUtf8() {
    ErrPacket err = new ErrPacket(1064, "42000", "près de 'é'");
    assertEquals("près de 'é'", ErrPacket.decode(err.encode()).message());
    assertTrue(new String(err.encode(), StandardCharsets.UTF_8).endsWith("'é'"));
  }
}
