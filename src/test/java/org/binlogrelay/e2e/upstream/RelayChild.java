package org.binlogrelay.e2e.upstream;

import java.nio.file.Path;
import java.time.Duration;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.server.upstream.UpstreamConfig;
import org.binlogrelay.server.upstream.UpstreamReplicator;
import org.binlogrelay.server.upstream.UpstreamStatus;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.StoreConfig;

/**
 * Test side: the process {@link RelayCrashIT} SIGKILLs. Opens (recovers) a store and runs an
 * upstream replicator against a primary until killed, reporting on stdout:
 *
 * <pre>
 *   {@literal @@}RECOVERED file:offset   the store was recovered; the stream continues here
 *   {@literal @@}STREAMING n             the replicator streams (n-th connection of this process)
 *   {@literal @@}FAILED text             the replicator stopped for good
 * </pre>
 *
 * Arguments: store directory, flavour (MYSQL or MARIADB), host, port, user, password, relay
 * server_id.
 */
public final class RelayChild {
  private RelayChild() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    GtidFlavor flavor = GtidFlavor.valueOf(args[1]);
    UpstreamConfig config =
        UpstreamConfig.builder(args[2], Integer.parseInt(args[3]), args[4], args[5])
            .serverId(Long.parseLong(args[6]))
            .heartbeatPeriod(Duration.ofMillis(500))
            .build();
    BinlogStore store = BinlogStore.open(StoreConfig.builder(dir, flavor).build());
    say("@@RECOVERED " + store.recoveryReport().nextUpstreamPosition());
    UpstreamReplicator replicator = new UpstreamReplicator(config, store);
    replicator.addListener(
        s -> {
          if (s.status() == UpstreamStatus.STREAMING) {
            say("@@STREAMING " + s.connections());
          } else if (s.status() == UpstreamStatus.FAILED) {
            say("@@FAILED " + s.lastError());
          }
        });
    replicator.start();
    Thread.currentThread().join(); // streams until the test kills this process
  }

  private static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
