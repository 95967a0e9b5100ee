package org.binlogrelay.server.upstream;

import java.time.Duration;
import java.util.Objects;
import org.binlogrelay.server.upstream.FailurePolicy.FailureClass;
import org.binlogrelay.storage.Position;

/**
 * What the replicator does after each failed connection: reconnect after a delay, or stop in {@link
 * UpstreamStatus#FAILED}. It hears every failed connection ({@link #next}), with what that
 * connection did ({@link Attempt}), and keeps two counts:
 *
 * <ul>
 *   <li>the <b>attempt</b>: failed connections since the last progress or stable connection. The
 *       delay before the next connection is {@link Backoff#delay}{@code (attempt)}: the first
 *       reconnection after a connection that worked waits at most the backoff's initial delay (200
 *       ms by default), and each further failure without progress doubles it up to the cap (30 s);
 *   <li>the <b>identical failures</b>: {@link FailureClass#DETERMINISTIC} failures in a row that
 *       are identical, without progress in between. At {@link FailurePolicy#MAX_IDENTICAL_FAILURES}
 *       the replicator stops, with the failure's text as the reason. {@link FailureClass#TRANSIENT}
 *       failures in between (the primary restarting while the password is wrong) neither count nor
 *       break the run; a different deterministic failure starts a new run at 1. A {@link
 *       FailureClass#FATAL} failure stops at once.
 * </ul>
 *
 * <p><b>Progress</b> is a transaction completed beyond the furthest point the store had reached:
 * the connection completed a transaction (the store keeps completed transactions across
 * reconnections; {@code BinlogStore.startStream()} cuts only an incomplete one) whose end is after
 * every transaction end and resume position seen before. Events written without completing a
 * transaction are not progress: a connection that stores a transaction's GTID event and is then
 * refused its XID leaves the store where it was once the next connection cut the partial
 * transaction. Progress resets both counts.
 *
 * <p>A <b>stable</b> connection is one that streamed for at least {@link #STABLE_CONNECTION} before
 * it failed (an idle primary sends only heartbeats, which are no progress): it resets the attempt,
 * so that an occasional network fault hours apart is retried quickly, but not the identical
 * failures.
 *
 * <p><b>Identical</b> failures have the same {@link Signature}: the same kind ({@link
 * IngestStats.FailureKind}), the same detail (for an error from the primary, its error number, SQL
 * state and the server's text; for any other failure its exception class and message, which for a
 * continuity error names the event, its log_pos, where it would start and where the store ends),
 * and the same position (where the store stood: the furthest resume position or transaction end
 * seen, {@code null} while no connection got that far).
 *
 * <p>Time: the schedule reads no clock; the replicator measures how long each connection streamed
 * with the {@code Time} it was given. Not thread-safe: the replicator's thread.
 */
final class ReconnectSchedule {
  /**
   * How long a connection must stream before its failure no longer counts as a failure in a row.
   */
  static final Duration STABLE_CONNECTION = Duration.ofSeconds(30);

  private final Backoff backoff;
  private final Duration stableAfter;
  private final int maxIdentical;
  private int attempt;
  private Signature run;
  private int identical;
  private Position reached;

  /**
   * What one connection did before it failed.
   *
   * @param start where it resumed (the store's end when it planned the dump), {@code null} if it
   *     failed before (connect, authentication, set-up) or the store was empty
   * @param completed the end of the last transaction it completed, {@code null} if none
   * @param streamed how long it streamed (from its first accepted packet to the failure), zero if
   *     it never did
   */
  record Attempt(Position start, Position completed, Duration streamed) {
    Attempt {
      Objects.requireNonNull(streamed, "streamed");
    }

    /** A connection that failed before its dump started. */
    static final Attempt NOTHING = new Attempt(null, null, Duration.ZERO);
  }

  /**
   * What makes two failures identical (see the class comment).
   *
   * @param kind the coarse kind, as the errors metric counts it
   * @param detail the server's error number, SQL state and text, or the exception's class and
   *     message
   * @param at where the store stood, {@code null} while unknown
   */
  record Signature(IngestStats.FailureKind kind, String detail, Position at) {
    static Signature of(Throwable failure, Position at) {
      String detail =
          failure instanceof PrimaryErrorException e
              ? "error " + e.code() + " (" + e.sqlState() + "): " + e.serverMessage()
              : failure.getClass().getName() + ": " + failure.getMessage();
      return new Signature(IngestStats.FailureKind.of(failure), detail, at);
    }
  }

  /**
   * What to do after a failed connection.
   *
   * @param failureClass the failure's class
   * @param retry true to reconnect after {@code delay}, false to stop in FAILED
   * @param delay the wait before the next connection (zero when stopping)
   * @param attempt the attempt number (1 for the first reconnection after progress)
   * @param identical identical deterministic failures in a row, this one included (0 for a
   *     transient failure with no run under way)
   * @param reason the failure's text; when stopping after repeated failures, with how often it came
   *     and where
   */
  record Decision(
      FailureClass failureClass,
      boolean retry,
      Duration delay,
      int attempt,
      int identical,
      String reason) {}

  ReconnectSchedule(Backoff backoff) {
    this(backoff, STABLE_CONNECTION, FailurePolicy.MAX_IDENTICAL_FAILURES);
  }

  ReconnectSchedule(Backoff backoff, Duration stableAfter, int maxIdentical) {
    this.backoff = Objects.requireNonNull(backoff, "backoff");
    this.stableAfter = Objects.requireNonNull(stableAfter, "stableAfter");
    if (maxIdentical < 1) {
      throw new IllegalArgumentException("maxIdentical must be at least 1, got " + maxIdentical);
    }
    this.maxIdentical = maxIdentical;
  }

  /**
   * Hears a failed connection and decides.
   *
   * @param failure what ended it
   * @param what what it did before
   * @param random a uniform value in {@code [0, 1)} for the backoff's jitter
   */
  Decision next(Throwable failure, Attempt what, double random) {
    if (progressed(what)) {
      attempt = 0;
      run = null;
      identical = 0;
    } else if (what.streamed().compareTo(stableAfter) >= 0) {
      attempt = 0;
    }
    attempt++;
    String text = describe(failure);
    FailureClass c = FailurePolicy.classify(failure);
    switch (c) {
      case FATAL:
        return new Decision(c, false, Duration.ZERO, attempt, identical, text);
      case DETERMINISTIC:
        Signature s = Signature.of(failure, reached);
        identical = s.equals(run) ? identical + 1 : 1;
        run = s;
        if (identical >= maxIdentical) {
          return new Decision(
              c,
              false,
              Duration.ZERO,
              attempt,
              identical,
              text
                  + " (the same failure "
                  + identical
                  + " times in a row"
                  + (reached == null ? "" : " with the store at " + reached)
                  + ", no transaction stored in between; not retrying)");
        }
        break;
      default:
        break;
    }
    return new Decision(c, true, backoff.delay(attempt, random), attempt, identical, text);
  }

  /** Starts afresh: after a source switch, or once the store accepts writes again. */
  void reset() {
    attempt = 0;
    run = null;
    identical = 0;
    reached = null;
  }

  /** Updates the furthest point reached; true if {@code what} completed a transaction beyond it. */
  private boolean progressed(Attempt what) {
    if (what.start() != null && (reached == null || what.start().isAfter(reached))) {
      reached = what.start();
    }
    Position done = what.completed();
    if (done == null || (reached != null && !done.isAfter(reached))) {
      return false;
    }
    reached = done;
    return true;
  }

  static String describe(Throwable failure) {
    String message = failure.getMessage();
    return message == null ? failure.toString() : message;
  }
}
