package org.binlogrelay.server.downstream.sql;

/**
 * One row of {@code SHOW REPLICAS} / {@code SHOW SLAVE HOSTS}: a replica that sent
 * COM_REGISTER_SLAVE on a connection that is still open. Immutable.
 *
 * @param serverId the replica's server id
 * @param host its {@code report_host}, often empty
 * @param port its {@code report_port}
 * @param sourceId the source id it sent (0 in practice)
 * @param uuid the {@code @replica_uuid} / {@code @slave_uuid} it set, empty if none
 */
public record ReplicaInfo(long serverId, String host, int port, long sourceId, String uuid) {}
