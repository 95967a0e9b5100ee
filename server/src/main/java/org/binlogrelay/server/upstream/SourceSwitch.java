package org.binlogrelay.server.upstream;

import org.binlogrelay.storage.Position;

/**
 * What {@link UpstreamReplicator#switchSource} did: the store ended here when the old source's
 * connection was closed, and the new source's executed GTIDs contained the store's. The next
 * connection, to {@code to}, resumes after these GTIDs. Immutable.
 *
 * @param from the previous source, {@code host:port}
 * @param to the new source, {@code host:port}
 * @param storeEnd where the store ended at the switch (a transaction boundary); {@code null} if it
 *     was empty
 * @param storedGtids the store's executed GTIDs at the switch, as the server prints them
 */
public record SourceSwitch(String from, String to, Position storeEnd, String storedGtids) {}
