package org.binlogrelay.server.serving;

import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.binlogrelay.server.downstream.sql.BinlogListing;
import org.binlogrelay.storage.BinlogSource;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.read.BinlogReadException;
import org.binlogrelay.storage.tier.ArchiveTier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the relay's store says to {@code SHOW BINARY LOGS}, {@code SHOW BINARY LOG STATUS} / {@code
 * SHOW MASTER STATUS}, {@code @@gtid_executed} / {@code @@gtid_binlog_pos} and {@code
 * BINLOG_GTID_POS()}, always as of the store's readable boundary: the open file's size and the
 * executed GTIDs are exactly what a replica can read now, never a transaction in flight.
 *
 * <ul>
 *   <li>{@link #files()}: every stored file and its size (the open one's readable length);
 *   <li>{@link #current()}: the readable end, where the next event will be;
 *   <li>{@link #executedGtids()}: MySQL {@code gtid_executed} text ({@code uuid:1-5,\nuuid:...});
 *       MariaDB the newest GTID per domain ({@code @@gtid_binlog_pos}); the full MariaDB state is
 *       {@link #binlogState()};
 *   <li>{@link #purgedGtids()}: the GTIDs before the oldest stored file ({@code @@gtid_purged});
 *   <li>{@link #gtidPositionAt}: MariaDB's {@code BINLOG_GTID_POS()} ({@link GtidPositionScan});
 *       empty on MySQL;
 *   <li>{@link #events}: {@code SHOW BINLOG EVENTS} ({@link BinlogEventsScan}).
 * </ul>
 *
 * With an archive ({@link #StoreBinlogListing(BinlogSource, BinlogStore, ArchiveTier)}), the files
 * are the tiered view's: the archived files before the store's first one are listed too, and each
 * file carries its tier ({@link BinlogFile#tier()}), which SHOW BINARY LOGS shows in a {@code Tier}
 * column; without one, the output is the store's alone, as before.
 *
 * <p>The flavour's terms come from its {@link DumpFlavor}, chosen once from the store's flavour.
 *
 * <p>Thread-safe (the store's methods are; the flavour is stateless).
 */
public final class StoreBinlogListing implements BinlogListing {
  /** The {@code Tier} of a file only the store holds. */
  public static final String TIER_LOCAL = "local";

  /** The {@code Tier} of a file both the store and the archive hold. */
  public static final String TIER_BOTH = "local,archive";

  /** The {@code Tier} of a file only the archive holds. */
  public static final String TIER_ARCHIVE = "archive";

  private static final Logger LOG = LoggerFactory.getLogger(StoreBinlogListing.class);

  private final BinlogSource store;
  private final DumpFlavor flavor;
  private final BinlogStore local;
  private final ArchiveTier tier;

  /** The listing of {@code store}'s files, without tiers (no archive). */
  public StoreBinlogListing(BinlogSource store) {
    this.store = Objects.requireNonNull(store, "store");
    this.flavor = DumpFlavor.of(store.flavor());
    this.local = null;
    this.tier = null;
  }

  /**
   * The listing of {@code binlogs} (the store and the archived files before it) with each file's
   * tier: {@code local}, {@code local,archive} or {@code archive}.
   *
   * @param local the store, which says which files are local
   * @param tier the archive, which says which files are archived
   */
  public StoreBinlogListing(BinlogSource binlogs, BinlogStore local, ArchiveTier tier) {
    this.store = Objects.requireNonNull(binlogs, "binlogs");
    this.flavor = DumpFlavor.of(binlogs.flavor());
    this.local = Objects.requireNonNull(local, "local");
    this.tier = Objects.requireNonNull(tier, "tier");
  }

  /** Every file, oldest first; with an archive, archived files first and each file's tier. */
  @Override
  public List<BinlogFile> files() {
    if (tier == null) {
      return store.files().stream().map(f -> new BinlogFile(f.name(), f.size())).toList();
    }
    Set<String> stored = new HashSet<>();
    for (FileMetadata f : local.files()) {
      stored.add(f.name());
    }
    return store.files().stream()
        .map(f -> new BinlogFile(f.name(), f.size(), tierOf(f.name(), stored)))
        .toList();
  }

  private String tierOf(String name, Set<String> stored) {
    boolean archived = tier.archived(name);
    if (!stored.contains(name)) {
      return TIER_ARCHIVE;
    }
    return archived ? TIER_BOTH : TIER_LOCAL;
  }

  @Override
  public Optional<BinlogListing.Position> current() {
    org.binlogrelay.storage.Position end = store.readableEnd();
    return end == null
        ? Optional.empty()
        : Optional.of(new BinlogListing.Position(end.file(), end.offset()));
  }

  @Override
  public String executedGtids() {
    return flavor.executedGtids(store.executedGtids());
  }

  /**
   * MariaDB's {@code @@gtid_binlog_state}: every domain-server pair; on MySQL the same as {@link
   * #executedGtids()}.
   */
  @Override
  public String binlogState() {
    return store.executedGtids().toString();
  }

  /** The GTIDs no longer stored ({@code @@gtid_purged}): the start set of the oldest file. */
  @Override
  public String purgedGtids() {
    return store.purgedGtids().toString();
  }

  @Override
  public Optional<String> gtidPositionAt(String file, long offset) {
    try {
      return flavor.gtidPositionAt(store, file, offset);
    } catch (BinlogReadException e) {
      LOG.info("BINLOG_GTID_POS('{}', {}): {}", file, offset, e.getMessage());
      return Optional.empty();
    } catch (IOException e) {
      LOG.warn("BINLOG_GTID_POS('{}', {}) could not read the stored binlog", file, offset, e);
      return Optional.empty();
    }
  }

  /**
   * {@code SHOW BINLOG EVENTS}, from the stored file's readable part ({@link BinlogEventsScan}).
   */
  @Override
  public Optional<List<EventRow>> events(String file, long from, long offset, long count) {
    try {
      return BinlogEventsScan.rows(store, file, from, offset, count);
    } catch (IOException e) {
      LOG.warn("SHOW BINLOG EVENTS IN '{}' could not read the stored binlog", file, e);
      return Optional.empty();
    }
  }
}
