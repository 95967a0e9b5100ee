package org.binlogrelay.bench;

import java.time.Duration;
import org.binlogrelay.bench.client.SourceAddress;

/**
 * How every replica client of a run connects. Immutable.
 *
 * @param source where to connect and as whom
 * @param connectTimeout bounds the connect and each statement
 * @param bufferSize each client's read buffer in bytes
 * @param maxPacket the largest packet accepted (the largest event plus one)
 * @param serverId the first client's server_id; client i uses {@code serverId + i}
 * @param heartbeatMillis the heartbeat period asked of the source
 * @param verifyChecksums whether every event's CRC32 is checked
 */
public record ClientSettings(
    SourceAddress source,
    Duration connectTimeout,
    int bufferSize,
    int maxPacket,
    long serverId,
    long heartbeatMillis,
    boolean verifyChecksums) {}
