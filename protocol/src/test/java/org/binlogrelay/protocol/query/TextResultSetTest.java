package org.binlogrelay.protocol.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.packet.OkPacket;
import org.junit.jupiter.api.Test;

class TextResultSetTest {
  private static final TextResultSet RS =
      new TextResultSet(
          List.of(
              ColumnDefinition.computed("@@GLOBAL.SERVER_ID", 63, 21, ColumnType.LONGLONG, 0xa0, 0),
              ColumnDefinition.computed("Value", 255, 4096, ColumnType.VAR_STRING, 0, 31)),
          List.of(List.of("3", "x"), Arrays.asList("4", null), List.of("5", "a".repeat(300))));

  @Test
  void encodesWithEofsAndReadsBack() {
    List<byte[]> packets = RS.encode(false, 2);
    assertThat(packets).hasSize(1 + 2 + 1 + 3 + 1);
    assertThat(packets.get(0)).containsExactly(2);
    assertThat(packets.get(3)).containsExactly(0xfe, 0, 0, 2, 0);
    assertThat(packets.get(5)).containsExactly(1, '4', 0xfb);
    assertThat(read(packets, false)).isEqualTo(new QueryResponse.Rows(RS));
  }

  @Test
  void encodesWithOkAsEofAndReadsBack() {
    List<byte[]> packets = RS.encode(true, 2);
    assertThat(packets).hasSize(1 + 2 + 3 + 1);
    assertThat(packets.get(packets.size() - 1)).containsExactly(0xfe, 0, 0, 2, 0, 0, 0);
    assertThat(read(packets, true)).isEqualTo(new QueryResponse.Rows(RS));
  }

  @Test
  void columnDefinitionMatchesMysqlsLayout() {
    byte[] b = ColumnDefinition.computed("x", 63, 21, ColumnType.LONGLONG, 0xa0, 0).encode();
    // def, 4 empty strings around the name, 0x0c, charset 63, length 21, type 8, flags 0xa0,
    // decimals 0, filler
    assertThat(b)
        .containsExactly(
            3, 'd', 'e', 'f', 0, 0, 0, 1, 'x', 0, 0x0c, 63, 0, 21, 0, 0, 0, 8, 0xa0, 0, 0, 0, 0);
    assertThat(ColumnDefinition.decode(b))
        .isEqualTo(ColumnDefinition.computed("x", 63, 21, ColumnType.LONGLONG, 0xa0, 0));
  }

  @Test
  void readerTakesOkAndErrAndEnforcesLimits() {
    QueryResponseReader ok = new QueryResponseReader(true, 10, 10);
    assertThat(ok.accept(OkPacket.ok().encode())).isTrue();
    assertThat(ok.response()).isInstanceOf(QueryResponse.Ok.class);
    QueryResponseReader err = new QueryResponseReader(true, 10, 10);
    assertThat(err.accept(new ErrPacket(1193, "HY000", "Unknown system variable 'x'").encode()))
        .isTrue();
    assertThat(((QueryResponse.Err) err.response()).err().code()).isEqualTo(1193);
    assertThatThrownBy(() -> new QueryResponseReader(true, 1, 10).accept(new byte[] {2}))
        .isInstanceOf(ProtocolException.class);
    List<byte[]> packets = RS.encode(true, 2);
    QueryResponseReader few = new QueryResponseReader(true, 10, 2);
    assertThatThrownBy(() -> packets.forEach(few::accept))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("more than 2 rows");
  }

  @Test
  void refusesRowsOfTheWrongWidth() {
    assertThatThrownBy(() -> new TextResultSet(RS.columns(), List.of(List.of("1"))))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static QueryResponse read(List<byte[]> packets, boolean deprecateEof) {
    QueryResponseReader reader = new QueryResponseReader(deprecateEof, 10, 10);
    for (int i = 0; i < packets.size(); i++) {
      boolean done = reader.accept(packets.get(i));
      assertThat(done).isEqualTo(i == packets.size() - 1);
    }
    return reader.response();
  }
}
