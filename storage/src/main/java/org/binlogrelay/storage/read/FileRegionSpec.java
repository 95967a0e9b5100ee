package org.binlogrelay.storage.read;

import java.nio.channels.FileChannel;

/**
 * A byte range of a stored file to send without copying: what the server wraps in a Netty {@code
 * FileRegion} (transferring {@code [position, position + count)} of {@code channel} with {@link
 * FileChannel#transferTo}). Immutable.
 *
 * <p>The channel belongs to the {@link EventBatch} that made this spec: do not close it (Netty's
 * {@code DefaultFileRegion} closes its channel when released, so use a region that calls {@link
 * EventBatch#close()} instead). Read only with positional methods ({@code transferTo}, {@code
 * read(dst, position)}): the channel is shared.
 *
 * @param channel read-only channel of the file
 * @param position the first byte
 * @param count how many bytes
 */
public record FileRegionSpec(FileChannel channel, long position, long count) {}
