package org.binlogrelay.server.upstream;

/**
 * Hears each change of {@link UpstreamStatus}, on the replicator's thread: return quickly and do
 * not block. Counters change without notification; poll {@link UpstreamReplicator#state()} for
 * them.
 */
@FunctionalInterface
public interface UpstreamListener {
  void stateChanged(UpstreamState state);
}
