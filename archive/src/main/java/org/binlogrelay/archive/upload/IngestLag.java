package org.binlogrelay.archive.upload;

/**
 * How far the relay's ingest is behind its primary, as {@code Seconds_Behind_Source} reads: what
 * {@link CatchUpDeferral} looks at to let a catch-up have the machine before the uploads.
 */
@FunctionalInterface
public interface IngestLag {
  /** No ingest to yield to (tests, tools): never defers. */
  IngestLag UNKNOWN = () -> Double.NaN;

  /**
   * Seconds behind the primary (0 right after a heartbeat: the primary had nothing more to send),
   * or {@link Double#NaN} when unknown: not streaming (the primary down, the store refusing
   * writes), or nothing received yet.
   */
  double secondsBehind();
}
