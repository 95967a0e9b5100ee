package org.binlogrelay.server.downstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.query.ColumnDefinition;
import org.binlogrelay.protocol.query.ColumnType;
import org.binlogrelay.protocol.query.ForwardedResultSet;
import org.binlogrelay.protocol.query.MetadataStatement;
import org.binlogrelay.protocol.query.QueryResponse;
import org.binlogrelay.protocol.query.TextResultSet;
import org.binlogrelay.protocol.testing.EmbeddedTransport;
import org.binlogrelay.protocol.testing.WireClient;
import org.binlogrelay.server.downstream.sql.MysqlSqlFlavor;
import org.binlogrelay.server.downstream.sql.SchemaStatements;
import org.binlogrelay.storage.testing.ManualTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A statement whose answer another thread completes (the schema source's): the connection answers
 * it when it is there, holds the commands sent meanwhile and runs them after, in order; other
 * connections of the same event loop are served while it waits; a forwarded result set reaches the
 * client byte for byte, framed for its EOF style.
 */
class PendingAnswerTest {
  private final ManualTime clock = TestServers.manualTime();
  private final List<EmbeddedChannel> channels = new ArrayList<>();
  private final List<MetadataStatement> asked = new ArrayList<>();
  private final List<CompletableFuture<QueryResponse>> answers = new ArrayList<>();
  private final SchemaStatements schema =
      (statement, client, session) -> {
        asked.add(statement);
        CompletableFuture<QueryResponse> answer = new CompletableFuture<>();
        answers.add(answer);
        return new QueryResponse.Pending(answer);
      };
  private final ServerState state =
      TestServers.state(
          TestServers.config(MysqlSqlFlavor.INSTANCE).build(),
          new RefusingDumpHandler(),
          clock,
          schema);

  private WireClient client() {
    EmbeddedChannel ch = TestServers.channel(state);
    channels.add(ch);
    WireClient c = WireClient.over(new EmbeddedTransport(ch, false));
    c.login("nat", "nat-pass", "mysql_native_password", null);
    return c;
  }

  @AfterEach
  void channelsEndClean() {
    for (EmbeddedChannel ch : channels) {
      ch.close();
      assertFalse(ch.finish(), "unread messages left in a channel");
    }
  }

  private static byte[] query(String sql) {
    byte[] text = sql.getBytes(StandardCharsets.UTF_8);
    byte[] payload = new byte[text.length + 1];
    payload[0] = (byte) Command.COM_QUERY.code();
    System.arraycopy(text, 0, payload, 1, text.length);
    return payload;
  }

  @Test
  void commandsSentMeanwhileWaitForThePendingAnswerAndOthersAreServed() {
    WireClient c = client();
    c.send(query("SHOW CREATE TABLE shop.orders"));
    c.send(query("SELECT 1"));
    c.send(new byte[] {(byte) Command.COM_PING.code()});
    assertThat(channels.get(0).config().isAutoRead()).as("reading paused").isFalse();
    assertThat(c.receiveOrNull()).as("nothing answered before the schema source").isNull();
    assertThat(asked)
        .containsExactly(
            new MetadataStatement.ShowCreateTable(
                new MetadataStatement.TableName("shop", "orders")));

    WireClient other = client();
    assertThat(((QueryResponse.Rows) other.query("SELECT 2")).resultSet().rows())
        .containsExactly(List.of("2"));

    TextResultSet created =
        new TextResultSet(
            List.of(
                ColumnDefinition.computed("Table", 255, 256, ColumnType.VAR_STRING, 1, 0),
                ColumnDefinition.computed("Create Table", 255, 4096, ColumnType.VAR_STRING, 1, 0)),
            List.of(List.of("orders", "CREATE TABLE `orders` (`id` int)")));
    List<byte[]> packets = created.encode(false, 2);
    answers
        .get(0)
        .complete(
            new QueryResponse.Forwarded(
                new ForwardedResultSet(packets.subList(1, 3), packets.subList(4, 5))));

    assertThat(c.answer()).isEqualTo(new QueryResponse.Rows(created));
    assertThat(((QueryResponse.Rows) c.answer()).resultSet().rows()).containsExactly(List.of("1"));
    assertThat(c.answer()).isInstanceOf(QueryResponse.Ok.class);
    assertThat(channels.get(0).config().isAutoRead()).isTrue();
  }

  @Test
  void aPendingCommandAfterAPendingCommandWaitsItsTurn() {
    WireClient c = client();
    c.send(query("SHOW DATABASES"));
    c.send(query("SHOW TABLES FROM shop"));
    assertThat(asked).hasSize(1);
    answers.get(0).complete(new QueryResponse.Err(new ErrPacket(1045, "28000", "Access denied")));
    assertThat(((QueryResponse.Err) c.answer()).err().code()).isEqualTo(1045);
    assertThat(asked).hasSize(2);
    assertThat(c.receiveOrNull()).isNull();
    answers
        .get(1)
        .complete(new QueryResponse.Err(new ErrPacket(1049, "42000", "Unknown database 'shop'")));
    assertThat(((QueryResponse.Err) c.answer()).err().code()).isEqualTo(1049);
  }

  @Test
  void aFailedAnswerIsAnErrorNotAHang() {
    WireClient c = client();
    c.send(query("SHOW DATABASES"));
    answers.get(0).completeExceptionally(new IllegalStateException("bug"));
    assertThat(((QueryResponse.Err) c.answer()).err().code()).isEqualTo(1105);
    assertThat(((QueryResponse.Rows) c.query("SELECT 3")).resultSet().rows())
        .containsExactly(List.of("3"));
  }

  @Test
  void aClientThatFloodsCommandsWhileWaitingIsClosed() {
    WireClient c = client();
    c.send(query("SHOW DATABASES"));
    for (int i = 0; i <= CommandPhaseHandler.MAX_HELD_COMMANDS; i++) {
      c.send(new byte[] {(byte) Command.COM_PING.code()});
    }
    WireClient.Packet refusal = c.receiveOrNull();
    assertThat(refusal.err().code()).isEqualTo(1156);
    channels.get(0).runPendingTasks();
    assertThat(channels.get(0).isActive()).isFalse();
    answers.get(0).complete(new QueryResponse.Err(new ErrPacket(1049, "42000", "late")));
    channels.get(0).runPendingTasks();
    assertThat(c.receiveOrNull()).isNull();
  }
}
