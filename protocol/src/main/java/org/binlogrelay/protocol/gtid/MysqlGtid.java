package org.binlogrelay.protocol.gtid;

import java.util.UUID;

/**
 * One MySQL transaction identifier: source UUID, optional tag (MySQL 8.3+; empty string when untagged)
 * and transaction number {@code gno} (1 to 2^63-2).
 *
 * @param sourceId the originating server's {@code server_uuid}
 * @param tag the tag, normalised to lower case, or "" when untagged
 * @param gno the transaction number
 */
public record MysqlGtid(UUID sourceId, String tag, long gno) {
  // Body (validation, toString "uuid[:tag]:gno") written with MysqlGtidSet.
}
