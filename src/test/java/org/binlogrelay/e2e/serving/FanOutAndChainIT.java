package org.binlogrelay.e2e.serving;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.binlogrelay.e2e.checks.TableChecksums;
import org.binlogrelay.e2e.load.Sysbench;
import org.binlogrelay.e2e.servers.Credentials;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.ReplicationLink;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.binlogrelay.protocol.bytes.LittleEndian;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.server.downstream.Command;
import org.binlogrelay.server.downstream.DumpRequest;
import org.binlogrelay.server.serving.DumpStatus;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.Position;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fan-out: 50 streaming clients on one relay under load all get the primary's events (same digest as the primary's
 * own dump), reach the primary's position, and cost the relay next to no CPU once idle. Chain: a relay following a
 * relay stores the primary's files byte for byte and serves a real replica. MySQL 9.7.
 */
@ExtendWith(ServerFarmExtension.class)
class FanOutAndChainIT {
    private static final Logger LOG = LoggerFactory.getLogger(FanOutAndChainIT.class);
    private static final int CLIENTS = 50;
    private static final int ROTATE = 4;
    private static final int HEARTBEAT_V2 = 41;

    @TempDir
    Path dir;

    /** One streaming client in its own thread: digests the stored events it receives, tracks its position. */
    private static final class Follower implements Runnable {
        private final ServingRelay relay;
        private final long serverId;
        private final MessageDigest digest;
        private volatile Position position;
        private volatile long events;
        private volatile Throwable failure;
        private volatile boolean stop;

        Follower(ServingRelay relay, long serverId) throws Exception {
            this.relay = relay;
            this.serverId = serverId;
            this.digest = MessageDigest.getInstance("SHA-256");
        }

        @Override
        public void run() {
            try (DumpClient client = DumpClient.connect(relay.address(), ServingRelay.PLAIN, false)) {
                client.execute("SET @master_binlog_checksum = 'CRC32', @source_binlog_checksum = 'CRC32'",
                        "SET @master_heartbeat_period = 1000000000, @source_heartbeat_period = 1000000000");
                client.startDump(gtidDump(serverId, DumpRequest.USE_HEARTBEAT_EVENT_V2), Duration.ofSeconds(30));
                String file = null;
                while (!stop) {
                    DumpClient.Packet p = client.next();
                    if (!p.isEvent()) {
                        throw new AssertionError("client " + serverId + " got " + (p.isError() ? p.error() : "EOF"));
                    }
                    byte[] event = p.event();
                    int flags = LittleEndian.u16(event, 17);
                    if (p.eventType() == ROTATE && (flags & 0x20) != 0) {
                        file = new String(event, 19 + 8, event.length - 19 - 8 - 4, java.nio.charset.StandardCharsets
                                .US_ASCII);
                    } else if (p.eventType() != HEARTBEAT_V2) {
                        digest(event);
                        long logPos = LittleEndian.u32(event, 13);
                        position = new Position(file, logPos);
                        events++;
                    }
                }
            } catch (Throwable t) {
                if (!stop) {
                    failure = t;
                }
            }
        }

        private synchronized void digest(byte[] event) {
            digest.update(event);
        }

        synchronized String digestHex() {
            try {
                return HexFormat.of().formatHex(((MessageDigest) digest.clone()).digest());
            } catch (CloneNotSupportedException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    @Test
    void fiftyClientsShareOneStoredCopyUnderLoad(ServerFarm farm) throws Exception {
        DatabaseServer primary = farm.start(ServerSpec.of(ServerVersion.MYSQL_9_7).named("primary")
                .withMaxBinlogSize(1 << 20));
        Sysbench load = Sysbench.against(primary).withTables(2).withTableSize(5_000).withRate(100);
        load.prepare();
        try (ServingRelay relay = ServingRelay.follow(primary, dir)) {
            relay.awaitCaughtUp(Duration.ofMinutes(1));
            List<Follower> followers = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < CLIENTS; i++) {
                Follower f = new Follower(relay, 20_000 + i);
                followers.add(f);
                Thread t = new Thread(f, "follower-" + i);
                t.setDaemon(true);
                threads.add(t);
                t.start();
            }
            try {
                load.run(Duration.ofSeconds(20));
                long loadEnded = System.nanoTime();
                relay.awaitCaughtUp(Duration.ofMinutes(1));
                Position target = relay.primaryPosition();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (followers.stream().anyMatch(f -> !target.equals(f.position))) {
                    for (Follower f : followers) {
                        assertThat(f.failure).as("follower " + f.serverId).isNull();
                    }
                    assertThat(System.nanoTime()).as("all %d clients at %s", CLIENTS, target).isLessThan(deadline);
                    Thread.sleep(20);
                }
                long allThere = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - loadEnded);
                String reference = referenceDigest(primary);
                long storedBytes = relay.store().files().stream().mapToLong(FileMetadata::size).sum();
                for (Follower f : followers) {
                    assertThat(f.digestHex()).as("events of follower " + f.serverId).isEqualTo(reference);
                }
                LOG.info("FIGURE fan-out: {} clients, each got {} events ({} stored bytes), all at {} {} ms after the"
                        + " load ended", CLIENTS, followers.get(0).events, storedBytes, target, allThere);
                List<DumpStatus> dumps = relay.dumps().dumps();
                assertThat(dumps).hasSize(CLIENTS).allSatisfy(d -> assertThat(d.state())
                        .isEqualTo(DumpStatus.State.CAUGHT_UP));
                assertThat(relay.readers().readers()).hasSize(CLIENTS);

                long cpu = eventLoopCpuNanos();
                Thread.sleep(5_000);
                long idle = TimeUnit.NANOSECONDS.toMillis(eventLoopCpuNanos() - cpu);
                LOG.info("FIGURE fan-out: the relay's event loops used {} ms of CPU in 5 s with {} idle clients"
                        + " (heartbeats every second)", idle, CLIENTS);
                assertThat(idle).as("CPU of idle dumps").isLessThan(1_000);
            } finally {
                for (Follower f : followers) {
                    f.stop = true;
                }
            }
        }
    }

    @Test
    void aRelayOfARelayStoresThePrimarysFilesAndServesAReplica(ServerFarm farm) throws Exception {
        DatabaseServer primary = farm.start(ServerSpec.of(ServerVersion.MYSQL_9_7).named("primary")
                .withMaxBinlogSize(256 << 10));
        DatabaseServer replica = farm.start(ServerVersion.MYSQL_9_7, "replica-of-second");
        Sysbench load = Sysbench.against(primary).withTables(2).withTableSize(2_000).withRate(100);
        load.prepare();
        Path first = Files.createDirectories(dir.resolve("first"));
        Path second = Files.createDirectories(dir.resolve("second"));
        try (ServingRelay relay1 = ServingRelay.follow(primary, first);
                ServingRelay relay2 = ServingRelay.chain(relay1, 9002, second)) {
            ReplicationLink.establish(replica, farm.backend().hostPortForServers(relay2.port()), Credentials.REPLICATION,
                    "second relay");
            load.run(Duration.ofSeconds(10));
            primary.execute("FLUSH BINARY LOGS");
            relay1.awaitCaughtUp(Duration.ofMinutes(1));
            relay2.awaitCaughtUp(Duration.ofMinutes(1));
            long ms = Replicas.lag(primary, replica, Duration.ofMinutes(2));
            relay2.awaitSettled(Duration.ofMinutes(1));
            List<String> names = relay2.store().files().stream().map(FileMetadata::name).toList();
            assertThat(names).isEqualTo(relay1.store().files().stream().map(FileMetadata::name).toList());
            PrimaryComparison.assertSameFiles(primary.binlogDir(), second, names.subList(0, names.size() - 1));
            assertThat(TableChecksums.of(replica, "sbtest")).isEqualTo(TableChecksums.of(primary, "sbtest"));
            assertThat(replica.executedGtidSet()).isEqualTo(primary.executedGtidSet());
            LOG.info("FIGURE chain: primary -> relay -> relay -> replica: {} files identical, replica caught up {} ms"
                    + " after the load", names.size() - 1, ms);
        }
    }

    private static String referenceDigest(DatabaseServer primary) throws Exception {
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        try (DumpClient client = DumpClient.connect(primary.address(), primary.replicationCredentials(), true)) {
            client.execute("SET @master_binlog_checksum = 'CRC32', @source_binlog_checksum = 'CRC32'");
            for (DumpClient.Packet p : client.dump(gtidDump(0, DumpRequest.BINLOG_DUMP_NON_BLOCK
                    | DumpRequest.USE_HEARTBEAT_EVENT_V2), 10_000_000, Duration.ofSeconds(10))) {
                if (p.isEvent() && p.eventType() != HEARTBEAT_V2
                        && !(p.eventType() == ROTATE && (LittleEndian.u16(p.event(), 17) & 0x20) != 0)) {
                    digest.update(p.event());
                }
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    private static byte[] gtidDump(long serverId, int flags) {
        return new DumpRequest(Command.COM_BINLOG_DUMP_GTID, serverId, flags, "", 4, MysqlGtidSet.empty()).encode();
    }

    /** CPU time of the relay's downstream event loop threads so far. */
    private static long eventLoopCpuNanos() {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long total = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("multiThreadIoEventLoopGroup")) {
                long cpu = mx.getThreadCpuTime(t.getId());
                if (cpu > 0) {
                    total += cpu;
                }
            }
        }
        return total;
    }
}
