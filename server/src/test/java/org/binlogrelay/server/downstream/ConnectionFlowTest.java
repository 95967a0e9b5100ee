package org.binlogrelay.server.downstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.protocol.bytes.ByteReader;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.protocol.handshake.CapabilityFlags;
import org.binlogrelay.protocol.handshake.HandshakeV10;
import org.binlogrelay.protocol.handshake.SslRequest;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.packet.OkPacket;
import org.binlogrelay.protocol.query.QueryResponse;
import org.binlogrelay.protocol.testing.EmbeddedTransport;
import org.binlogrelay.protocol.testing.WireClient;
import org.binlogrelay.protocol.testing.WireClient.ServerError;
import org.binlogrelay.server.downstream.sql.MariadbSqlFlavor;
import org.binlogrelay.server.downstream.sql.MysqlSqlFlavor;
import org.binlogrelay.storage.testing.ManualTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The whole connection, handshake to dump, through the real pipeline on {@link EmbeddedChannel}s:
 * what a client sees byte for byte, including the fragmented case.
 */
class ConnectionFlowTest {
  private final ManualTime clock = TestServers.manualTime();
  private final List<DumpRequest> dumps = new ArrayList<>();
  private final DumpHandler recording =
      (request, connection) -> {
        dumps.add(request);
        new RefusingDumpHandler().dump(request, connection);
      };
  private final ServerState mysql =
      TestServers.state(TestServers.config(MysqlSqlFlavor.INSTANCE).build(), recording, clock);
  private final List<EmbeddedChannel> channels = new ArrayList<>();

  private WireClient client(ServerState state) {
    return client(state, false);
  }

  private WireClient client(ServerState state, boolean byteByByte) {
    EmbeddedChannel ch = TestServers.channel(state);
    channels.add(ch);
    return WireClient.over(new EmbeddedTransport(ch, byteByByte));
  }

  private EmbeddedChannel last() {
    return channels.get(channels.size() - 1);
  }

  @AfterEach
  void channelsEndClean() {
    for (EmbeddedChannel ch : channels) {
      ch.close();
      assertFalse(ch.finish(), "unread messages left in a channel");
    }
  }

  @Test
  void greetingAnnouncesTheDialectsPluginAndNoTlsWithoutCertificates() {
    HandshakeV10 g = client(mysql).greeting();
    assertThat(g.serverVersion()).isEqualTo("8.4.0-binlog-relay");
    assertThat(g.authPluginName()).isEqualTo("caching_sha2_password");
    assertThat(g.characterSet()).isEqualTo(255);
    assertThat(g.scramble()).hasSize(20);
    assertThat(g.has(CapabilityFlags.CLIENT_SSL)).isFalse();
    assertThat(g.has(CapabilityFlags.CLIENT_DEPRECATE_EOF)).isTrue();
    assertThat(g.has(CapabilityFlags.CLIENT_QUERY_ATTRIBUTES)).isFalse();
    assertThat(g.connectionId()).isPositive();
    ServerState maria =
        TestServers.state(TestServers.config(MariadbSqlFlavor.INSTANCE).build(), recording, clock);
    assertThat(client(maria).greeting().authPluginName()).isEqualTo("mysql_native_password");
  }

  @Test
  void mariadb10GreetingHasThe555PrefixThatVersionLeavesOut() {
    ServerState maria =
        TestServers.state(TestServers.config(MariadbSqlFlavor.INSTANCE).build(), recording, clock);
    WireClient c = client(maria);
    assertThat(c.greeting().serverVersion())
        .as("as a MariaDB 10.x server greets")
        .isEqualTo("5.5.5-10.11.0-MariaDB-binlog-relay");
    c.login("nat", "nat-pass", "mysql_native_password", null);
    QueryResponse r = c.query("SELECT VERSION(), @@version");
    assertThat(((QueryResponse.Rows) r).resultSet().rows())
        .containsExactly(List.of("10.11.0-MariaDB-binlog-relay", "10.11.0-MariaDB-binlog-relay"));
  }

  @Test
  void nativeAccountLogsInAndRunsCommands() {
    WireClient c = client(mysql);
    c.login("nat", "nat-pass", "mysql_native_password", null);
    assertThat(c.steps()).containsExactly("ok");
    QueryResponse r = c.query("SELECT @@server_id, CURRENT_USER()");
    assertThat(((QueryResponse.Rows) r).resultSet().rows()).containsExactly(List.of("77", "nat@%"));
    assertThat(c.command(new byte[] {(byte) Command.COM_PING.code()}).payload()[0]).isZero();
    WireClient.Packet unknown = c.command(new byte[] {(byte) Command.COM_STATISTICS.code()});
    assertThat(unknown.err()).isEqualTo(new ErrPacket(1047, "08S01", "Unknown command"));
    assertThat(c.command(new byte[] {(byte) 0x7f}).err().code()).isEqualTo(1047);
    assertThat(c.query("SELECT 1")).isInstanceOf(QueryResponse.Rows.class);
    assertThat(last().isActive()).isTrue();
    c.command(new byte[] {0x02, 'd', 'b'});
    assertThat(((QueryResponse.Rows) c.query("SELECT DATABASE()")).resultSet().rows())
        .containsExactly(List.of("db"));
    c.send(new byte[] {(byte) Command.COM_QUIT.code()});
    last().runPendingTasks();
    assertThat(last().isActive()).isFalse();
  }

  @Test
  void transactionsProcessListKillAndTrafficOverTheWire() {
    WireClient admin = client(mysql);
    admin.login("nat", "nat-pass", "mysql_native_password", null);
    EmbeddedChannel adminChannel = last();
    WireClient.Packet begin = admin.command(query("BEGIN"));
    assertThat(OkPacket.decode(begin.payload()).statusFlags())
        .isEqualTo(OkPacket.SERVER_STATUS_AUTOCOMMIT | OkPacket.SERVER_STATUS_IN_TRANS);
    WireClient.Packet commit = admin.command(query("COMMIT"));
    assertThat(OkPacket.decode(commit.payload()).statusFlags())
        .isEqualTo(OkPacket.SERVER_STATUS_AUTOCOMMIT);

    WireClient dumper = client(mysql);
    dumper.login("nat", "nat-pass", "mysql_native_password", null);
    EmbeddedChannel dumperChannel = last();
    List<List<String>> processes =
        ((QueryResponse.Rows) admin.query("SHOW PROCESSLIST")).resultSet().rows();
    assertThat(processes).hasSize(2);
    assertThat(processes.get(0)).contains("nat", "Query", "SHOW PROCESSLIST");
    assertThat(processes.get(1)).contains("nat", "Sleep");
    String dumperId = processes.get(1).get(0);
    assertThat(dumperChannel.isActive()).isTrue();
    admin.command(query("KILL " + dumperId));
    dumperChannel.runPendingTasks();
    assertThat(dumperChannel.isActive()).as("KILL closes the connection").isFalse();
    assertThat(admin.command(query("KILL " + dumperId)).err().code()).isEqualTo(1094);
    List<List<String>> status =
        ((QueryResponse.Rows)
                admin.query(
                    "SHOW GLOBAL STATUS WHERE Variable_name IN"
                        + " ('Connections', 'Threads_connected', 'Com_kill')"))
            .resultSet()
            .rows();
    assertThat(status)
        .containsExactly(
            List.of("Com_kill", "2"),
            List.of("Connections", "2"),
            List.of("Threads_connected", "1"));
    long sent =
        Long.parseLong(
            ((QueryResponse.Rows) admin.query("SHOW SESSION STATUS LIKE 'Bytes_sent'"))
                .resultSet()
                .rows()
                .get(0)
                .get(1));
    assertThat(sent).isGreaterThan(100);
    admin.command(query("COMMIT RELEASE"));
    adminChannel.runPendingTasks();
    assertThat(adminChannel.isActive()).as("COMMIT RELEASE closes the connection").isFalse();
  }

  private static byte[] query(String sql) {
    byte[] text = sql.getBytes(StandardCharsets.UTF_8);
    byte[] payload = new byte[text.length + 1];
    payload[0] = (byte) Command.COM_QUERY.code();
    System.arraycopy(text, 0, payload, 1, text.length);
    return payload;
  }

  @Test
  void sha2AccountFromANativeClientSwitchesThenGoesFullAuthWithRsaThenFastPath() {
    WireClient first = client(mysql);
    first.login("repl", "repl-pass", "mysql_native_password", null);
    assertThat(first.steps())
        .containsExactly("switch caching_sha2_password", "full", "public key", "ok");
    WireClient second = client(mysql);
    second.login("repl", "repl-pass", "caching_sha2_password", null);
    assertThat(second.steps()).containsExactly("fast ok", "ok");
  }

  @Test
  void nativeAccountFromASha2ClientSwitchesToNative() {
    WireClient c = client(mysql);
    c.login("nat", "nat-pass", "caching_sha2_password", "somedb");
    assertThat(c.steps()).containsExactly("switch mysql_native_password", "ok");
    assertThat(((QueryResponse.Rows) c.query("SELECT DATABASE()")).resultSet().rows())
        .containsExactly(List.of("somedb"));
  }

  @Test
  void fragmentedInputByteByByte() {
    WireClient c = client(mysql, true);
    c.login("repl", "repl-pass", "caching_sha2_password", null);
    assertThat(((QueryResponse.Rows) c.query("SELECT @@GLOBAL.GTID_MODE")).resultSet().rows())
        .containsExactly(List.of("ON"));
  }

  @Test
  void wrongPasswordUnknownUserAndNoPasswordAreAccessDeniedAndClose() {
    WireClient wrong = client(mysql);
    assertThatThrownBy(() -> wrong.login("repl", "nope", "caching_sha2_password", null))
        .isInstanceOfSatisfying(
            ServerError.class,
            e ->
                assertThat(e.err)
                    .isEqualTo(
                        new ErrPacket(
                            1045,
                            "28000",
                            "Access denied for user 'repl'@'embedded' (using password: YES)")));
    assertThat(last().isActive()).isFalse();
    WireClient ghost = client(mysql);
    assertThatThrownBy(() -> ghost.login("ghost", "x", "mysql_native_password", null))
        .hasMessageContaining("Access denied for user 'ghost'@'embedded' (using password: YES)");
    WireClient empty = client(mysql);
    assertThatThrownBy(() -> empty.login("nat", "", "mysql_native_password", null))
        .hasMessageContaining("(using password: NO)");
  }

  @Test
  void repeatedFailuresBlockTheHostUntilTheClockMovesOn() {
    for (int i = 0; i < 3; i++) {
      WireClient c = client(mysql);
      assertThatThrownBy(() -> c.login("nat", "bad", "mysql_native_password", null))
          .isInstanceOf(ServerError.class);
    }
    assertThatThrownBy(() -> client(mysql))
        .isInstanceOfSatisfying(
            ServerError.class,
            e -> {
              assertThat(e.err.code()).isEqualTo(1129);
              assertThat(e.err.message())
                  .startsWith("Host 'embedded' is blocked because of many connection errors");
            });
    assertThat(last().isActive()).isFalse();
    clock.advance(Duration.ofMinutes(6));
    client(mysql).login("nat", "nat-pass", "mysql_native_password", null);
  }

  @Test
  void tooManyConnectionsIsRefusedBeforeTheGreeting() {
    ServerState small =
        TestServers.state(
            TestServers.config(MysqlSqlFlavor.INSTANCE).maxConnections(1).build(),
            recording,
            clock);
    client(small);
    assertThatThrownBy(() -> client(small))
        .isInstanceOfSatisfying(ServerError.class, e -> assertThat(e.err.code()).isEqualTo(1040));
    last().close();
    channels.get(0).close();
    client(small);
  }

  @Test
  void registerNeedsReplicationSlaveAndIsListedUntilTheConnectionCloses() {
    WireClient plain = client(mysql);
    plain.login("plain", "plain-pass", "caching_sha2_password", null);
    byte[] register = new ReplicaRegistration(5, "", "", false, 3306, 0, 0).encode();
    assertThat(plain.command(register).err())
        .isEqualTo(
            new ErrPacket(
                1045, "28000", "Access denied for user 'plain'@'%' (using password: YES)"));

    WireClient repl = client(mysql);
    repl.login("repl", "repl-pass", "caching_sha2_password", null);
    repl.query("SET @replica_uuid = 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee'");
    assertThat(repl.command(register).payload()[0]).isZero();
    QueryResponse listed = repl.query("SHOW REPLICAS");
    assertThat(((QueryResponse.Rows) listed).resultSet().rows())
        .containsExactly(List.of("5", "", "3306", "0", "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"));
    last().close();
    assertThat(mysql.replicas.list()).isEmpty();
  }

  @Test
  void dumpNeedsReplicationSlaveThenGoesToTheHandler() {
    WireClient plain = client(mysql);
    plain.login("plain", "plain-pass", "caching_sha2_password", null);
    DumpRequest request =
        new DumpRequest(
            Command.COM_BINLOG_DUMP_GTID,
            9,
            DumpRequest.USE_HEARTBEAT_EVENT_V2,
            "",
            4,
            MysqlGtidSet.parse("11111111-2222-3333-4444-555555555555:1-10"));
    assertThat(plain.command(request.encode()).err())
        .isEqualTo(
            new ErrPacket(
                1227,
                "42000",
                "Access denied; you need (at least one of) the REPLICATION SLAVE privilege(s) for this operation"));

    WireClient repl = client(mysql);
    repl.login("repl", "repl-pass", "caching_sha2_password", null);
    ErrPacket refused = repl.command(request.encode()).err();
    assertThat(refused.code()).isEqualTo(1236);
    assertThat(refused.message()).contains("COM_BINLOG_DUMP_GTID from server_id 9");
    assertThat(dumps).containsExactly(request);
    assertThat(last().isActive()).isFalse();
  }

  @Test
  void mariadbDumpTakesTheGtidPositionFromSlaveConnectState() {
    ServerState maria =
        TestServers.state(TestServers.config(MariadbSqlFlavor.INSTANCE).build(), recording, clock);
    WireClient c = client(maria);
    c.login("nat", "nat-pass", "mysql_native_password", null);
    c.query("SET @slave_connect_state='0-1-100,1-2-5'");
    c.command(new DumpRequest(Command.COM_BINLOG_DUMP, 6, 2, "", 4, null).encode());
    assertThat(dumps).hasSize(1);
    assertThat(dumps.get(0).startGtids()).hasToString("0-1-100,1-2-5");
  }

  @Test
  void malformedDumpRequestIsRefusedWithAnError() {
    WireClient c = client(mysql);
    c.login("repl", "repl-pass", "caching_sha2_password", null);
    ErrPacket err = c.command(new byte[] {(byte) Command.COM_BINLOG_DUMP_GTID.code(), 0, 0}).err();
    assertThat(err.code()).isEqualTo(1236);
    assertThat(err.message()).startsWith("Malformed dump request");
    assertThat(dumps).isEmpty();
  }

  @Test
  void idleConnectionsAreClosedWithTheInactivityError() {
    WireClient c = client(mysql);
    c.login("repl", "repl-pass", "caching_sha2_password", null);
    last().advanceTimeBy(61, TimeUnit.SECONDS);
    last().runScheduledPendingTasks();
    WireClient.Packet p = c.receiveOrNull();
    assertThat(p.err().code()).isEqualTo(4031);
    assertThat(last().isActive()).isFalse();
  }

  @Test
  void aClientThatDoesNotLogInIsDropped() {
    client(mysql);
    last().advanceTimeBy(11, TimeUnit.SECONDS);
    last().runScheduledPendingTasks();
    assertThat(last().isActive()).isFalse();
  }

  @Test
  void dumpingConnectionsAreNotTimedOut() {
    DumpRequest[] seen = new DumpRequest[1];
    ServerState keeps =
        TestServers.state(
            TestServers.config(MysqlSqlFlavor.INSTANCE).build(), (r, s) -> seen[0] = r, clock);
    WireClient c = client(keeps);
    c.login("repl", "repl-pass", "caching_sha2_password", null);
    c.send(new DumpRequest(Command.COM_BINLOG_DUMP, 9, 0, "binlog.000001", 4, null).encode());
    assertThat(seen[0]).isNotNull();
    last().advanceTimeBy(1, TimeUnit.HOURS);
    last().runScheduledPendingTasks();
    assertThat(last().isActive()).isTrue();
  }

  @Test
  void oversizedPacketIsRefusedWithPacketTooLarge() {
    WireClient c = client(mysql);
    c.login("repl", "repl-pass", "caching_sha2_password", null);
    byte[] big = new byte[(1 << 20) + 1];
    big[0] = 3;
    WireClient.Packet p = c.command(big);
    assertThat(p.err())
        .isEqualTo(
            new ErrPacket(1153, "08S01", "Got a packet bigger than 'max_allowed_packet' bytes"));
    assertThat(last().isActive()).isFalse();
  }

  @Test
  void garbageHandshakeIsBadHandshake() {
    WireClient c = client(mysql);
    EmbeddedChannel ch = last();
    EmbeddedTransport t = new EmbeddedTransport(ch, false);
    t.send(1, new byte[40]);
    WireClient.Packet p = t.receive();
    assertThat(ErrPacket.decode(p.payload()))
        .isEqualTo(new ErrPacket(1043, "08S01", "Bad handshake"));
    assertThat(ch.isActive()).isFalse();
    t.close();
    c.close();
  }

  @Test
  void sslRequestWithoutTlsConfiguredIsBadHandshake() {
    WireClient c = client(mysql);
    EmbeddedTransport t = new EmbeddedTransport(last(), false);
    t.send(1, new SslRequest(CapabilityFlags.CLIENT_PROTOCOL_41, 0, 255).encode());
    assertThat(ErrPacket.decode(t.receive().payload()).code()).isEqualTo(1043);
    t.close();
    c.close();
  }

  @Test
  void preHandshakeErrorsCarryNoSqlState() {
    byte[] payload = Packets.preHandshakeErr(new ErrPacket(1040, "08004", "Too many connections"));
    ByteReader in = new ByteReader(payload);
    assertThat(in.u8("h")).isEqualTo(0xff);
    assertThat(in.u16("code")).isEqualTo(1040);
    assertThat(in.string(in.remaining(), "m")).isEqualTo("Too many connections");
  }
}
