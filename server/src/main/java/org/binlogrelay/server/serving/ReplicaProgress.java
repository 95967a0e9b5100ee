package org.binlogrelay.server.serving;

import org.binlogrelay.storage.Position;

/**
 * How far one dump stream got: the last event it passed (for the servers' error coordinates and for
 * status), what it sent, and when it last sent anything.
 *
 * <p>The event loop updates plain fields, once per event and without any memory barrier (the
 * serving path's hot spot), and {@link #publish} copies them, once per write step, to the volatile
 * fields that other threads read for monitoring ({@link #status}, {@link #sent}). A value a step
 * old is fine there, but a torn one is not: a file name paired with another file's offset would
 * make a wrong bytes-behind. So {@link #publish} brackets the copy with {@link #version} (odd while
 * writing, a seqlock) and the monitoring reads retry until they saw one version.
 */
final class ReplicaProgress {
  // ---- event loop only ----
  private String lastFile;
  private long lastEventStart;
  private long lastEventEnd;
  private long eventsSent;
  private long bytesSent;
  private long heartbeatsSent;
  private String sentFile;
  private long sentEnd;
  private long transactionsSent;

  /** The last event sent was a real ROTATE: the replica already names the next file. */
  private boolean afterRotate;

  /** Where a failing read stopped (the "last byte read"), -1 if the failure was not a read. */
  private long failurePosition = -1;

  private long lastSentNanos;

  /** Events went out since the last {@link #publish}. */
  private boolean sentSincePublish;

  private boolean changed;

  // ---- published for other threads ----
  /** Odd while {@link #publish} copies; readers retry if it changed under them. */
  private volatile int version;

  private volatile String pubLastFile;
  private volatile long pubLastEventEnd;
  private volatile long pubEventsSent;
  private volatile long pubBytesSent;
  private volatile long pubHeartbeatsSent;
  private volatile String pubSentFile;
  private volatile long pubSentEnd;
  private volatile long pubTransactionsSent;

  ReplicaProgress(long nowNanos) {
    this.lastSentNanos = nowNanos;
  }

  /**
   * The event {@code [start, start + size)} of {@code file} went out ({@code sent}) or was left
   * out.
   */
  void passed(String file, long start, long size, boolean sent, boolean rotate, long nowNanos) {
    passed(file, start, size, sent, rotate, false);
    if (sent) {
      lastSentNanos = nowNanos;
      sentSincePublish = false;
    }
  }

  /**
   * As above, for the serving path: {@code transactionStart}, the event is a GTID event, the first
   * of a transaction; the time of sending is the time of the next {@link #publish}.
   */
  void passed(
      String file, long start, long size, boolean sent, boolean rotate, boolean transactionStart) {
    changed = true;
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
      sentSincePublish = true;
      afterRotate = rotate;
    }
  }

  /** Skipped transactions end at {@code end} of {@code file}. */
  void skipped(String file, long end) {
    changed = true;
    lastFile = file;
    lastEventEnd = end;
  }

  /**
   * A run of {@code events} stored events, all sent, went out at once (a shared batch, {@link
   * TailGroup}): {@code bytes} in all, {@code transactions} of them starting a transaction, the
   * last one {@code [lastStart, lastStart + lastSize)} of {@code file}, a ROTATE if {@code
   * lastRotate}. The same figures as {@link #passed} once per event.
   */
  void passedRun(
      String file,
      long lastStart,
      long lastSize,
      int events,
      long bytes,
      int transactions,
      boolean lastRotate,
      long nowNanos) {
    if (events == 0) {
      return;
    }
    changed = true;
    lastFile = file;
    lastEventStart = lastStart;
    lastEventEnd = lastStart + lastSize;
    sentFile = file;
    sentEnd = lastStart + lastSize;
    transactionsSent += transactions;
    eventsSent += events;
    bytesSent += bytes;
    afterRotate = lastRotate;
    lastSentNanos = nowNanos;
    sentSincePublish = false;
  }

  /** A made-up event (ROTATE, heartbeat, GTID_LIST) went out. */
  void artificialSent(long nowNanos, boolean heartbeat) {
    lastSentNanos = nowNanos;
    if (heartbeat) {
      changed = true;
      heartbeatsSent++;
    }
  }

  /**
   * Makes the event loop's figures visible to {@link #status} and {@link #sent} readers; events
   * passed since the last call count as sent at {@code nowNanos}. Event loop only; cheap when
   * nothing changed.
   */
  void publish(long nowNanos) {
    if (sentSincePublish) {
      lastSentNanos = nowNanos;
      sentSincePublish = false;
    }
    if (!changed) {
      return;
    }
    changed = false;
    version++;
    pubLastFile = lastFile;
    pubLastEventEnd = lastEventEnd;
    pubEventsSent = eventsSent;
    pubBytesSent = bytesSent;
    pubHeartbeatsSent = heartbeatsSent;
    pubSentFile = sentFile;
    pubSentEnd = sentEnd;
    pubTransactionsSent = transactionsSent;
    version++;
  }

  /** The next file starts. */
  void fileChanged() {
    afterRotate = false;
  }

  void failedReadingAt(long position) {
    failurePosition = position;
  }

  /** Event loop only. */
  boolean afterRotate() {
    return afterRotate;
  }

  /**
   * Event loop only: when anything last went out (events passed since the last publish count from
   * then).
   */
  long lastSentNanos() {
    return lastSentNanos;
  }

  /** Event loop only. */
  String lastFile() {
    return lastFile;
  }

  /**
   * Event loop only: the coordinates of a failure now, for a stream started at {@code
   * startFile:startPosition}.
   */
  Coordinates coordinates(String startFile, long startPosition, String currentFile) {
    long bytePosition = failurePosition >= 0 ? failurePosition : lastEventEnd;
    return new Coordinates(
        startFile,
        startPosition,
        lastFile,
        lastEventStart,
        lastEventEnd,
        currentFile,
        bytePosition);
  }

  /**
   * The end of the last stored event sent as of the last {@link #publish}, {@code null} before one.
   * Any thread.
   */
  Position sent() {
    while (true) {
      int before = version;
      String file = pubSentFile;
      long end = pubSentEnd;
      if ((before & 1) == 0 && before == version) {
        return file == null ? null : new Position(file, end);
      }
      Thread.onSpinWait();
    }
  }

  /** As of the last {@link #publish}. Any thread. */
  DumpStatus status(
      String name,
      DumpStatus.State state,
      long id,
      DumpStatus.Replica replica,
      long stalls,
      boolean paused) {
    while (true) {
      int before = version;
      String file = pubLastFile;
      long end = pubLastEventEnd;
      String sent = pubSentFile;
      long sentAt = pubSentEnd;
      long events = pubEventsSent;
      long bytes = pubBytesSent;
      long heartbeats = pubHeartbeatsSent;
      long transactions = pubTransactionsSent;
      if ((before & 1) == 0 && before == version) {
        return new DumpStatus(
            name,
            state,
            file == null ? "" : file,
            end,
            events,
            bytes,
            heartbeats,
            id,
            replica,
            sent == null ? "" : sent,
            sentAt,
            transactions,
            stalls,
            paused);
      }
      Thread.onSpinWait();
    }
  }
}
