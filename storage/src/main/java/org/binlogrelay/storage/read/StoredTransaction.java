package org.binlogrelay.storage.read;

import org.binlogrelay.protocol.txn.Transaction;
import org.binlogrelay.storage.Position;

/**
 * One complete transaction (MySQL) or event group (MariaDB) of a stored file, from its GTID event
 * to the event that completed it. Immutable.
 *
 * @param file the file
 * @param transaction its bytes {@code [start, end)} of the file, its GTID ({@code MysqlGtid} or
 *     {@code MariadbGtid}, {@code null} for an anonymous MySQL transaction) and how it ended
 */
public record StoredTransaction(String file, Transaction<?> transaction) {

  public long start() {
    return transaction.start();
  }

  public long end() {
    return transaction.end();
  }

  /** The GTID object, {@code null} if anonymous. */
  public Object gtid() {
    return transaction.gtid();
  }

  public Position startPosition() {
    return new Position(file, start());
  }

  public Position endPosition() {
    return new Position(file, end());
  }

  @Override
  public String toString() {
    return file + ":" + transaction;
  }
}
