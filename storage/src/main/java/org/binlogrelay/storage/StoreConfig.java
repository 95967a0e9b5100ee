package org.binlogrelay.storage;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import org.binlogrelay.protocol.gtid.GtidFlavor;

/**
 * How to open a {@link BinlogStore}. Immutable; build with {@link #builder(Path, GtidFlavor)}.
 *
 * @param directory where the binlog files, the index and the metadata live (created if missing)
 * @param flavor MySQL or MariaDB; checked against every FORMAT_DESCRIPTION event received
 * @param syncPolicy when bytes are forced to disk
 * @param readableWhenDurable if true, readers see a transaction only once it is durable (the
 *     readable boundary is the smaller of the written and the durable boundary); if false, as soon
 *     as it is written
 * @param checkpointBytes a checkpoint of the open file is taken once this many bytes were written
 *     since the last one (at the next transaction boundary)
 * @param checkpointInterval ... or once this much time passed since the last one
 * @param maxEventSize largest event accepted from upstream or read back (MySQL's own limit is 1
 *     GiB)
 * @param time the clock
 */
public record StoreConfig(
    Path directory,
    GtidFlavor flavor,
    SyncPolicy syncPolicy,
    boolean readableWhenDurable,
    long checkpointBytes,
    Duration checkpointInterval,
    int maxEventSize,
    Time time) {

  public static final long DEFAULT_CHECKPOINT_BYTES = 8L << 20;
  public static final Duration DEFAULT_CHECKPOINT_INTERVAL = Duration.ofSeconds(10);
  public static final int DEFAULT_MAX_EVENT_SIZE = 1 << 30;

  public StoreConfig {
    Objects.requireNonNull(directory, "directory");
    Objects.requireNonNull(flavor, "flavor");
    Objects.requireNonNull(syncPolicy, "syncPolicy");
    Objects.requireNonNull(checkpointInterval, "checkpointInterval");
    Objects.requireNonNull(time, "time");
    if (checkpointBytes < 1) {
      throw new IllegalArgumentException(
          "checkpointBytes must be positive, got " + checkpointBytes);
    }
    if (checkpointInterval.isNegative() || checkpointInterval.isZero()) {
      throw new IllegalArgumentException(
          "checkpointInterval must be positive, got " + checkpointInterval);
    }
    if (maxEventSize < 64) {
      throw new IllegalArgumentException("maxEventSize " + maxEventSize + " is too small");
    }
  }

  public static Builder builder(Path directory, GtidFlavor flavor) {
    return new Builder(directory, flavor);
  }

  /**
   * Builder with the defaults: every-transaction, readable when written, 8 MiB / 10 s checkpoints.
   */
  public static final class Builder {
    private final Path directory;
    private final GtidFlavor flavor;
    private SyncPolicy syncPolicy = SyncPolicy.everyTransaction();
    private boolean readableWhenDurable;
    private long checkpointBytes = DEFAULT_CHECKPOINT_BYTES;
    private Duration checkpointInterval = DEFAULT_CHECKPOINT_INTERVAL;
    private int maxEventSize = DEFAULT_MAX_EVENT_SIZE;
    private Time time = Time.SYSTEM;

    private Builder(Path directory, GtidFlavor flavor) {
      this.directory = directory;
      this.flavor = flavor;
    }

    public Builder syncPolicy(SyncPolicy policy) {
      this.syncPolicy = policy;
      return this;
    }

    public Builder readableWhenDurable(boolean value) {
      this.readableWhenDurable = value;
      return this;
    }

    public Builder checkpointBytes(long bytes) {
      this.checkpointBytes = bytes;
      return this;
    }

    public Builder checkpointInterval(Duration interval) {
      this.checkpointInterval = interval;
      return this;
    }

    public Builder maxEventSize(int bytes) {
      this.maxEventSize = bytes;
      return this;
    }

    public Builder time(Time value) {
      this.time = value;
      return this;
    }

    public StoreConfig build() {
      return new StoreConfig(
          directory,
          flavor,
          syncPolicy,
          readableWhenDurable,
          checkpointBytes,
          checkpointInterval,
          maxEventSize,
          time);
    }
  }
}
