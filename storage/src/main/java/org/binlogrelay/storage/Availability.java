package org.binlogrelay.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the store accepts writes ({@link StoreCondition}), the error that stopped it, and the
 * counters of {@link StoreHealth}. The writer and the syncer report their I/O errors here; the
 * writer asks before every append; {@link BinlogStore#tryResume()} clears it. Messages say what
 * failed, where, what is kept, and what to do.
 *
 * <p>Thread-safe (synchronized); listeners are called outside the lock.
 */
final class Availability {
  private static final Logger LOG = LoggerFactory.getLogger(Availability.class);

  private final StoreDirectory dir;
  private final Time time;
  private final Listeners listeners;
  private final StoreWatch durable;
  private StoreCondition condition = StoreCondition.ACCEPTING;
  private Instant since;
  private Throwable cause;
  private String message;
  private String lastError;

  /**
   * Bytes of the largest write that failed since the store stopped, 0 if none (a force, a metadata
   * file, ...).
   */
  private long failedWriteBytes;

  private long diskFullEvents;
  private long ioErrorEvents;
  private long resumes;
  private long failedResumes;

  Availability(StoreDirectory dir, Time time, Listeners listeners, StoreWatch durable) {
    this.dir = dir;
    this.time = time;
    this.listeners = listeners;
    this.durable = durable;
    this.since = Instant.ofEpochMilli(time.milliseconds());
  }

  boolean accepting() {
    synchronized (this) {
      return condition == StoreCondition.ACCEPTING;
    }
  }

  /** The error that stopped the store, {@code null} while it accepts writes. */
  Throwable cause() {
    synchronized (this) {
      return cause;
    }
  }

  /**
   * Records that {@code what} failed with {@code error} (the first error stops the store; later
   * ones while it is stopped update the condition and {@link StoreHealth#lastError()}), logs it,
   * tells the listeners once per stop, and returns the sentence to report.
   *
   * @param what the operation and where, e.g. "writing 8192 bytes (WRITE_ROWS event) at
   *     binlog.000003:1234"
   * @param done what was done about it, e.g. "the incomplete transaction from binlog.000003:1000
   *     was cut", or {@code null}
   * @param bytes how many bytes the failed write wanted to write, 0 if it was not a write
   */
  String fail(Throwable error, String what, String done, long bytes) {
    StoreCondition c = StoreCondition.of(error, dir.path());
    String text = describe(c, error, what, done);
    boolean first;
    synchronized (this) {
      first = condition == StoreCondition.ACCEPTING;
      enter(c);
      if (first) {
        cause = error;
        message = text;
      }
      failedWriteBytes = Math.max(failedWriteBytes, bytes);
      lastError = what + " failed: " + errorText(error);
    }
    if (first) {
      LOG.error("{}", text, error);
      listeners.failed(error);
    } else {
      LOG.warn("{} (the store was already stopped)", text);
    }
    return text;
  }

  /** The exception appends and stream starts throw while the store does not accept writes. */
  StoreUnavailableException unavailable() {
    synchronized (this) {
      return new StoreUnavailableException(
          condition,
          "binlog store "
              + dir
              + " does not accept writes ("
              + condition
              + " since "
              + since
              + "). "
              + message,
          cause);
    }
  }

  /**
   * A {@link BinlogStore#tryResume()} attempt failed: the condition stays (or changes to what the
   * new error says).
   */
  String resumeFailed(Throwable error, String what) {
    StoreCondition classified =
        error instanceof InterruptedException ? null : StoreCondition.of(error, dir.path());
    String failed = what + " failed: " + errorText(error);
    StoreCondition c;
    synchronized (this) {
      c = classified == null ? condition : classified;
      failedResumes++;
      enter(c);
      lastError = failed;
    }
    String text = "binlog store " + dir + " is still " + c + ": " + failed + ". " + action(c);
    LOG.warn("{}", text);
    return text;
  }

  /** {@link BinlogStore#tryResume()} succeeded. */
  void resumed() {
    StoreHealth h;
    synchronized (this) {
      condition = StoreCondition.ACCEPTING;
      since = Instant.ofEpochMilli(time.milliseconds());
      cause = null;
      message = null;
      failedWriteBytes = 0;
      resumes++;
      h = health();
    }
    listeners.resumed(h);
  }

  /** Bytes of the largest write that failed since the store stopped, 0 if none did. */
  long failedWriteBytes() {
    synchronized (this) {
      return failedWriteBytes;
    }
  }

  StoreHealth health() {
    synchronized (this) {
      return new StoreHealth(
          condition, since, lastError, diskFullEvents, ioErrorEvents, resumes, failedResumes);
    }
  }

  private void enter(StoreCondition c) {
    if (c == condition) {
      return;
    }
    condition = c;
    since = Instant.ofEpochMilli(time.milliseconds());
    if (c == StoreCondition.DISK_FULL) {
      diskFullEvents++;
    } else {
      ioErrorEvents++;
    }
  }

  private String describe(StoreCondition c, Throwable error, String what, String done) {
    StringBuilder sb =
        new StringBuilder("binlog store ")
            .append(dir)
            .append(c == StoreCondition.DISK_FULL ? " is out of space: " : " hit an I/O error: ")
            .append(what)
            .append(" failed: ")
            .append(errorText(error))
            .append(". ");
    if (done != null) {
      sb.append(done).append("; ");
    }
    Position d = durable.position();
    sb.append(done == null ? "The" : "the")
        .append(" store stops accepting writes and keeps every complete transaction")
        .append(d == null ? "" : " (durable up to " + d + ")")
        .append(". ")
        .append(action(c));
    return sb.toString();
  }

  private String action(StoreCondition c) {
    if (c == StoreCondition.DISK_FULL) {
      return "Free space in "
          + dir
          + " ("
          + usable()
          + "); the relay resumes by itself once writes succeed"
          + " again (BinlogStore.tryResume), and the primary sends the rest again from where the store ends.";
    }
    return "Check the disk under "
        + dir
        + " (kernel log, SMART); the relay retries (BinlogStore.tryResume) and"
        + " resumes once writes succeed again, from where the store ends.";
  }

  private String usable() {
    try {
      return Files.getFileStore(dir.path()).getUsableSpace() + " bytes usable now";
    } catch (IOException e) {
      return "usable space unknown: " + e.getMessage();
    }
  }

  private static String errorText(Throwable e) {
    String m = e.getMessage();
    return m == null || m.isEmpty() ? e.getClass().getName() : m;
  }
}
