package org.binlogrelay.storage.read;

/**
 * What one {@link BinlogReader#poll()} produced. In stream order, a reader yields:
 *
 * <ul>
 *   <li>{@link EventBatch}: whole events of one file, to send;
 *   <li>{@link Skipped}: transactions of the replica's GTID set that were passed over (GTID
 *       auto-position), so the server can tell the replica how far the stream went (MySQL sends a
 *       HEARTBEAT with the end);
 *   <li>{@link FileChange}: the reader finished a file and continues with the next one from offset
 *       4, whose FORMAT_DESCRIPTION comes first in the next batch (the server sends an artificial
 *       ROTATE before it, as MySQL and MariaDB do);
 *   <li>{@link CaughtUp}: nothing more is readable now; wait with {@link
 *       BinlogReader#whenReadable()} or {@link BinlogReader#read}.
 * </ul>
 */
public sealed interface ReadResult permits EventBatch, Skipped, FileChange, CaughtUp {}
