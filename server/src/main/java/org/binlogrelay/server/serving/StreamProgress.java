package org.binlogrelay.server.serving;

/**
 * How far one dump stream got: the last event it passed (for the servers' error coordinates and for status), what
 * it sent, and when it last sent anything. Written on the connection's event loop; read from other threads only for
 * monitoring ({@link DumpStatus}), where a value a moment old is fine but a torn one is not: a file name paired with
 * another file's offset would make a wrong bytes-behind. So the writer brackets each update with {@link #version}
 * (odd while writing, a seqlock) and the monitoring reads retry until they saw one version.
 */
final class StreamProgress {
  /** Odd while the event loop updates the fields below; readers retry if it changed under them. */
  private volatile int version;
  private volatile String lastFile;
  private volatile long lastEventStart;
  private volatile long lastEventEnd;
  private volatile long eventsSent;
  private volatile long bytesSent;
  private volatile long heartbeatsSent;
  private volatile String sentFile;
  private volatile long sentEnd;
  private volatile long transactionsSent;
  /** The last event sent was a real ROTATE: the replica already names the next file. */
  private boolean afterRotate;
  /** Where a failing read stopped (the "last byte read"), -1 if the failure was not a read. */
  private long failurePosition = -1;
  private long lastSentNanos;

  StreamProgress(long nowNanos) {
    this.lastSentNanos = nowNanos;
  }

  /** The event {@code [start, start + size)} of {@code file} went out ({@code sent}) or was left out. */
  void passed(String file, long start, long size, boolean sent, boolean rotate, long nowNanos) {
    passed(file, start, size, sent, rotate, false, nowNanos);
  }

  /** As above; {@code transactionStart}: the event is a GTID event, the first of a transaction. */
  void passed(String file, long start, long size, boolean sent, boolean rotate, boolean transactionStart,
      long nowNanos) {
    version++;
    lastFile = file;
    lastEventStart = start;
    lastEventEnd = start + size;
    if (sent) {
      sentFile = file;
      sentEnd = start + size;
      if (transactionStart) {
        transactionsSent++;
      }
      eventsSent++;
      bytesSent += size;
      lastSentNanos = nowNanos;
      afterRotate = rotate;
    }
    version++;
  }

  /** Skipped transactions end at {@code end} of {@code file}. */
  void skipped(String file, long end) {
    version++;
    lastFile = file;
    lastEventEnd = end;
    version++;
  }

  /** A made-up event (ROTATE, heartbeat, GTID_LIST) went out. */
  void artificialSent(long nowNanos, boolean heartbeat) {
    lastSentNanos = nowNanos;
    if (heartbeat) {
      heartbeatsSent++;
    }
  }

  /** The next file starts. */
  void fileChanged() {
    afterRotate = false;
  }

  void failedReadingAt(long position) {
    failurePosition = position;
  }

  boolean afterRotate() {
    return afterRotate;
  }

  long lastSentNanos() {
    return lastSentNanos;
  }

  String lastFile() {
    return lastFile;
  }

  /** The coordinates of a failure now, for a stream started at {@code startFile:startPosition}. */
  Coordinates coordinates(String startFile, long startPosition, String currentFile) {
    long bytePosition = failurePosition >= 0 ? failurePosition : lastEventEnd;
    return new Coordinates(startFile, startPosition, lastFile, lastEventStart, lastEventEnd, currentFile,
        bytePosition);
  }

  /** The end of the last stored event sent, {@code null} before one. */
  org.binlogrelay.storage.Position sent() {
    while (true) {
      int before = version;
      String file = sentFile;
      long end = sentEnd;
      if ((before & 1) == 0 && before == version) {
        return file == null ? null : new org.binlogrelay.storage.Position(file, end);
      }
      Thread.onSpinWait();
    }
  }

  DumpStatus status(String name, DumpStatus.State state, long id, DumpStatus.Replica replica, long stalls,
      boolean paused) {
    while (true) {
      int before = version;
      String file = lastFile;
      long end = lastEventEnd;
      String sent = sentFile;
      long sentAt = sentEnd;
      long events = eventsSent;
      long bytes = bytesSent;
      long transactions = transactionsSent;
      if ((before & 1) == 0 && before == version) {
        return new DumpStatus(name, state, file == null ? "" : file, end, events, bytes, heartbeatsSent, id, replica,
            sent == null ? "" : sent, sentAt, transactions, stalls, paused);
      }
      Thread.onSpinWait();
    }
  }
}
