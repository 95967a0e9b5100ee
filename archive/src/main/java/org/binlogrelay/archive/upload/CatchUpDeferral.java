package org.binlogrelay.archive.upload;

import java.time.Duration;

/**
 * When uploads wait for the relay's ingest: while the relay catches up a backlog from its primary
 * (more than {@code behindAbove} behind it), the uploader starts no upload and sends no further
 * part, so that on a small machine the upstream, its fsyncs and the readers get the CPU and the
 * disk, and catches up as fast as with no archive. Uploads resume once the relay is within {@link
 * #RESUME_WITHIN} of its primary (or the primary sent a heartbeat: it has nothing more), when the
 * lag is unknown (not streaming: the primary is down or the store refuses writes, so nothing is
 * ingested and waiting would gain nothing; a full disk then gets the uploads that let retention
 * free it), or once the closed files waiting for their upload hold {@code maxPendingBytes}: a
 * catch-up of days of binlogs never holds the uploads back for longer than that many bytes of the
 * local disk.
 *
 * @param behindAbove the lag above which uploads wait; {@link Duration#ZERO} turns waiting off
 * @param maxPendingBytes the most bytes of closed, not yet archived files that wait for a catch-up;
 *     beyond that, uploads go on during it
 */
public record CatchUpDeferral(Duration behindAbove, long maxPendingBytes) {
  /** How close to its primary the relay must come for deferred uploads to resume: 2 s. */
  public static final Duration RESUME_WITHIN = Duration.ofSeconds(2);

  /** The default: wait while more than 10 s behind, for at most 4 GiB of files. */
  public static final CatchUpDeferral DEFAULT =
      new CatchUpDeferral(Duration.ofSeconds(10), 4L << 30);

  /** Uploads never wait for ingest. */
  public static final CatchUpDeferral OFF = new CatchUpDeferral(Duration.ZERO, 0);

  public CatchUpDeferral {
    if (behindAbove.isNegative()) {
      throw new IllegalArgumentException("defer-while-behind " + behindAbove + " < 0");
    }
    if (!behindAbove.isZero() && behindAbove.compareTo(RESUME_WITHIN) <= 0) {
      throw new IllegalArgumentException(
          "defer-while-behind "
              + behindAbove.toMillis()
              + " ms must be more than "
              + RESUME_WITHIN.toSeconds()
              + " s (uploads resume within "
              + RESUME_WITHIN.toSeconds()
              + " s of the primary), or 0 to turn it off");
    }
    if (maxPendingBytes < 0) {
      throw new IllegalArgumentException("defer max pending " + maxPendingBytes + " < 0");
    }
  }

  /** Whether uploads may wait at all. */
  public boolean enabled() {
    return !behindAbove.isZero() && maxPendingBytes > 0;
  }

  /** Hysteresis: enters above {@link #behindAbove}, leaves within {@link #RESUME_WITHIN}. */
  static final class Gate {
    private final CatchUpDeferral rule;
    private final IngestLag lag;
    private boolean catchingUp;
    private double lastLag = Double.NaN;

    Gate(CatchUpDeferral rule, IngestLag lag) {
      this.rule = rule;
      this.lag = lag;
    }

    /** Whether uploads should wait now, with {@code pendingBytes} of files waiting. */
    boolean defer(long pendingBytes) {
      if (!rule.enabled()) {
        return false;
      }
      double behind = lag.secondsBehind();
      lastLag = behind;
      if (Double.isNaN(behind)) {
        catchingUp = false;
      } else if (catchingUp) {
        catchingUp = behind > RESUME_WITHIN.toMillis() / 1000.0;
      } else {
        catchingUp = behind > rule.behindAbove.toMillis() / 1000.0;
      }
      return catchingUp && pendingBytes < rule.maxPendingBytes;
    }

    /** The lag read by the last {@link #defer}, NaN if unknown. */
    double lastLag() {
      return lastLag;
    }
  }
}
