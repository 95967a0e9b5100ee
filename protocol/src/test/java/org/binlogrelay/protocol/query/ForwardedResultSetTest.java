package org.binlogrelay.protocol.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ForwardedResultSetTest {
  private static final TextResultSet TEXT =
      new TextResultSet(
          List.of(
              ColumnDefinition.computed("Table", 255, 256, ColumnType.VAR_STRING, 1, 31),
              ColumnDefinition.computed("Create Table", 255, 4096, ColumnType.VAR_STRING, 1, 31)),
          List.of(List.of("t", "CREATE TABLE `t` (...)"), Arrays.asList("u", null)));

  /** The column definitions and rows of a result set, as a server's packets carry them. */
  private static ForwardedResultSet forwardedFrom(List<byte[]> packets) {
    return new ForwardedResultSet(packets.subList(1, 3), packets.subList(4, 6));
  }

  @Test
  void writesTheServersColumnsAndRowsInEitherEofStyle() {
    ForwardedResultSet forwarded = forwardedFrom(TEXT.encode(false, 2));
    for (boolean deprecateEof : new boolean[] {false, true}) {
      List<byte[]> expected = TEXT.encode(deprecateEof, 2);
      List<byte[]> written = forwarded.encode(deprecateEof, 2);
      assertThat(written).hasSameSizeAs(expected);
      for (int i = 0; i < written.size(); i++) {
        assertThat(written.get(i))
            .as("packet %d, deprecateEof %s", i, deprecateEof)
            .isEqualTo(expected.get(i));
      }
    }
  }

  @Test
  void bytesPassUnchanged() {
    byte[] binary = {3, 0, (byte) 0xff, (byte) 0xfe};
    ForwardedResultSet forwarded =
        new ForwardedResultSet(List.of(TEXT.encode(true, 0).get(1)), List.of(binary));
    assertThat(forwarded.encode(true, 0).get(2)).isSameAs(binary);
    assertThat(forwarded.size()).isEqualTo(TEXT.encode(true, 0).get(1).length + 4);
    assertThatThrownBy(() -> new ForwardedResultSet(List.of(), List.of()))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
