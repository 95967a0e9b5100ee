package org.binlogrelay.server.serving;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.binlogrelay.protocol.auth.NativePasswordHash;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.handshake.CapabilityFlags;
import org.binlogrelay.protocol.testing.WireClient;
import org.binlogrelay.server.downstream.DumpRequest;
import org.binlogrelay.server.downstream.ReplicaServer;
import org.binlogrelay.server.downstream.ReplicaServerConfig;
import org.binlogrelay.server.downstream.account.UserAccounts;
import org.binlogrelay.server.downstream.sql.MysqlSqlFlavor;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The handler behind the real downstream server, over loopback TCP: the dump request reaches the
 * store through {@link StoreDumpHandler}, events go out with {@code sendfile} (every event but the
 * FORMAT_DESCRIPTIONs as a region here), the listing answers SHOW BINARY LOGS, and heartbeats go
 * out in real time.
 */
class ServedOverTcpTest {
  private final StoreFixtures mysql = StoreFixtures.mysql();
  private ReplicaServer server;

  @TempDir Path dir;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void aNonBlockingDumpOverTcpGetsEveryStoredEventThenEof() throws Exception {
    try (BinlogStore store = mysql.store(dir)) {
      StoreDumpHandler dumps =
          new StoreDumpHandler(store, Dumps.config().zeroCopyMinEventBytes(1).build());
      server = start(store, dumps);
      try (WireClient client = tinyClient(server.port())) {
        assertThat(client.rows("SHOW BINARY LOGS"))
            .containsExactly(
                List.of("binlog.000001", "4274", "No"),
                List.of("binlog.000002", "2862", "No"),
                List.of("binlog.000003", "206809", "No"));
        client.execute("SET @master_binlog_checksum = 'CRC32', @source_binlog_checksum = 'CRC32'");
        client.send(
            Dumps.byPosition("binlog.000001", 4, DumpRequest.BINLOG_DUMP_NON_BLOCK, 0).encode());
        List<byte[]> events = new ArrayList<>();
        WireClient.Packet p;
        for (p = client.receive(); p.first() == 0; p = client.receive()) {
          events.add(p.event());
        }
        assertThat(p.payload()).isEqualTo(new byte[] {(byte) 0xfe, 0, 0, 2, 0});
        List<byte[]> expected = new ArrayList<>();
        for (String file : mysql.files) {
          expected.add(ArtificialEvents.rotate(Dumps.RELAY_SERVER_ID, file, 4, true));
          for (byte[] e : mysql.events(file)) {
            expected.add(
                e[EventHeader.TYPE_OFFSET] == EventType.FORMAT_DESCRIPTION.code()
                    ? DumpStreamTest.withInUseCleared(e)
                    : e);
          }
        }
        assertThat(events).hasSize(expected.size());
        for (int i = 0; i < expected.size(); i++) {
          assertThat(events.get(i)).as("event %d", i).isEqualTo(expected.get(i));
        }
        assertThat(client.receiveOrNull()).as("closed by the server").isNull();
      }
    }
  }

  @Test
  void aBlockingDumpGetsHeartbeatsAndIsListed() throws Exception {
    try (BinlogStore store = mysql.store(dir)) {
      StoreDumpHandler dumps = new StoreDumpHandler(store, Dumps.config().build());
      server = start(store, dumps);
      try (WireClient client = tinyClient(server.port())) {
        client.execute(
            "SET @master_heartbeat_period = 100000000, @source_binlog_checksum = 'CRC32'");
        client.send(
            Dumps.byPosition("binlog.000003", 4, DumpRequest.USE_HEARTBEAT_EVENT_V2, 77).encode());
        int events = 0;
        WireClient.Packet p;
        for (p = client.receive();
            p.eventType() != EventType.HEARTBEAT_V2.code();
            p = client.receive()) {
          events++;
        }
        assertThat(events).isEqualTo(1 + mysql.events("binlog.000003").size());
        assertThat(p.event()).isEqualTo(GtidDumpTest.heartbeatV2("binlog.000003", 206809));
        assertThat(dumps.dumps())
            .singleElement()
            .satisfies(
                d -> {
                  assertThat(d.name()).startsWith("server_id 77 at 127.0.0.1");
                  assertThat(d.state()).isEqualTo(DumpStatus.State.CAUGHT_UP);
                  assertThat(d.position()).isEqualTo(206809);
                });
      }
    }
  }

  /** As a minimal client logs in: mysql_native_password, result sets ending with EOF packets. */
  private static WireClient tinyClient(int port) {
    WireClient client =
        WireClient.connect(port)
            .withoutCapability(CapabilityFlags.CLIENT_DEPRECATE_EOF)
            .withoutCapability(CapabilityFlags.CLIENT_CONNECT_ATTRS)
            .withoutCapability(CapabilityFlags.CLIENT_CONNECT_WITH_DB);
    client.login("repl", "repl-pass", NativePasswordHash.PLUGIN, null);
    return client;
  }

  private static ReplicaServer start(BinlogStore store, StoreDumpHandler dumps) {
    ReplicaServerConfig config =
        ReplicaServerConfig.builder(MysqlSqlFlavor.INSTANCE)
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .version("9.7.4-binlog-relay")
            .serverId(Dumps.RELAY_SERVER_ID)
            .serverUuid("4e6c6179-0000-4000-8000-000000004000")
            .accounts(
                UserAccounts.parse(
                    "repl@% REPLICATION_SLAVE,REPLICATION_CLIENT "
                        + NativePasswordHash.of("repl-pass").storedForm()
                        + "\n"))
            .ioThreads(1)
            .build();
    return ReplicaServer.start(config, dumps, new StoreBinlogListing(store), Time.SYSTEM);
  }
}
