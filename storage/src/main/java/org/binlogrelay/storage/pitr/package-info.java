/**
 * Point-in-time recovery: where to stop rolling a restored backup forward, found by time or by
 * GTID(s) as a transaction boundary of the stored binlog ({@link
 * org.binlogrelay.storage.pitr.StopPointFinder}), never inside a transaction.
 */
package org.binlogrelay.storage.pitr;
