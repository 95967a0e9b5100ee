package org.binlogrelay.storage;

import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.protocol.event.BinlogEvent;

/**
 * The process {@link CrashRecoveryTest} kills: opens (recovers) a store, replays a fixture's dump
 * stream from where the store ends, with small random pauses, and reports on stdout, one line each:
 *
 * <pre>
 *   {@literal @@}READY file:offset      recovered; appending from this position
 *   {@literal @@}DURABLE file:offset    the durable boundary advanced here
 *   {@literal @@}ACK file:offset        a transaction ending here was reported durable (whenDurable completed)
 *   {@literal @@}DONE                   the whole stream is stored and synced
 * </pre>
 *
 * Arguments: store directory, fixture directory (mysql-9.7, mariadb-10.11 or mariadb-11.8), sync
 * policy, seed, max pause in microseconds.
 */
public final class CrashChild {
  private CrashChild() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    SourceBinlog source = SourceBinlog.of(args[1]);
    SyncPolicy policy = SyncPolicy.parse(args[2]);
    Random random = new Random(Long.parseLong(args[3]));
    int maxPauseMicros = Integer.parseInt(args[4]);
    StoreConfig config =
        Stores.config(dir, source)
            .syncPolicy(policy)
            .checkpointBytes(1 + random.nextInt(64 << 10))
            .build();
    try (BinlogStore store = BinlogStore.open(config)) {
      store.durable().addListener(p -> say("@@DURABLE " + p));
      Position start = store.startStream().orElse(Position.startOf(source.files.get(0)));
      say("@@READY " + start);
      List<BinlogEvent> stream = source.dumpStream(start);
      for (BinlogEvent e : stream) {
        Appended a = store.append(e);
        if (a.completedTransaction()) {
          Position end = a.position();
          store.whenDurable(end).thenRun(() -> say("@@ACK " + end));
        }
        if (maxPauseMicros > 0 && random.nextInt(2) == 0) {
          TimeUnit.MICROSECONDS.sleep(random.nextInt(maxPauseMicros));
        }
      }
      store.sync().get();
      say("@@DONE");
    }
  }

  private static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
