package org.binlogrelay.protocol.gtid;

/**
 * One MariaDB GTID, printed {@code domain-server-seq}.
 *
 * @param domainId replication domain (unsigned 32-bit)
 * @param serverId originating server id (unsigned 32-bit)
 * @param seqNo sequence number within the domain (unsigned 64-bit, kept raw)
 */
public record MariadbGtid(long domainId, long serverId, long seqNo) {
  // Body (validation, parse, toString) written with MariadbGtidSet.
}
