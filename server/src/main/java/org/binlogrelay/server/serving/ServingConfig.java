package org.binlogrelay.server.serving;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import org.binlogrelay.storage.Time;
import org.binlogrelay.storage.read.ReaderOptions;
import org.binlogrelay.storage.read.ReaderRegistry;

/**
 * How the relay serves binlog streams to replicas. Immutable; start from {@link #builder(long)}.
 *
 * @param serverId the relay's own server_id: what the events it makes up (artificial ROTATE,
 *     heartbeats, MariaDB's fake GTID_LIST) carry, as a primary puts its own there
 * @param readers where each dump's reader registers, so that retention keeps the files replicas
 *     still read; share it with the store's {@code Retention}
 * @param checkedSources the source UUIDs whose GTIDs a MySQL replica may not have more of than the
 *     store (MySQL checks its own server_uuid; a relay names its primary's); asked at every GTID
 *     dump
 * @param maxBatchBytes the most a reader hands out at once (a batch ends at a transaction boundary
 *     within it)
 * @param zeroCopy whether events may go out as file regions ({@code sendfile}) on connections
 *     without TLS
 * @param zeroCopyMinEventBytes events at least this large go out as file regions when {@code
 *     zeroCopy} applies; smaller ones are copied together, which costs fewer system calls than one
 *     region each
 * @param copyChunkBytes the largest buffer filled at once on the copy path; larger events go out in
 *     pieces
 * @param stalledReplicaTimeout a replica whose connection stays unwritable this long (it stopped
 *     reading) is dropped, as MySQL's {@code net_write_timeout} drops it
 * @param startWait how long a dump may wait for the store before it is refused: a position past the
 *     readable end of the open file, a replica ahead of the store, an empty store
 * @param observer hears what each stream hands to its socket (relay-added latency)
 * @param time the clock: its wall clock stamps {@link DumpStatus.Replica#connectedAtMillis()}
 * @param archiveLocation the archive's URL ({@code s3://bucket/prefix/}) for error texts, null
 *     without an archive
 * @param fetchTimeout how long a dump waits for an archived file to be fetched (at its start or at
 *     a file change, non-blocking dumps included) before it ends with error 1236
 * @param sharedBatches whether caught-up blocking dumps of one event loop in one file are served
 *     from one read and one framing per batch ({@link TailGroup}) instead of each its own
 */
public record ServingConfig(
    long serverId,
    ReaderRegistry readers,
    Supplier<Set<UUID>> checkedSources,
    int maxBatchBytes,
    boolean zeroCopy,
    int zeroCopyMinEventBytes,
    int copyChunkBytes,
    Duration stalledReplicaTimeout,
    Duration startWait,
    DumpObserver observer,
    Time time,
    String archiveLocation,
    Duration fetchTimeout,
    boolean sharedBatches) {

  public ServingConfig {
    if (serverId <= 0 || serverId > 0xffffffffL) {
      throw new IllegalArgumentException(
          "the relay's server_id must be 1..4294967295, got " + serverId);
    }
    Objects.requireNonNull(readers, "readers");
    Objects.requireNonNull(checkedSources, "checkedSources");
    if (maxBatchBytes < 1 || zeroCopyMinEventBytes < 1 || copyChunkBytes < 1024) {
      throw new IllegalArgumentException(
          "maxBatchBytes ("
              + maxBatchBytes
              + ") and zeroCopyMinEventBytes ("
              + zeroCopyMinEventBytes
              + ") must be positive, copyChunkBytes ("
              + copyChunkBytes
              + ") at least 1024");
    }
    requirePositive(stalledReplicaTimeout, "stalledReplicaTimeout");
    Objects.requireNonNull(startWait, "startWait");
    Objects.requireNonNull(observer, "observer");
    Objects.requireNonNull(time, "time");
    requirePositive(fetchTimeout, "fetchTimeout");
    if (startWait.isNegative()) {
      throw new IllegalArgumentException("startWait must not be negative, got " + startWait);
    }
  }

  private static void requirePositive(Duration d, String what) {
    Objects.requireNonNull(d, what);
    if (d.isZero() || d.isNegative()) {
      throw new IllegalArgumentException(what + " must be positive, got " + d);
    }
  }

  public static Builder builder(long serverId) {
    return new Builder(serverId);
  }

  /**
   * Builder with the defaults: 256 KiB batches, zero copy from 64 KiB, 256 KiB copy chunks, 60 s,
   * 10 s, shared batches on.
   */
  public static final class Builder {
    private final long serverId;
    private ReaderRegistry readers = new ReaderRegistry();
    private Supplier<Set<UUID>> checkedSources = Set::of;
    private int maxBatchBytes = 256 << 10;
    private boolean zeroCopy = true;
    private int zeroCopyMinEventBytes = 64 << 10;
    private int copyChunkBytes = 256 << 10;
    private Duration stalledReplicaTimeout = Duration.ofSeconds(60);
    private Duration startWait = Duration.ofSeconds(10);
    private DumpObserver observer = DumpObserver.NONE;
    private Time time = Time.SYSTEM;
    private String archiveLocation;
    private Duration fetchTimeout = Duration.ofMinutes(5);
    private boolean sharedBatches = true;

    private Builder(long serverId) {
      this.serverId = serverId;
    }

    public Builder readers(ReaderRegistry registry) {
      this.readers = registry;
      return this;
    }

    public Builder checkedSources(Supplier<Set<UUID>> sources) {
      this.checkedSources = sources;
      return this;
    }

    public Builder maxBatchBytes(int bytes) {
      this.maxBatchBytes = bytes;
      return this;
    }

    public Builder zeroCopy(boolean enabled) {
      this.zeroCopy = enabled;
      return this;
    }

    public Builder zeroCopyMinEventBytes(int bytes) {
      this.zeroCopyMinEventBytes = bytes;
      return this;
    }

    public Builder copyChunkBytes(int bytes) {
      this.copyChunkBytes = bytes;
      return this;
    }

    public Builder stalledReplicaTimeout(Duration timeout) {
      this.stalledReplicaTimeout = timeout;
      return this;
    }

    public Builder startWait(Duration wait) {
      this.startWait = wait;
      return this;
    }

    public Builder observer(DumpObserver dumpObserver) {
      this.observer = dumpObserver;
      return this;
    }

    public Builder time(Time clock) {
      this.time = clock;
      return this;
    }

    /** The archive dumps may wait for: its URL for error texts, and how long a fetch may take. */
    public Builder archive(String location, Duration timeout) {
      this.archiveLocation = location;
      this.fetchTimeout = timeout;
      return this;
    }

    /** Whether caught-up dumps share reads and framing ({@link TailGroup}); on by default. */
    public Builder sharedBatches(boolean enabled) {
      this.sharedBatches = enabled;
      return this;
    }

    public ServingConfig build() {
      return new ServingConfig(
          serverId,
          readers,
          checkedSources,
          maxBatchBytes,
          zeroCopy,
          zeroCopyMinEventBytes,
          copyChunkBytes,
          stalledReplicaTimeout,
          startWait,
          observer,
          time,
          archiveLocation,
          fetchTimeout,
          sharedBatches);
    }
  }

  /** The reader options of one dump. */
  ReaderOptions readerOptions(String name) {
    return ReaderOptions.defaults()
        .withMaxBatchBytes(maxBatchBytes)
        .withRegistry(readers)
        .withName(name);
  }
}
