package org.binlogrelay.server.serving;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.server.downstream.DumpRequest;
import org.binlogrelay.storage.BinlogSource;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.read.testing.TestStores;
import org.binlogrelay.storage.testing.DirectoryArchiveTier;
import org.binlogrelay.storage.testing.DirectoryArchiveTier.Fetch;
import org.binlogrelay.storage.tier.TieredBinlog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Dumps over a {@link TieredBinlog} whose first files are only in the archive: a dump that starts
 * in an archived file, or crosses into one, waits for its fetch (the future, not a retry loop),
 * also when it is non-blocking, then sends exactly what it sends from local files; a fetch that
 * fails or takes longer than the fetch timeout ends the dump with error 1236 naming the file, the
 * archive and the cause.
 */
class ArchiveDumpTest {
  private static final int NON_BLOCKING = DumpRequest.BINLOG_DUMP_NON_BLOCK;
  private static final String LOCATION = "s3://binlogs/relay-1/";
  private static final Duration FETCH_TIMEOUT = Duration.ofSeconds(30);

  private final StoreFixtures mysql = StoreFixtures.mysql();

  @TempDir Path dir;

  @AfterEach
  void releaseChannels() {
    Dumps.releaseAll();
  }

  private static ServingConfig config() {
    return Dumps.config().zeroCopy(false).archive(LOCATION, FETCH_TIMEOUT).build();
  }

  /** The first two fixture files archived and removed from the store; fetches held. */
  private DirectoryArchiveTier archiveFirstTwo(BinlogStore store) throws Exception {
    TestStores.settle(store);
    List<String> f = mysql.files;
    DirectoryArchiveTier tier =
        DirectoryArchiveTier.of(dir.resolve("tier"), store, f.subList(0, 2));
    store.removeFilesBefore(f.get(2));
    tier.fetchMode(Fetch.DELAYED);
    return tier;
  }

  private static EmbeddedChannel dump(BinlogSource source, DumpRequest request) {
    EmbeddedChannel channel = Dumps.channel();
    Dumps.start(
        channel,
        source,
        config(),
        request,
        Dumps.variables("master_binlog_checksum", "NONE", "source_binlog_checksum", "NONE"));
    return channel;
  }

  /** What a non-blocking dump from the first file sends when every file is local. */
  private byte[] allLocal() throws IOException {
    try (BinlogStore store = mysql.store(dir.resolve("local"))) {
      EmbeddedChannel channel =
          dump(store, Dumps.byPosition(mysql.files.get(0), 4, NON_BLOCKING, 0));
      return Wire.drain(channel).bytes();
    }
  }

  @Test
  void aNonBlockingDumpWaitsForEachFetchThenSendsWhatLocalFilesGive() throws Exception {
    byte[] expected = allLocal();
    List<String> f = mysql.files;
    try (BinlogStore store = mysql.store(dir.resolve("store"))) {
      DirectoryArchiveTier tier = archiveFirstTwo(store);
      TieredBinlog view = new TieredBinlog(store, tier, 0);
      EmbeddedChannel channel = dump(view, Dumps.byPosition(f.get(0), 4, NON_BLOCKING, 0));

      assertThat(tier.fetchPending(f.get(0))).isTrue();
      assertThat(Wire.drain(channel).bytes()).as("nothing before the start file is here").isEmpty();
      assertThat(channel.isOpen()).isTrue();

      tier.completeFetch(f.get(0));
      channel.runPendingTasks();
      byte[] first = Wire.drain(channel).bytes();
      assertThat(first).isNotEmpty();
      assertThat(tier.fetchPending(f.get(1))).as("fetched at the file change").isTrue();
      assertThat(channel.isOpen()).as("no EOF while the next file is fetched").isTrue();

      tier.completeFetch(f.get(1));
      channel.runPendingTasks();
      byte[] rest = Wire.drain(channel).bytes();
      byte[] all = new byte[first.length + rest.length];
      System.arraycopy(first, 0, all, 0, first.length);
      System.arraycopy(rest, 0, all, first.length, rest.length);
      assertThat(all).isEqualTo(expected);
      assertThat(channel.isOpen()).as("closed after EOF").isFalse();
    }
  }

  @Test
  void aBlockingDumpStartingInAnArchivedFileStreamsOnceItIsFetched() throws Exception {
    List<String> f = mysql.files;
    try (BinlogStore store = mysql.store(dir.resolve("store"))) {
      DirectoryArchiveTier tier = archiveFirstTwo(store);
      tier.fetchMode(Fetch.IMMEDIATE);
      TieredBinlog view = new TieredBinlog(store, tier, 1);
      EmbeddedChannel channel = dump(view, Dumps.byPosition(f.get(1), 4, 0, 7));
      channel.runPendingTasks();
      List<Wire.Packet> packets = Wire.packets(Wire.drain(channel).bytes());
      assertThat(packets).isNotEmpty();
      assertThat(packets.get(0).first()).as("an event, not an error").isZero();
      assertThat(channel.isOpen()).isTrue();
    }
  }

  @Test
  void aFailedFetchAtTheStartEndsTheDumpWith1236() throws Exception {
    List<String> f = mysql.files;
    try (BinlogStore store = mysql.store(dir.resolve("store"))) {
      DirectoryArchiveTier tier = archiveFirstTwo(store);
      TieredBinlog view = new TieredBinlog(store, tier, 0);
      EmbeddedChannel channel = dump(view, Dumps.byPosition(f.get(0), 4, 0, 7));
      tier.failFetch(f.get(0), new IOException("Connection refused: 127.0.0.1:9"));
      channel.runPendingTasks();

      List<Wire.Packet> packets = Wire.packets(Wire.drain(channel).bytes());
      assertThat(packets).hasSize(1);
      ErrPacket err = ErrPacket.decode(packets.get(0).payload());
      assertThat(err.code()).isEqualTo(1236);
      assertThat(err.message())
          .isEqualTo(
              "binlog-relay could not fetch "
                  + f.get(0)
                  + " from its archive "
                  + LOCATION
                  + ": Connection refused: 127.0.0.1:9");
      assertThat(channel.isOpen()).isFalse();
    }
  }

  @Test
  void aFetchThatTakesLongerThanTheTimeoutEndsTheDumpWith1236() throws Exception {
    List<String> f = mysql.files;
    try (BinlogStore store = mysql.store(dir.resolve("store"))) {
      DirectoryArchiveTier tier = archiveFirstTwo(store);
      TieredBinlog view = new TieredBinlog(store, tier, 0);
      EmbeddedChannel channel = dump(view, Dumps.byPosition(f.get(0), 4, NON_BLOCKING, 0));
      channel.advanceTimeBy(FETCH_TIMEOUT.toMillis() - 1, TimeUnit.MILLISECONDS);
      channel.runScheduledPendingTasks();
      assertThat(channel.isOpen()).isTrue();
      channel.advanceTimeBy(1, TimeUnit.MILLISECONDS);
      channel.runScheduledPendingTasks();

      List<Wire.Packet> packets = Wire.packets(Wire.drain(channel).bytes());
      assertThat(packets).hasSize(1);
      ErrPacket err = ErrPacket.decode(packets.get(0).payload());
      assertThat(err.code()).isEqualTo(1236);
      assertThat(err.message())
          .isEqualTo(
              "binlog-relay could not fetch "
                  + f.get(0)
                  + " from its archive "
                  + LOCATION
                  + ": not fetched within 30 s (--archive-fetch-timeout)");
      assertThat(channel.isOpen()).isFalse();
    }
  }

  @Test
  void aFailedFetchAtAFileChangeEndsTheDumpWith1236() throws Exception {
    List<String> f = mysql.files;
    try (BinlogStore store = mysql.store(dir.resolve("store"))) {
      DirectoryArchiveTier tier = archiveFirstTwo(store);
      TieredBinlog view = new TieredBinlog(store, tier, 0);
      EmbeddedChannel channel = dump(view, Dumps.byPosition(f.get(0), 4, 0, 7));
      tier.completeFetch(f.get(0));
      channel.runPendingTasks();
      Wire.drain(channel);
      assertThat(tier.fetchPending(f.get(1))).isTrue();

      tier.failFetch(f.get(1), new IOException("Access Denied (403)"));
      channel.runPendingTasks();
      List<Wire.Packet> packets = Wire.packets(Wire.drain(channel).bytes());
      ErrPacket err = ErrPacket.decode(packets.get(packets.size() - 1).payload());
      assertThat(err.code()).isEqualTo(1236);
      assertThat(err.message())
          .isEqualTo(
              "binlog-relay could not fetch "
                  + f.get(1)
                  + " from its archive "
                  + LOCATION
                  + ": Access Denied (403)");
      assertThat(channel.isOpen()).isFalse();
    }
  }
}
