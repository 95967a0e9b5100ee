package org.binlogrelay.storage.read;

import org.binlogrelay.storage.Position;

/**
 * Nothing is readable past {@code position} yet: the reader stands at the store's readable boundary
 * (a transaction boundary). Immutable.
 *
 * @param position where the reader stands, the position for a heartbeat
 */
public record CaughtUp(Position position) implements ReadResult {}
