package org.binlogrelay.server.serving;

import java.util.Objects;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.read.TransactionFilter;

/**
 * What a dump request leads to, as decided by the flavour from the request and the store ({@link
 * DumpFlavor#plan}). Immutable apart from the filter, which the stream's reader owns.
 */
sealed interface StartPlan {

  /**
   * Which changes ({@link FormatDescriptionPatch} flags) the FORMAT_DESCRIPTION opening a file
   * gets.
   */
  @FunctionalInterface
  interface FormatDescriptionRule {
    /**
     * @param firstFile the file the stream starts in
     */
    int changes(boolean firstFile);
  }

  /**
   * Stream from {@code start}.
   *
   * @param start where the reader starts: an event boundary of a stored file (offset 4 for GTID
   *     starts)
   * @param rotatePosition the position the opening artificial ROTATE names (the requested one)
   * @param filter transactions to skip (GTID auto-position), null for none
   * @param formatDescription how each file's FORMAT_DESCRIPTION is changed
   * @param heartbeatAfterSkip MySQL: a run of skipped transactions is followed by a HEARTBEAT
   *     naming its end, so that the replica's position covers it
   * @param watch what the start adds to the stream: MariaDB GTID starts' filter, watched for the
   *     fake GTID_LISTs ({@link MariadbPositionWatch}); {@link PositionWatch#NONE} otherwise
   * @param failAfterFormatDescription the servers read garbage from this start and fail after
   *     sending the ROTATE and FORMAT_DESCRIPTION: send those, then this failure (already with its
   *     coordinates)
   */
  record Stream(
      Position start,
      long rotatePosition,
      TransactionFilter filter,
      FormatDescriptionRule formatDescription,
      boolean heartbeatAfterSkip,
      PositionWatch watch,
      DumpFailure failAfterFormatDescription)
      implements StartPlan {
    public Stream {
      Objects.requireNonNull(watch, "watch");
    }
  }

  /** Refuse the dump with {@code failure}, before anything is sent. */
  record Refuse(DumpFailure failure) implements StartPlan {}

  /**
   * The store cannot serve the request yet (it is behind the replica, or empty): look again
   * shortly, and refuse with {@code failure} once {@link ServingConfig#startWait()} has passed.
   *
   * @param waitingFor what the dump waits for, for the log
   */
  record Retry(String waitingFor, DumpFailure failure) implements StartPlan {}
}
