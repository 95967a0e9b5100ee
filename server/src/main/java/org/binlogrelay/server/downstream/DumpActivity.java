package org.binlogrelay.server.downstream;

import java.util.Optional;
import org.binlogrelay.server.downstream.sql.ProcessInfo;

/**
 * What the dump of a connection is doing, for the State column of {@code SHOW PROCESSLIST}:
 * implemented over the dump handler by whoever composes the server. Thread-safe; must not block.
 */
@FunctionalInterface
public interface DumpActivity {

  /**
   * The activity of connection {@code connectionId}'s dump; empty if the handler does not know it.
   */
  Optional<ProcessInfo.Activity> of(long connectionId);

  /** Knows nothing: dumps show as sending. */
  DumpActivity UNKNOWN = id -> Optional.empty();
}
